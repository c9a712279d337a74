// SPDX-License-Identifier: BSD-3-Clause
// The claims of docs/thread-safety.md, each run with real threads:
// - eight connections at once, each client and each server side in a thread
//   of its own, sharing peers: every client writes its slice of the server's
//   region and then sends its number; the server side checks and echoes;
// - one connection, operations posted from four threads while another
//   thread takes their completions;
// - memory registered and deregistered on one peer from eight threads;
// - addresses resolved from eight threads at once (rpma_utils_get_ibv_context
//   and rpma_conn_req_new on one peer), first thing in the process when this
//   suite runs alone, as make check-helgrind/check-drd run it;
// - configurations read and changed from several threads, and connection
//   requests made from a configuration another thread is changing;
// - the fio engines' link watch (engine/link.cc) beside the library's
//   address resolution, and requests taken from an endpoint while other
//   threads make and delete requests and connections: what the jobs of one
//   fio (numjobs=, thread=1) do at once as they start and end.
// Run under helgrind/drd by `make check-helgrind` / `check-drd`.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <cstring>
#include <mutex>
#include <thread>

#include "../../engine/link.hh"
#include "check.hh"
#include "env.hh"
#include "pair.hh"
#include "pattern.hh"
#include "platform.hh"
#include "wait.hh"

using namespace it;

namespace {

constexpr int N = 8;
constexpr size_t SLICE = 4096;
constexpr size_t MSG = 16;

// threads whose failures (exceptions) become the test's failure
class Threads {
public:
	template <typename Fn> void spawn(Fn fn)
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
	MrLocal region_mr = reg(peer.get(), region.data(), region.size(), RPMA_MR_USAGE_WRITE_DST);
	// per connection: a receive slot, then a send slot
	std::vector<unsigned char> msgs = std::vector<unsigned char>(2 * N * MSG);
	MrLocal msgs_mr = reg(peer.get(), msgs.data(), msgs.size(),
			      RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV);
};

void client(rpma_peer *peer, const std::string &port, int id)
{
	rpma_conn_req *req = nullptr;
	RPMA_OK(rpma_conn_req_new(peer, test_ip(), port.c_str(), nullptr, &req));
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
			 RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV);
	RPMA_OK(rpma_write(conn.get(), dst.get(), id * SLICE, mr.get(), 0, SLICE,
			   RPMA_F_COMPLETION_ON_ERROR, nullptr));
	RPMA_OK(rpma_recv(conn.get(), mr.get(), SLICE, MSG, nullptr));
	RPMA_OK(rpma_send(conn.get(), mr.get(), SLICE + MSG, MSG, RPMA_F_COMPLETION_ALWAYS,
			  nullptr));
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
	RPMA_OK(rpma_send(conn, s.msgs_mr.get(), (2 * i + 1) * MSG, MSG, RPMA_F_COMPLETION_ALWAYS,
			  nullptr));
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
	CPPUNIT_TEST(address_resolution_from_threads);
	CPPUNIT_TEST(eight_connections_eight_threads);
	CPPUNIT_TEST(posting_threads_and_a_polling_thread);
	CPPUNIT_TEST(memory_registration_from_threads);
	CPPUNIT_TEST(configuration_from_threads);
	CPPUNIT_TEST(request_from_a_changing_configuration);
	CPPUNIT_TEST(link_watch_beside_address_resolution);
	CPPUNIT_TEST(incoming_requests_beside_deletions);
	CPPUNIT_TEST_SUITE_END();

public:
	// docs/thread-safety.md: rpma_utils_get_ibv_context, and
	// rpma_conn_req_new on one peer, from several threads at once. The
	// threads start together and resolve the test address both ways before
	// anything else (the peer is made after they end), so that librdmacm's first
	// use in the process, when this suite runs alone (make check-helgrind),
	// is a concurrent one. Then each makes (and deletes) requests to a port
	// nobody listens on, which needs only the address and the route.
	void address_resolution_from_threads()
	{
		std::atomic<int> ready{0}, requests{0};
		Threads resolving;
		for (int t = 0; t < N; t++)
			resolving.spawn([&] {
				ready++;
				while (ready.load() < N)
					std::this_thread::yield();
				for (int i = 0; i < 4; i++) {
					ibv_context *local = nullptr, *remote = nullptr;
					RPMA_OK(rpma_utils_get_ibv_context(
						test_ip(), RPMA_UTIL_IBV_CONTEXT_LOCAL, &local));
					RPMA_OK(rpma_utils_get_ibv_context(
						test_ip(), RPMA_UTIL_IBV_CONTEXT_REMOTE, &remote));
					CPPUNIT_ASSERT(local && local == remote);
				}
			});
		resolving.join_and_check();

		Peer peer = new_peer(RPMA_UTIL_IBV_CONTEXT_REMOTE);
		const std::string port = next_port();
		Threads requesting;
		for (int t = 0; t < N; t++)
			requesting.spawn([&] {
				for (int i = 0; i < 4; i++) {
					rpma_conn_req *req = nullptr;
					RPMA_OK(rpma_conn_req_new(peer.get(), test_ip(),
								  port.c_str(), nullptr, &req));
					RPMA_OK(rpma_conn_req_delete(&req));
					requests++;
				}
			});
		requesting.join_and_check();
		CPPUNIT_ASSERT_EQUAL(N * 4, requests.load());
	}

	void eight_connections_eight_threads()
	{
		Server s;
		std::string port = next_port();
		rpma_ep *ep_raw = nullptr;
		RPMA_OK(rpma_ep_listen(s.peer.get(), test_ip(), port.c_str(), &ep_raw));
		Ep ep(ep_raw);
		unsigned char desc[21];
		RPMA_OK(rpma_mr_get_descriptor(s.region_mr.get(), desc));
		// many threads may share one peer
		Peer client_peer = new_peer(RPMA_UTIL_IBV_CONTEXT_REMOTE);

		// declared last: joined before anything the threads use goes
		Threads threads;
		for (int id = 0; id < N; id++)
			threads.spawn(
				[&client_peer, &port, id] { client(client_peer.get(), port, id); });
		// only this thread takes requests from the endpoint
		for (int i = 0; i < N; i++) {
			ConnReq req(next_conn_req(ep.get(), nullptr));
			RPMA_OK(rpma_conn_req_recv(req.get(), s.msgs_mr.get(), 2 * i * MSG, MSG,
						   nullptr));
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
								   k * WRITE_LEN, src_mr.get(),
								   k * WRITE_LEN, WRITE_LEN,
								   RPMA_F_COMPLETION_ALWAYS,
								   reinterpret_cast<const void *>(
									   k + 1)));
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
							 RPMA_MR_USAGE_READ_SRC |
								 RPMA_MR_USAGE_WRITE_DST);
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

	// docs/thread-safety.md: getters and setters of one configuration
	// from several threads at once; a getter returns a value some setter
	// stored (or the initial one), never another. Writers store values of
	// their own, distinct from everyone else's, into every field of a conn,
	// an SRQ and a peer configuration, while readers check every value they
	// get against the set of all values stored.
	void configuration_from_threads()
	{
		rpma_conn_cfg *conn_raw = nullptr;
		RPMA_OK(rpma_conn_cfg_new(&conn_raw));
		ConnCfg conn_cfg(conn_raw);
		rpma_srq_cfg *srq_raw = nullptr;
		RPMA_OK(rpma_srq_cfg_new(&srq_raw));
		SrqCfg srq_cfg(srq_raw);
		rpma_peer_cfg *peer_raw = nullptr;
		RPMA_OK(rpma_peer_cfg_new(&peer_raw));
		PeerCfg peer_cfg(peer_raw);
		// writer t stores TAG | t << 16 | i, i < ROUNDS
		constexpr int WRITERS = 2, READERS = 2, ROUNDS = 20000;
		constexpr uint32_t TAG = 0x5a000000;
		auto stored = [](uint32_t v, uint32_t initial) {
			return v == initial ||
			       ((v & 0xff000000) == TAG && ((v >> 16) & 0xff) < WRITERS &&
				(v & 0xffff) < ROUNDS);
		};
		using SetU = int (*)(rpma_conn_cfg *, uint32_t);
		using GetU = int (*)(const rpma_conn_cfg *, uint32_t *);
		const struct {
			SetU set;
			GetU get;
			uint32_t initial;
		} sizes[] = {
			{rpma_conn_cfg_set_cq_size, rpma_conn_cfg_get_cq_size, 10},
			{rpma_conn_cfg_set_rcq_size, rpma_conn_cfg_get_rcq_size, 0},
			{rpma_conn_cfg_set_sq_size, rpma_conn_cfg_get_sq_size, 10},
			{rpma_conn_cfg_set_rq_size, rpma_conn_cfg_get_rq_size, 10},
		};
		std::atomic<int> writing{WRITERS};
		std::atomic<long> reads{0};
		// bounded in time too: valgrind's race detectors run this 100x slower
		const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
		Threads threads;
		for (int t = 0; t < WRITERS; t++)
			threads.spawn([&, t] {
				for (int i = 0;
				     i < ROUNDS && std::chrono::steady_clock::now() < deadline;
				     i++) {
					const uint32_t mine = TAG | uint32_t(t) << 16 | uint32_t(i);
					for (const auto &f : sizes)
						RPMA_OK(f.set(conn_cfg.get(), mine));
					// a timeout is an int: the tag keeps it positive
					RPMA_OK(rpma_conn_cfg_set_timeout(conn_cfg.get(),
									  int(mine)));
					RPMA_OK(rpma_conn_cfg_set_compl_channel(conn_cfg.get(),
										(i + t) % 2));
					RPMA_OK(rpma_srq_cfg_set_rq_size(srq_cfg.get(), mine));
					RPMA_OK(rpma_srq_cfg_set_rcq_size(srq_cfg.get(), mine));
					RPMA_OK(rpma_peer_cfg_set_direct_write_to_pmem(
						peer_cfg.get(), (i + t) % 2));
				}
				writing--;
			});
		for (int r = 0; r < READERS; r++)
			threads.spawn([&] {
				while (writing.load() > 0) {
					for (const auto &f : sizes) {
						uint32_t v = 0;
						RPMA_OK(f.get(conn_cfg.get(), &v));
						CPPUNIT_ASSERT_MESSAGE(std::to_string(v),
								       stored(v, f.initial));
					}
					int timeout = 0;
					RPMA_OK(rpma_conn_cfg_get_timeout(conn_cfg.get(),
									  &timeout));
					CPPUNIT_ASSERT_MESSAGE(std::to_string(timeout),
							       stored(uint32_t(timeout),
								      RPMA_DEFAULT_TIMEOUT_MS));
					uint32_t rq = 0, rcq = 0;
					RPMA_OK(rpma_srq_cfg_get_rq_size(srq_cfg.get(), &rq));
					RPMA_OK(rpma_srq_cfg_get_rcq_size(srq_cfg.get(), &rcq));
					CPPUNIT_ASSERT(stored(rq, 20) && stored(rcq, 20));
					bool shared = false, direct = false;
					RPMA_OK(rpma_conn_cfg_get_compl_channel(conn_cfg.get(),
										&shared));
					RPMA_OK(rpma_peer_cfg_get_direct_write_to_pmem(
						peer_cfg.get(), &direct));
					reads++;
				}
			});
		threads.join_and_check();
		CPPUNIT_ASSERT(reads.load() > 0);
	}

	// docs/thread-safety.md: a connection request made from a configuration
	// another thread is changing gets the fields as they were at one moment.
	// The other thread moves the configuration around a cycle of states that
	// are all valid, (shared channel, SRQ without RCQ) -> (no shared channel,
	// SRQ without RCQ) -> (no shared channel, SRQ with RCQ) -> back, never
	// through (shared channel, SRQ with RCQ), which rpma_conn_req_new
	// refuses with RPMA_E_INVAL. A request made from a mix of two states can
	// be that one. Most requests go to a service that does not resolve, so
	// that they fail fast (RPMA_E_PROVIDER) and many are made; every tenth
	// is a real one, which must succeed.
	void request_from_a_changing_configuration()
	{
		Peer peer = new_peer(RPMA_UTIL_IBV_CONTEXT_REMOTE);
		rpma_srq *raw = nullptr;
		RPMA_OK(rpma_srq_new(peer.get(), nullptr, &raw)); // has an RCQ
		Srq with_rcq(raw);
		rpma_srq_cfg *no_rcq_cfg = nullptr;
		RPMA_OK(rpma_srq_cfg_new(&no_rcq_cfg));
		SrqCfg no_rcq_cfg_own(no_rcq_cfg);
		RPMA_OK(rpma_srq_cfg_set_rcq_size(no_rcq_cfg, 0));
		RPMA_OK(rpma_srq_new(peer.get(), no_rcq_cfg, &raw));
		Srq without_rcq(raw);
		rpma_conn_cfg *cfg_raw = nullptr;
		RPMA_OK(rpma_conn_cfg_new(&cfg_raw));
		ConnCfg cfg(cfg_raw);
		RPMA_OK(rpma_conn_cfg_set_srq(cfg.get(), without_rcq.get()));
		RPMA_OK(rpma_conn_cfg_set_compl_channel(cfg.get(), true));
		const std::string port = next_port();

		std::atomic<bool> stop{false};
		std::atomic<long> cycles{0};
		int made = 0, ret = 0;
		bool as_expected = true;
		{
			Threads changer;
			changer.spawn([&] {
				while (!stop.load()) {
					RPMA_OK(rpma_conn_cfg_set_compl_channel(cfg.get(), false));
					RPMA_OK(rpma_conn_cfg_set_srq(cfg.get(), with_rcq.get()));
					RPMA_OK(rpma_conn_cfg_set_srq(cfg.get(),
								      without_rcq.get()));
					RPMA_OK(rpma_conn_cfg_set_compl_channel(cfg.get(), true));
					cycles++;
				}
			});
			const auto deadline = std::chrono::steady_clock::now() +
					      std::chrono::seconds(5);
			for (; as_expected && std::chrono::steady_clock::now() < deadline; made++) {
				const bool real = made % 10 == 0;
				rpma_conn_req *req = nullptr;
				ret = rpma_conn_req_new(peer.get(), test_ip(),
							real ? port.c_str() : "no-such-service",
							cfg.get(), &req);
				as_expected = ret == (real ? 0 : RPMA_E_PROVIDER);
				if (req)
					RPMA_OK(rpma_conn_req_delete(&req));
			}
			stop = true;
			changer.join_and_check();
		}
		CPPUNIT_ASSERT_MESSAGE("request " + std::to_string(made) + " (after " +
					       std::to_string(cycles.load()) +
					       " cycles): " + describe("rpma_conn_req_new", ret),
				       as_expected);
		CPPUNIT_ASSERT(made > 0 && cycles.load() > 0);
	}

	// docs/thread-safety.md, "What the fio engines do": fio starts every
	// job of a numjobs= run at once (thread=1), and each engine instance
	// finds its device (rpma_utils_get_ibv_context), sets up its link watch
	// (LinkWatch::watch) and makes its request (rpma_conn_req_new) while
	// the others do the same. Half the threads watch the test address's
	// port, as a server and as a client, the other half resolve it and make
	// requests; the threads start together.
	void link_watch_beside_address_resolution()
	{
		Peer peer = new_peer(RPMA_UTIL_IBV_CONTEXT_REMOTE);
		ibv_context *dev = nullptr;
		RPMA_OK(rpma_utils_get_ibv_context(test_ip(), RPMA_UTIL_IBV_CONTEXT_LOCAL, &dev));
		const std::string port = next_port();
		std::atomic<int> ready{0}, rounds{0};
		Threads threads;
		for (int t = 0; t < N; t++)
			threads.spawn([&, t] {
				ready++;
				while (ready.load() < N)
					std::this_thread::yield();
				for (int i = 0; i < 4; i++, rounds++) {
					if (t % 2) {
						const bool local = i % 2;
						// rxe has one port: the address is on it;
						// an iWARP port's GIDs are made from its MAC
						// address, not its IP address, so no port
						// is found and the watch takes every port
						rpma_fio::LinkWatch watch;
						CPPUNIT_ASSERT_EQUAL(
							platform().iwarp ? 0 : 1,
							int(watch.port_for(dev, test_ip(), local)));
						watch.watch(dev, test_ip(), local);
						CPPUNIT_ASSERT(!watch.down());
						continue;
					}
					ibv_context *found = nullptr;
					RPMA_OK(rpma_utils_get_ibv_context(
						test_ip(), RPMA_UTIL_IBV_CONTEXT_REMOTE, &found));
					CPPUNIT_ASSERT(found == dev);
					rpma_conn_req *req = nullptr;
					RPMA_OK(rpma_conn_req_new(peer.get(), test_ip(),
								  port.c_str(), nullptr, &req));
					RPMA_OK(rpma_conn_req_delete(&req));
				}
			});
		threads.join_and_check();
		CPPUNIT_ASSERT_EQUAL(N * 4, rounds.load());
	}

	// docs/thread-safety.md: librdmacm makes the identifier of an incoming
	// request inside rdma_get_cm_event, the call rpma_ep_next_conn_req
	// waits in; meanwhile other threads delete requests and connections,
	// as the server jobs of one fio do while their siblings wait for
	// clients. Here one thread takes requests from an endpoint and deletes
	// them (rejects them), while client threads make requests, connect,
	// see the rejection and delete their connections, and make and delete
	// requests to a port nobody listens on.
	void incoming_requests_beside_deletions()
	{
		constexpr int CLIENTS = 4, ROUNDS = 4;
		Peer server_peer = new_peer(RPMA_UTIL_IBV_CONTEXT_LOCAL);
		Peer client_peer = new_peer(RPMA_UTIL_IBV_CONTEXT_REMOTE);
		const std::string port = next_port(), nobody = next_port();
		rpma_ep *ep_raw = nullptr;
		RPMA_OK(rpma_ep_listen(server_peer.get(), test_ip(), port.c_str(), &ep_raw));
		Ep ep(ep_raw);
		std::atomic<int> rejected{0};
		Threads threads;
		for (int c = 0; c < CLIENTS; c++)
			threads.spawn([&] {
				for (int r = 0; r < ROUNDS; r++) {
					rpma_conn_req *req = nullptr;
					RPMA_OK(rpma_conn_req_new(client_peer.get(), test_ip(),
								  port.c_str(), nullptr, &req));
					rpma_conn *raw = nullptr;
					RPMA_OK(rpma_conn_req_connect(&req, nullptr, &raw));
					Conn conn(raw);
					rpma_conn_req *idle = nullptr;
					RPMA_OK(rpma_conn_req_new(client_peer.get(), test_ip(),
								  nobody.c_str(), nullptr, &idle));
					RPMA_OK(rpma_conn_req_delete(&idle));
					CPPUNIT_ASSERT_EQUAL(RPMA_CONN_REJECTED,
							     next_event(conn.get()));
					rejected++;
				}
			});
		for (int i = 0; i < CLIENTS * ROUNDS; i++)
			ConnReq(next_conn_req(ep.get(), nullptr)).reset(); // rejects it
		threads.join_and_check();
		CPPUNIT_ASSERT_EQUAL(CLIENTS * ROUNDS, rejected.load());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ThreadsTest);
