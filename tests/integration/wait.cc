// SPDX-License-Identifier: BSD-3-Clause

#include "wait.hh"

#include <cerrno>
#include <poll.h>
#include <string>
#include <thread>

#include "check.hh"

namespace it {

int Deadline::left_ms() const
{
	auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
			    end_ - std::chrono::steady_clock::now())
			    .count();
	return left > 0 ? (int)left : 0;
}

std::vector<size_t> poll_fds(const std::vector<int> &fds, const Deadline &deadline)
{
	std::vector<pollfd> pfds;
	for (int fd : fds)
		pfds.push_back({fd, POLLIN, 0});
	std::vector<size_t> ready;
	for (;;) {
		int n = poll(pfds.data(), pfds.size(), deadline.left_ms());
		if (n < 0 && errno == EINTR)
			continue;
		CPPUNIT_ASSERT_MESSAGE("poll() failed", n >= 0);
		for (size_t i = 0; i < pfds.size(); i++)
			if (pfds[i].revents)
				ready.push_back(i);
		return ready;
	}
}

void wait_readable(int fd, const Deadline &deadline, const char *what)
{
	CPPUNIT_ASSERT_MESSAGE(std::string("timed out waiting for ") + what,
			       !poll_fds({fd}, deadline).empty());
}

rpma_conn_event next_event(rpma_conn *conn)
{
	int fd = -1;
	RPMA_OK(rpma_conn_get_event_fd(conn, &fd));
	wait_readable(fd, Deadline(), "a connection event");
	rpma_conn_event event = RPMA_CONN_UNDEFINED;
	RPMA_OK(rpma_conn_next_event(conn, &event));
	return event;
}

void expect_event(rpma_conn *conn, rpma_conn_event expected)
{
	CPPUNIT_ASSERT_EQUAL(std::string(rpma_utils_conn_event_2str(expected)),
			     std::string(rpma_utils_conn_event_2str(next_event(conn))));
}

rpma_conn_req *next_conn_req(rpma_ep *ep, const rpma_conn_cfg *cfg)
{
	int fd = -1;
	RPMA_OK(rpma_ep_get_fd(ep, &fd));
	wait_readable(fd, Deadline(), "a connection request");
	rpma_conn_req *req = nullptr;
	RPMA_OK(rpma_ep_next_conn_req(ep, cfg, &req));
	CPPUNIT_ASSERT(req != nullptr);
	return req;
}

// The CQ is armed: polling before waiting cannot miss a completion, since
// one landing after the poll still raises an event.
ibv_wc next_wc(rpma_cq *cq)
{
	int fd = -1;
	RPMA_OK(rpma_cq_get_fd(cq, &fd));
	Deadline deadline;
	for (;;) {
		ibv_wc wc{};
		int ret = rpma_cq_get_wc(cq, 1, &wc, nullptr);
		if (ret == 0)
			return wc;
		RPMA_EXPECT(RPMA_E_NO_COMPLETION, ret);
		wait_readable(fd, deadline, "a completion");
		RPMA_OK(rpma_cq_wait(cq));
	}
}

ibv_wc expect_wc(rpma_cq *cq, ibv_wc_opcode opcode)
{
	ibv_wc wc = next_wc(cq);
	CPPUNIT_ASSERT_EQUAL_MESSAGE(ibv_wc_status_str(wc.status), (int)IBV_WC_SUCCESS,
				     (int)wc.status);
	CPPUNIT_ASSERT_EQUAL((int)opcode, (int)wc.opcode);
	return wc;
}

// Polls rather than waits: a CQ event left over from a completion that was
// polled without waiting would make its fd readable with nothing to get.
void expect_no_wc(rpma_cq *cq, int ms)
{
	Deadline deadline(ms);
	do {
		ibv_wc wc{};
		RPMA_EXPECT(RPMA_E_NO_COMPLETION, rpma_cq_get_wc(cq, 1, &wc, nullptr));
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	} while (deadline.left_ms() > 0);
}

} // namespace it
