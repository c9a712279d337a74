// SPDX-License-Identifier: BSD-3-Clause
// Bounded waiting for connection events and completions: every wait polls
// the fd librpma hands out before making a blocking call, so a test that
// would hang fails instead.

#ifndef RPMA_TESTS_INTEGRATION_WAIT_HH
#define RPMA_TESTS_INTEGRATION_WAIT_HH

#include <chrono>
#include <vector>

#include <librpma.h>

#include "env.hh"

namespace it {

class Deadline {
public:
	explicit Deadline(int ms = TIMEOUT_MS)
		: end_(std::chrono::steady_clock::now() + std::chrono::milliseconds(ms))
	{
	}
	int left_ms() const;

private:
	std::chrono::steady_clock::time_point end_;
};

// indices of the readable fds; empty once the deadline has passed
std::vector<size_t> poll_fds(const std::vector<int> &fds, const Deadline &deadline);

// waits until fd is readable; the test fails on timeout
void wait_readable(int fd, const Deadline &deadline, const char *what);

// the next connection event (bounded)
rpma_conn_event next_event(rpma_conn *conn);
void expect_event(rpma_conn *conn, rpma_conn_event expected);

// the next incoming connection request (bounded)
rpma_conn_req *next_conn_req(rpma_ep *ep, const rpma_conn_cfg *cfg);

// the next completion of a CQ with its own channel (bounded)
ibv_wc next_wc(rpma_cq *cq);
// ... which must have succeeded with the given opcode
ibv_wc expect_wc(rpma_cq *cq, ibv_wc_opcode opcode);

// the CQ must stay empty for ms milliseconds
void expect_no_wc(rpma_cq *cq, int ms);

} // namespace it

#endif
