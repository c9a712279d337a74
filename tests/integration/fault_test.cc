// SPDX-License-Identifier: BSD-3-Clause
// Faults in the middle of a transfer: the peer process dies, or the link
// goes down. The survivor must learn of it (an error completion or a
// LOST/CLOSED/REJECTED event) within a bound, and never hang; the time it took is
// printed. Also: a peer restarted on the same port serves a new client.
// The link test (DisruptiveFaultTest) runs only when asked for by name and
// RPMA_TEST_NETDEV names a link it may take down (the test VM's).

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <fcntl.h>
#include <iostream>
#include <string>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.hh"
#include "env.hh"
#include "pair.hh"
#include "peer_server.hh"
#include "wait.hh"

using namespace it;

namespace {

// the peer server child; killed and reaped however the test ends
class Child {
public:
	explicit Child(const std::string &port)
	{
		int fds[2];
		CPPUNIT_ASSERT(pipe2(fds, O_CLOEXEC) == 0);
		pid_ = fork();
		CPPUNIT_ASSERT(pid_ >= 0);
		if (pid_ == 0) {
			// a fresh process: verbs resources do not survive fork
			fcntl(fds[1], F_SETFD, 0);
			std::string fd = std::to_string(fds[1]);
			execl(self_exe.c_str(), "peer-server", "--peer-server", port.c_str(),
			      fd.c_str(), (char *)nullptr);
			_exit(127);
		}
		close(fds[1]);
		ready_fd_ = fds[0];
	}

	~Child()
	{
		kill_now();
		close(ready_fd_);
	}

	void wait_listening()
	{
		wait_readable(ready_fd_, Deadline(), "the peer to listen");
		char c = 0;
		CPPUNIT_ASSERT_MESSAGE("the peer died before listening",
				       read(ready_fd_, &c, 1) == 1);
	}

	void kill_now()
	{
		if (pid_ <= 0)
			return;
		kill(pid_, SIGKILL);
		while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR)
			;
		pid_ = -1;
	}

private:
	pid_t pid_ = -1;
	int ready_fd_ = -1;
};

constexpr size_t CHUNK = 64 * 1024;
constexpr int IN_FLIGHT = 4;
constexpr int BEFORE_FAULT = 8;
// rxe retries a dead peer 7 times before it gives up
constexpr int DETECT_MS = 60000;

// keeps IN_FLIGHT signalled writes going until something reports failure
class Writer {
public:
	Writer(rpma_conn *conn, rpma_mr_remote *dst, rpma_mr_local *src)
		: conn_(conn), dst_(dst), src_(src), cq_(cq_of(conn))
	{
	}

	// posts what fits; false once posting itself fails (QP in error)
	bool refill()
	{
		while (posting_ && in_flight_ < IN_FLIGHT) {
			size_t off = (posted_++ % (PEER_REGION_SIZE / CHUNK)) * CHUNK;
			post_error_ = rpma_write(conn_, dst_, off, src_, 0, CHUNK,
						 RPMA_F_COMPLETION_ALWAYS, nullptr);
			if (post_error_) {
				posting_ = false;
				break;
			}
			in_flight_++;
		}
		return posting_;
	}

	// takes the completions there are; true if one of them failed
	bool drain()
	{
		ibv_wc wc{};
		int ret;
		while ((ret = rpma_cq_get_wc(cq_, 1, &wc, nullptr)) == 0) {
			in_flight_--;
			if (wc.status != IBV_WC_SUCCESS) {
				std::cout << "  noticed: a write failed with "
					  << ibv_wc_status_str(wc.status) << std::endl;
				return true;
			}
			done_++;
		}
		RPMA_EXPECT(RPMA_E_NO_COMPLETION, ret);
		return false;
	}

	rpma_cq *cq() const { return cq_; }
	int done() const { return done_; }
	int in_flight() const { return in_flight_; }
	int post_error() const { return post_error_; }

private:
	rpma_conn *conn_;
	rpma_mr_remote *dst_;
	rpma_mr_local *src_;
	rpma_cq *cq_;
	int in_flight_ = 0, done_ = 0, post_error_ = 0;
	size_t posted_ = 0;
	bool posting_ = true;
};

// A connection to a peer process on port, with the peer's region.
struct ToPeer {
	Peer peer = new_peer(RPMA_UTIL_IBV_CONTEXT_REMOTE);
	Conn conn;
	MrRemote dst;
	std::vector<unsigned char> mem = std::vector<unsigned char>(CHUNK, 0x5a);
	MrLocal src = reg(peer.get(), mem.data(), CHUNK, RPMA_MR_USAGE_WRITE_SRC);

	explicit ToPeer(const std::string &port)
	{
		rpma_conn_req *req = nullptr;
		RPMA_OK(rpma_conn_req_new(peer.get(), test_ip(), port.c_str(), nullptr, &req));
		rpma_conn *raw = nullptr;
		RPMA_OK(rpma_conn_req_connect(&req, nullptr, &raw));
		conn.reset(raw);
		expect_event(conn.get(), RPMA_CONN_ESTABLISHED);
		rpma_conn_private_data pd{};
		RPMA_OK(rpma_conn_get_private_data(conn.get(), &pd));
		rpma_mr_remote *dst_raw = nullptr;
		RPMA_OK(rpma_mr_remote_from_descriptor(pd.ptr, pd.len, &dst_raw));
		dst.reset(dst_raw);
	}
};

// Writes to the peer until BEFORE_FAULT writes are done, runs fault(), and
// goes on until a failed write or a LOST/CLOSED/REJECTED event says so;
// prints and returns how long that took after the fault, in ms.
long long writes_notice(ToPeer &to, const std::function<void()> &fault)
{
	Writer w(to.conn.get(), to.dst.get(), to.src.get());
	int cq_fd = -1, event_fd = -1;
	RPMA_OK(rpma_cq_get_fd(w.cq(), &cq_fd));
	RPMA_OK(rpma_conn_get_event_fd(to.conn.get(), &event_fd));

	Deadline deadline(DETECT_MS);
	bool faulted = false, noticed = false;
	std::chrono::steady_clock::time_point fault_time;
	while (!noticed) {
		if (!faulted && w.done() >= BEFORE_FAULT) {
			fault();
			faulted = true;
			fault_time = std::chrono::steady_clock::now();
		}
		// drain before refilling: completions that all came in before
		// rpma_cq_wait() re-armed the CQ raise no event, so waiting with
		// none of our writes left outstanding would never wake up
		if (w.drain()) {
			CPPUNIT_ASSERT_MESSAGE("a write failed before the fault", faulted);
			break;
		}
		w.refill();
		auto ready = poll_fds({cq_fd, event_fd}, deadline);
		if (ready.empty())
			CPPUNIT_FAIL(
				std::string(
					faulted ? "the fault went unnoticed"
						: "the writes before the fault did not complete") +
				" (" + std::to_string(w.done()) + " done, " +
				std::to_string(w.in_flight()) +
				" in flight, posting: " + rpma_err_2str(w.post_error()) + ")");
		for (size_t i : ready) {
			if (i == 0) {
				RPMA_OK(rpma_cq_wait(w.cq()));
				continue;
			}
			rpma_conn_event ev = RPMA_CONN_UNDEFINED;
			RPMA_OK(rpma_conn_next_event(to.conn.get(), &ev));
			// a peer killed before its CM saw our RTU rejects the
			// connection (a REJ, not a DREQ): it is gone all the same
			CPPUNIT_ASSERT_MESSAGE(rpma_utils_conn_event_2str(ev),
					       ev == RPMA_CONN_LOST || ev == RPMA_CONN_CLOSED ||
						       ev == RPMA_CONN_REJECTED);
			CPPUNIT_ASSERT_MESSAGE("the connection ended before the fault", faulted);
			std::cout << "  noticed: " << rpma_utils_conn_event_2str(ev) << std::endl;
			noticed = true;
		}
	}
	CPPUNIT_ASSERT(faulted && w.done() >= BEFORE_FAULT);
	const long long ms = std::chrono::duration_cast<std::chrono::milliseconds>(
				     std::chrono::steady_clock::now() - fault_time)
				     .count();
	std::cout << "  noticed " << ms << " ms after the fault" << std::endl;
	return ms;
}

// `ip link set DEV up|down`
void set_link(const char *dev, const char *state)
{
	const std::string cmd = std::string("ip link set ") + dev + " " + state;
	CPPUNIT_ASSERT_EQUAL_MESSAGE(cmd, 0, std::system(cmd.c_str()));
}

} // namespace

class FaultTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(FaultTest);
	CPPUNIT_TEST(peer_killed_mid_transfer);
	CPPUNIT_TEST(peer_restarted_serves_new_client);
	CPPUNIT_TEST_SUITE_END();

public:
	void peer_killed_mid_transfer()
	{
		std::string port = next_port();
		Child child(port);
		child.wait_listening();
		ToPeer to(port);
		writes_notice(to, [&child] { child.kill_now(); });
	}

	// The server process dies and a new one listens on the same port: a
	// new client connects to it and writes, as if nothing had happened.
	void peer_restarted_serves_new_client()
	{
		std::string port = next_port();
		{
			Child first(port);
			first.wait_listening();
			ToPeer to(port);
			writes_notice(to, [&first] { first.kill_now(); });
		}
		Child second(port);
		second.wait_listening();
		ToPeer to(port);
		Writer w(to.conn.get(), to.dst.get(), to.src.get());
		Deadline deadline;
		while (w.done() < BEFORE_FAULT) {
			// drain, then refill: see writes_notice()
			CPPUNIT_ASSERT_MESSAGE("a write to the new peer failed", !w.drain());
			if (w.done() >= BEFORE_FAULT)
				break;
			CPPUNIT_ASSERT_MESSAGE("posting to the new peer failed", w.refill());
			wait_readable(cq_fd_of(w.cq()), deadline, "a completion");
			RPMA_OK(rpma_cq_wait(w.cq()));
		}
	}

private:
	static int cq_fd_of(rpma_cq *cq)
	{
		int fd = -1;
		RPMA_OK(rpma_cq_get_fd(cq, &fd));
		return fd;
	}
};

// Takes a network link down: never run unless asked for by name.
class DisruptiveFaultTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(DisruptiveFaultTest);
	CPPUNIT_TEST(link_down_mid_transfer);
	CPPUNIT_TEST_SUITE_END();

public:
	void link_down_mid_transfer()
	{
		const char *dev = std::getenv("RPMA_TEST_NETDEV");
		CPPUNIT_ASSERT_MESSAGE("RPMA_TEST_NETDEV names no link to take down", dev && *dev);
		std::string port = next_port();
		Child child(port);
		child.wait_listening();
		ToPeer to(port);
		bool down = false;
		try {
			writes_notice(to, [&] {
				set_link(dev, "down");
				down = true;
			});
		} catch (...) {
			if (down)
				set_link(dev, "up");
			throw;
		}
		set_link(dev, "up");
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(FaultTest);
CPPUNIT_TEST_SUITE_REGISTRATION(DisruptiveFaultTest);
