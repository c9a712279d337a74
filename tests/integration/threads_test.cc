// SPDX-License-Identifier: BSD-3-Clause
// Eight connections at once, each client and each server side in a thread
// of its own: every client writes its slice of the server's region and
// then sends its number; the server side checks the slice and echoes.

#include <cstring>
#include <mutex>
#include <thread>

#include "check.hh"
#include "env.hh"
#include "pair.hh"
#include "pattern.hh"
#include "wait.hh"

using namespace it;

namespace {

constexpr int N = 8;
constexpr size_t SLICE = 4096;
constexpr size_t MSG = 16;

// threads whose failures (exceptions) become the test's failure
class Threads {
public:
	template <typename Fn>
	void spawn(Fn fn)
	{
		threads_.emplace_back([this, fn] {
			try {
				fn();
			} catch (const std::exception &e) {
				std::lock_guard<std::mutex> lock(mutex_);
				errors_ += std::string(e.what()) + "\n";
			}
		});
	}

	// every wait in the threads is bounded, so this join is too
	~Threads() { join(); }

	void join_and_check()
	{
		join();
		CPPUNIT_ASSERT_MESSAGE(errors_, errors_.empty());
	}

private:
	void join()
	{
		for (auto &t : threads_)
			if (t.joinable())
				t.join();
	}

	std::vector<std::thread> threads_;
	std::mutex mutex_;
	std::string errors_;
};

struct Server {
	Peer peer = new_peer(RPMA_UTIL_IBV_CONTEXT_LOCAL);
	std::vector<unsigned char> region = std::vector<unsigned char>(N * SLICE);
	MrLocal region_mr = reg(peer.get(), region.data(), region.size(),
		RPMA_MR_USAGE_WRITE_DST);
	// per connection: a receive slot, then a send slot
	std::vector<unsigned char> msgs = std::vector<unsigned char>(2 * N * MSG);
	MrLocal msgs_mr = reg(peer.get(), msgs.data(), msgs.size(),
		RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV);
};

void client(rpma_peer *peer, const std::string &port, int id)
{
	rpma_conn_req *req = nullptr;
	RPMA_OK(rpma_conn_req_new(peer, test_ip(), port.c_str(), nullptr,
		&req));
	rpma_conn *raw = nullptr;
	RPMA_OK(rpma_conn_req_connect(&req, nullptr, &raw));
	Conn conn(raw);
	expect_event(conn.get(), RPMA_CONN_ESTABLISHED);
	rpma_conn_private_data pd{};
	RPMA_OK(rpma_conn_get_private_data(conn.get(), &pd));
	rpma_mr_remote *dst_raw = nullptr;
	RPMA_OK(rpma_mr_remote_from_descriptor(pd.ptr, pd.len, &dst_raw));
	MrRemote dst(dst_raw);

	// the slice, then a receive slot, then the message
	std::vector<unsigned char> mem = pattern(SLICE + 2 * MSG, id);
	std::snprintf((char *)&mem[SLICE + MSG], MSG, "%d", id);
	MrLocal mr = reg(peer, mem.data(), mem.size(),
		RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_SEND |
		RPMA_MR_USAGE_RECV);
	RPMA_OK(rpma_write(conn.get(), dst.get(), id * SLICE, mr.get(), 0,
		SLICE, RPMA_F_COMPLETION_ON_ERROR, nullptr));
	RPMA_OK(rpma_recv(conn.get(), mr.get(), SLICE, MSG, nullptr));
	RPMA_OK(rpma_send(conn.get(), mr.get(), SLICE + MSG, MSG,
		RPMA_F_COMPLETION_ALWAYS, nullptr));
	rpma_cq *cq = cq_of(conn.get());
	// the echo may complete before the send does
	ibv_wc a = next_wc(cq), b = next_wc(cq);
	CPPUNIT_ASSERT(a.status == IBV_WC_SUCCESS && b.status == IBV_WC_SUCCESS);
	CPPUNIT_ASSERT((a.opcode == IBV_WC_SEND) != (b.opcode == IBV_WC_SEND));
	CPPUNIT_ASSERT(std::memcmp(&mem[SLICE], &mem[SLICE + MSG], MSG) == 0);

	RPMA_OK(rpma_conn_disconnect(conn.get()));
	expect_event(conn.get(), RPMA_CONN_CLOSED);
}

// serves one accepted connection whose receive is already posted in slot i
void serve(Server &s, rpma_conn *conn, int i)
{
	Conn own(conn);
	expect_event(conn, RPMA_CONN_ESTABLISHED);
	rpma_cq *cq = cq_of(conn);
	ibv_wc wc = expect_wc(cq, IBV_WC_RECV);
	unsigned char *msg = &s.msgs[2 * i * MSG];
	int id = std::atoi((char *)msg);
	CPPUNIT_ASSERT(id >= 0 && id < N && wc.byte_len == MSG);
	// the write came before the message on the same connection
	auto expected = pattern(SLICE, id);
	CPPUNIT_ASSERT_MESSAGE("slice " + std::to_string(id) + " is wrong",
		std::memcmp(&s.region[id * SLICE], expected.data(), SLICE) == 0);
	std::memcpy(msg + MSG, msg, MSG);
	RPMA_OK(rpma_send(conn, s.msgs_mr.get(), (2 * i + 1) * MSG, MSG,
		RPMA_F_COMPLETION_ALWAYS, nullptr));
	expect_wc(cq, IBV_WC_SEND);
	expect_event(conn, RPMA_CONN_CLOSED);
	RPMA_OK(rpma_conn_disconnect(conn));
}

} // namespace

class ThreadsTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(ThreadsTest);
	CPPUNIT_TEST(eight_connections_eight_threads);
	CPPUNIT_TEST_SUITE_END();

public:
	void eight_connections_eight_threads()
	{
		Server s;
		std::string port = next_port();
		rpma_ep *ep_raw = nullptr;
		RPMA_OK(rpma_ep_listen(s.peer.get(), test_ip(), port.c_str(),
			&ep_raw));
		Ep ep(ep_raw);
		unsigned char desc[21];
		RPMA_OK(rpma_mr_get_descriptor(s.region_mr.get(), desc));
		// many threads may share one peer
		Peer client_peer = new_peer(RPMA_UTIL_IBV_CONTEXT_REMOTE);

		// declared last: joined before anything the threads use goes
		Threads threads;
		for (int id = 0; id < N; id++)
			threads.spawn([&client_peer, &port, id] {
				client(client_peer.get(), port, id);
			});
		// only this thread takes requests from the endpoint
		for (int i = 0; i < N; i++) {
			ConnReq req(next_conn_req(ep.get(), nullptr));
			RPMA_OK(rpma_conn_req_recv(req.get(), s.msgs_mr.get(),
				2 * i * MSG, MSG, nullptr));
			rpma_conn_private_data pd{desc, sizeof(desc)};
			rpma_conn *conn = nullptr;
			rpma_conn_req *raw = req.release();
			RPMA_OK(rpma_conn_req_connect(&raw, &pd, &conn));
			threads.spawn([&s, conn, i] { serve(s, conn, i); });
		}
		threads.join_and_check();
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ThreadsTest);
