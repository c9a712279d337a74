// SPDX-License-Identifier: BSD-3-Clause
// conn_events.hh -- waiting for connection events without hanging forever.
#ifndef RPMA_ENGINE_CONN_EVENTS_HH
#define RPMA_ENGINE_CONN_EVENTS_HH

#include <librpma.h>

#include <chrono>

namespace rpma_fio {

using Clock = std::chrono::steady_clock;

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
// is already there). Returns 0 with *event set, 1 if none came, or the
// negative librpma error.
int next_conn_event(rpma_conn *conn, int timeout_ms, rpma_conn_event *event);

// milliseconds left until deadline, at least 0
int ms_left(Clock::time_point deadline);

// Disconnects and deletes *conn, if any. Its queue pair goes first: the
// device then writes into no memory registered for it, which may go next.
void close_connection(rpma_conn **conn);

}

#endif
