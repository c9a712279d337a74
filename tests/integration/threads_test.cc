// SPDX-License-Identifier: BSD-3-Clause
// The claims of docs/thread-safety.md, each run with real threads:
// - eight connections at once, each client and each server side in a thread
//   of its own, sharing peers: every client writes its slice of the server's
//   region and then sends its number; the server side checks and echoes;
// - one connection, operations posted from four threads while another
//   thread takes their completions;
// - memory registered and deregistered on one peer from eight threads;
// - one connection configuration read and changed from several threads.
// Run under helgrind/drd by `make check-helgrind` / `check-drd`.

#include <algorithm>
#include <atomic>
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

constexpr int POSTERS = 4;
constexpr int WRITES = 32; // per poster
constexpr size_t WRITE_LEN = 512;

ConnCfg queues_for_posters()
{
	rpma_conn_cfg *cfg = nullptr;
	RPMA_OK(rpma_conn_cfg_new(&cfg));
	ConnCfg own(cfg);
	RPMA_OK(rpma_conn_cfg_set_sq_size(cfg, POSTERS * WRITES));
	RPMA_OK(rpma_conn_cfg_set_cq_size(cfg, POSTERS * WRITES));
	return own;
}

} // namespace

class ThreadsTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(ThreadsTest);
	CPPUNIT_TEST(eight_connections_eight_threads);
	CPPUNIT_TEST(posting_threads_and_a_polling_thread);
	CPPUNIT_TEST(memory_registration_from_threads);
	CPPUNIT_TEST(configuration_from_threads);
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

	// Writes posted on one connection from four threads at once, while
	// the test's thread takes every completion: each arrives once, with
	// its context, and the server's region ends up as the source.
	void posting_threads_and_a_polling_thread()
	{
		ConnCfg cfg = queues_for_posters();
		PairOptions opts;
		opts.client_cfg = cfg.get();
		Pair pair = connect_pair(opts);
		const size_t size = POSTERS * WRITES * WRITE_LEN;
		std::vector<unsigned char> region(size), src = pattern(size, 41);
		MrLocal dst_mr = reg(pair.server_peer.get(), region.data(), size,
			RPMA_MR_USAGE_WRITE_DST);
		MrRemote dst = remote_of(dst_mr.get());
		MrLocal src_mr = reg(pair.client_peer.get(), src.data(), size,
			RPMA_MR_USAGE_WRITE_SRC);
		rpma_cq *cq = cq_of(pair.client.get());

		std::vector<int> seen(POSTERS * WRITES);
		{
			Threads posters;
			for (int t = 0; t < POSTERS; t++)
				posters.spawn([&, t] {
					for (int i = 0; i < WRITES; i++) {
						const size_t k = t * WRITES + i;
						RPMA_OK(rpma_write(pair.client.get(), dst.get(),
							k * WRITE_LEN, src_mr.get(), k * WRITE_LEN,
							WRITE_LEN, RPMA_F_COMPLETION_ALWAYS,
							reinterpret_cast<const void *>(k + 1)));
					}
				});
			for (size_t n = 0; n < seen.size(); n++) {
				ibv_wc wc = next_wc(cq);
				CPPUNIT_ASSERT_EQUAL(IBV_WC_SUCCESS, wc.status);
				CPPUNIT_ASSERT(wc.wr_id >= 1 && wc.wr_id <= seen.size());
				seen[wc.wr_id - 1]++;
			}
			posters.join_and_check();
		}
		CPPUNIT_ASSERT(std::count(seen.begin(), seen.end(), 1) == (long)seen.size());
		CPPUNIT_ASSERT(region == src);
		close_pair(pair);
	}

	// One peer, eight threads, each registering and deregistering its own
	// buffer many times and decoding its descriptor as a remote peer would.
	void memory_registration_from_threads()
	{
		Peer peer = new_peer(RPMA_UTIL_IBV_CONTEXT_LOCAL);
		Threads threads;
		std::atomic<int> registrations{0};
		for (int t = 0; t < N; t++)
			threads.spawn([&, t] {
				std::vector<unsigned char> buf(4096 * (t + 1));
				for (int i = 0; i < 50; i++) {
					MrLocal mr = reg(peer.get(), buf.data(), buf.size(),
						RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST);
					MrRemote remote = remote_of(mr.get());
					size_t size = 0;
					RPMA_OK(rpma_mr_remote_get_size(remote.get(), &size));
					CPPUNIT_ASSERT_EQUAL(buf.size(), size);
					registrations++;
				}
			});
		threads.join_and_check();
		CPPUNIT_ASSERT_EQUAL(N * 50, registrations.load());
	}

	// Setters and getters of one configuration race freely; every value
	// read is one that some thread set.
	void configuration_from_threads()
	{
		rpma_conn_cfg *raw = nullptr;
		RPMA_OK(rpma_conn_cfg_new(&raw));
		ConnCfg cfg(raw);
		Threads threads;
		for (int t = 0; t < 4; t++)
			threads.spawn([&, t] {
				const uint32_t mine = 100 + t;
				for (int i = 0; i < 1000; i++) {
					RPMA_OK(rpma_conn_cfg_set_sq_size(cfg.get(), mine));
					RPMA_OK(rpma_conn_cfg_set_timeout(cfg.get(), (int)mine));
					uint32_t sq = 0;
					int timeout = 0;
					RPMA_OK(rpma_conn_cfg_get_sq_size(cfg.get(), &sq));
					RPMA_OK(rpma_conn_cfg_get_timeout(cfg.get(), &timeout));
					CPPUNIT_ASSERT(sq >= 100 && sq < 104);
					CPPUNIT_ASSERT(timeout >= 100 && timeout < 104);
				}
			});
		threads.join_and_check();
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ThreadsTest);
