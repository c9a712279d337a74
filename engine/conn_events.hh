// SPDX-License-Identifier: BSD-3-Clause
// conn_events.hh -- waiting for connection events without hanging forever.
#ifndef RPMA_ENGINE_CONN_EVENTS_HH
#define RPMA_ENGINE_CONN_EVENTS_HH

#include "result.hh"

#include <librpma.h>

#include <chrono>

struct thread_data;

namespace rpma_fio {

using Clock = std::chrono::steady_clock;

// How long past connect_timeout a client waits for the server's answer to
// a request it sent (the server's own bound on a handshake is its
// handshake_timeout= option).
constexpr int HANDSHAKE_TIMEOUT_MS = 10000;
// How long the goodbye after a good run may take: no answer in time is no
// reason to fail a finished job.
constexpr int GOODBYE_TIMEOUT_MS = 5000;
// Operations in flight and not one completion for this long: the other
// end or the path to it is gone without a word (a powered-off peer; a
// responder that drops what it cannot execute), and Soft-RoCE does not
// always end the operations with an error of its own. Far above any
// retransmission time. A client bounds its operations with it, a server
// its probe of the client.
constexpr auto OPERATION_TIMEOUT = std::chrono::seconds(30);

// How often an engine that waits looks at td->terminate and its deadlines.
constexpr int POLL_MS = 100;
// While busy polling, how many empty polls between two looks at the
// connection's events (a look is a system call).
constexpr unsigned EVENT_CHECK_INTERVAL = 4096;
// Completions taken from the queue at once.
constexpr int WC_BATCH = 16;

// true if fd became readable within timeout_ms (-1: no limit)
bool fd_readable(int fd, int timeout_ms);

// The next event of conn if one arrives within timeout_ms (0: only one that
// is already there): DONE with *event set, RETRY if none came, FAILED
// after reporting librpma's error through td.
Result next_conn_event(thread_data *td, rpma_conn *conn, int timeout_ms, rpma_conn_event *event);

// After a good run: waits up to GOODBYE_TIMEOUT_MS for conn to be closed or
// lost, quietly.
void await_goodbye(rpma_conn *conn);

// milliseconds left until deadline, at least 0
int ms_left(Clock::time_point deadline);

// Disconnects and deletes *conn, if any. Its queue pair goes first: the
// device then writes into no memory registered for it, which may go next.
void close_connection(rpma_conn **conn);

}

#endif
