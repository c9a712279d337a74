// SPDX-License-Identifier: BSD-3-Clause
// Type 2 memory windows (LIBRPMA_EXT_1.0) over real verbs: a window's key
// works on the connection it was bound on and on no other connection of the
// same peer (the same protection domain), the region under it opens nothing
// by its own key, a window bound before the accept works at the client's
// first operation, and the bindings end with the connection, the region or
// the window. Skips where the device has no type 2 windows (Soft-iWARP),
// after checking that it says so.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "check.hh"
#include "env.hh"
#include "pair.hh"
#include "pattern.hh"
#include "platform.hh"
#include "wait.hh"

using namespace it;

namespace {

constexpr size_t SIZE = 8192;
constexpr int WINDOW_USAGE = RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST;

bool mw_capable()
{
	int capable = -1;
	RPMA_OK(rpma_utils_ibv_context_is_mw_type2_capable(platform().context, &capable));
	return capable == 1;
}

std::vector<unsigned char> descriptor_of(const rpma_mw *mw)
{
	size_t size = 0;
	RPMA_OK(rpma_mw_get_descriptor_size(mw, &size));
	std::vector<unsigned char> desc(size);
	RPMA_OK(rpma_mw_get_descriptor(mw, desc.data()));
	return desc;
}

MrRemote remote_from(const std::vector<unsigned char> &desc)
{
	rpma_mr_remote *remote = nullptr;
	RPMA_OK(rpma_mr_remote_from_descriptor(desc.data(), desc.size(), &remote));
	return MrRemote(remote);
}

// what the client of a connection received in the accept's private data
MrRemote remote_from_private_data(rpma_conn *conn)
{
	rpma_conn_private_data pdata{};
	RPMA_OK(rpma_conn_get_private_data(conn, &pdata));
	// IB CM pads a reply's private data (196 bytes on RoCE)
	CPPUNIT_ASSERT(pdata.len >= 21);
	const auto *bytes = static_cast<const unsigned char *>(pdata.ptr);
	return remote_from(std::vector<unsigned char>(bytes, bytes + 21));
}

} // namespace

class MwTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(MwTest);
	CPPUNIT_TEST(capability_matches_transport);
	CPPUNIT_TEST(bound_before_accept_works_at_once);
	CPPUNIT_TEST(key_fails_on_another_connection);
	CPPUNIT_TEST(region_key_opens_nothing);
	CPPUNIT_TEST(second_range_bound_on_connection);
	CPPUNIT_TEST(bindings_end_with_connection_region_window);
	CPPUNIT_TEST(connect_cost);
	CPPUNIT_TEST_SUITE_END();

	// declared first: destroyed last, after the pairs and the windows
	Peer server_peer_;
	std::vector<unsigned char> server_mem_, client_mem_;
	MrLocal region_;

	void need_windows()
	{
		if (!mw_capable())
			skip("the device has no type 2 memory windows (" +
			     std::string(platform().iwarp ? "iWARP: siw has none"
							  : "none reported") +
			     ")");
	}

	// a client connected to server_peer_ whose accept carries the
	// descriptor of `mw`, bound over [offset, offset + len) of region_
	Pair windowed_pair(rpma_mw *mw, size_t offset, size_t len, int usage = WINDOW_USAGE)
	{
		PairOptions opts;
		opts.server_peer = server_peer_.get();
		opts.before_accept = [&opts, mw, offset, len, usage, this](rpma_conn_req *req) {
			RPMA_OK(rpma_conn_req_bind_mw(req, mw, region_.get(), offset, len, usage));
			opts.server_pdata = descriptor_of(mw);
		};
		return connect_pair(opts);
	}

	Mw new_mw()
	{
		rpma_mw *mw = nullptr;
		RPMA_OK(rpma_mw_new(server_peer_.get(), &mw));
		return Mw(mw);
	}

	MrLocal client_mr(const Pair &pair)
	{
		return reg(pair.client_peer.get(), client_mem_.data(), SIZE,
			   RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST);
	}

	// writes `len` bytes of pattern `seed` to remote offset 0 and waits
	static ibv_wc write_and_wait(rpma_conn *conn, rpma_mr_remote *dst, const rpma_mr_local *src,
				     size_t len)
	{
		RPMA_OK(rpma_write(conn, dst, 0, src, 0, len, RPMA_F_COMPLETION_ALWAYS, nullptr));
		return next_wc(cq_of(conn));
	}

	bool server_untouched() const
	{
		return std::all_of(server_mem_.begin(), server_mem_.end(),
				   [](unsigned char b) { return b == 0; });
	}

public:
	void setUp() override
	{
		server_mem_.assign(SIZE, 0);
		client_mem_.assign(SIZE, 0);
		server_peer_ = new_peer(RPMA_UTIL_IBV_CONTEXT_LOCAL);
	}

	void tearDown() override
	{
		region_.reset();
		server_peer_.reset();
	}

	void capability_matches_transport()
	{
		rpma_mw *mw = nullptr;
		rpma_mr_local *mr = nullptr;
		if (platform().iwarp) {
			// siw has no windows: it says so, and rpma refuses them
			CPPUNIT_ASSERT(!mw_capable());
			RPMA_EXPECT(RPMA_E_NOSUPP, rpma_mw_new(server_peer_.get(), &mw));
			RPMA_EXPECT(RPMA_E_NOSUPP,
				    rpma_mr_reg_for_windows(server_peer_.get(), server_mem_.data(),
							    SIZE, WINDOW_USAGE, &mr));
			CPPUNIT_ASSERT(mw == nullptr && mr == nullptr);
			return;
		}
		need_windows();
		RPMA_OK(rpma_mw_new(server_peer_.get(), &mw));
		RPMA_OK(rpma_mw_delete(&mw));
	}

	void bound_before_accept_works_at_once()
	{
		need_windows();
		region_ = MrLocal();
		rpma_mr_local *mr = nullptr;
		RPMA_OK(rpma_mr_reg_for_windows(server_peer_.get(), server_mem_.data(), SIZE,
						WINDOW_USAGE, &mr));
		region_.reset(mr);
		Mw mw = new_mw();
		Pair pair = windowed_pair(mw.get(), 1024, 2048);
		MrLocal src = client_mr(pair);
		MrRemote window = remote_from_private_data(pair.client.get());

		// the client's very first operation: a write, then a read back
		fill_pattern(client_mem_, 11);
		const std::vector<unsigned char> sent(client_mem_.begin(),
						      client_mem_.begin() + 2048);
		ibv_wc wc = write_and_wait(pair.client.get(), window.get(), src.get(), 2048);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(ibv_wc_status_str(wc.status), (int)IBV_WC_SUCCESS,
					     (int)wc.status);
		CPPUNIT_ASSERT(std::equal(sent.begin(), sent.end(), server_mem_.begin() + 1024));
		CPPUNIT_ASSERT(std::all_of(server_mem_.begin(), server_mem_.begin() + 1024,
					   [](unsigned char b) { return b == 0; }));
		std::fill(client_mem_.begin(), client_mem_.end(), 0);
		RPMA_OK(rpma_read(pair.client.get(), src.get(), 0, window.get(), 0, 2048,
				  RPMA_F_COMPLETION_ALWAYS, nullptr));
		expect_wc(cq_of(pair.client.get()), IBV_WC_RDMA_READ);
		CPPUNIT_ASSERT(std::equal(sent.begin(), sent.end(), client_mem_.begin()));
		// the range ends where the window ends: rpma refuses more
		RPMA_EXPECT(RPMA_E_INVAL,
			    rpma_write(pair.client.get(), window.get(), 2048 - 8, src.get(), 0, 16,
				       RPMA_F_COMPLETION_ALWAYS, nullptr));
		close_pair(pair);
	}

	void key_fails_on_another_connection()
	{
		need_windows();
		rpma_mr_local *mr = nullptr;
		RPMA_OK(rpma_mr_reg_for_windows(server_peer_.get(), server_mem_.data(), SIZE,
						WINDOW_USAGE, &mr));
		region_.reset(mr);
		Mw mw_a = new_mw();
		Mw mw_b = new_mw();
		Pair a = windowed_pair(mw_a.get(), 0, 4096);
		Pair b = windowed_pair(mw_b.get(), 4096, 4096);
		const std::vector<unsigned char> a_key = descriptor_of(mw_a.get());
		MrLocal src_b = client_mr(b);

		// b presents a's exact key and address on its own connection
		MrRemote stolen = remote_from(a_key);
		fill_pattern(client_mem_, 23);
		ibv_wc wc = write_and_wait(b.client.get(), stolen.get(), src_b.get(), 512);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(ibv_wc_status_str(wc.status),
					     (int)IBV_WC_REM_ACCESS_ERR, (int)wc.status);
		CPPUNIT_ASSERT(server_untouched());

		// a's key still works on a's connection
		MrLocal src_a = client_mr(a);
		MrRemote own = remote_from_private_data(a.client.get());
		wc = write_and_wait(a.client.get(), own.get(), src_a.get(), 512);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(ibv_wc_status_str(wc.status), (int)IBV_WC_SUCCESS,
					     (int)wc.status);
		CPPUNIT_ASSERT(std::equal(client_mem_.begin(), client_mem_.begin() + 512,
					  server_mem_.begin()));
		close_pair(a);
	}

	void region_key_opens_nothing()
	{
		need_windows();
		rpma_mr_local *mr = nullptr;
		RPMA_OK(rpma_mr_reg_for_windows(server_peer_.get(), server_mem_.data(), SIZE,
						WINDOW_USAGE, &mr));
		region_.reset(mr);
		Mw mw = new_mw();
		Pair pair = windowed_pair(mw.get(), 0, SIZE);
		MrLocal src = client_mr(pair);
		// the region's own descriptor: its address and key
		MrRemote region_key = remote_of(region_.get());
		fill_pattern(client_mem_, 31);
		ibv_wc wc = write_and_wait(pair.client.get(), region_key.get(), src.get(), 256);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(ibv_wc_status_str(wc.status),
					     (int)IBV_WC_REM_ACCESS_ERR, (int)wc.status);
		CPPUNIT_ASSERT(server_untouched());
	}

	void second_range_bound_on_connection()
	{
		need_windows();
		rpma_mr_local *mr = nullptr;
		RPMA_OK(rpma_mr_reg_for_windows(server_peer_.get(), server_mem_.data(), SIZE,
						WINDOW_USAGE, &mr));
		region_.reset(mr);
		Mw first = new_mw();
		Mw second = new_mw();
		Pair pair = windowed_pair(first.get(), 0, 4096);
		// a second window over the other half, bound on the live connection
		int ctx = 0;
		RPMA_OK(rpma_mw_bind(pair.server.get(), second.get(), region_.get(), 4096, 4096,
				     RPMA_MR_USAGE_WRITE_DST, RPMA_F_COMPLETION_ALWAYS, &ctx));
		ibv_wc wc = expect_wc(cq_of(pair.server.get()), IBV_WC_BIND_MW);
		CPPUNIT_ASSERT_EQUAL((uint64_t)(uintptr_t)&ctx, (uint64_t)wc.wr_id);
		MrRemote upper = remote_from(descriptor_of(second.get()));
		MrLocal src = client_mr(pair);
		fill_pattern(client_mem_, 41);
		wc = write_and_wait(pair.client.get(), upper.get(), src.get(), 4096);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(ibv_wc_status_str(wc.status), (int)IBV_WC_SUCCESS,
					     (int)wc.status);
		CPPUNIT_ASSERT(std::equal(client_mem_.begin(), client_mem_.begin() + 4096,
					  server_mem_.begin() + 4096));
		CPPUNIT_ASSERT(std::all_of(server_mem_.begin(), server_mem_.begin() + 4096,
					   [](unsigned char b) { return b == 0; }));
		close_pair(pair);
	}

	void bindings_end_with_connection_region_window()
	{
		need_windows();
		rpma_mr_local *mr = nullptr;
		RPMA_OK(rpma_mr_reg_for_windows(server_peer_.get(), server_mem_.data(), SIZE,
						WINDOW_USAGE, &mr));
		region_.reset(mr);
		Mw mw = new_mw();
		std::vector<unsigned char> first_key;
		{
			Pair pair = windowed_pair(mw.get(), 0, 4096);
			first_key = descriptor_of(mw.get());
			close_pair(pair);
		}
		// the connection went: the window is unbound, and binds again
		std::vector<unsigned char> desc(21);
		RPMA_EXPECT(RPMA_E_INVAL, rpma_mw_get_descriptor(mw.get(), desc.data()));
		Pair again = windowed_pair(mw.get(), 0, 4096);
		CPPUNIT_ASSERT(descriptor_of(mw.get()) != first_key);
		MrLocal src = client_mr(again);
		// the new key works
		MrRemote live = remote_from_private_data(again.client.get());
		fill_pattern(client_mem_, 51);
		ibv_wc wc = write_and_wait(again.client.get(), live.get(), src.get(), 64);
		CPPUNIT_ASSERT_EQUAL((int)IBV_WC_SUCCESS, (int)wc.status);
		// the region deregistered under the bound window: no error, the
		// window unbound
		region_.reset();
		RPMA_EXPECT(RPMA_E_INVAL, rpma_mw_get_descriptor(mw.get(), desc.data()));
		wc = write_and_wait(again.client.get(), live.get(), src.get(), 64);
		CPPUNIT_ASSERT_EQUAL_MESSAGE(ibv_wc_status_str(wc.status),
					     (int)IBV_WC_REM_ACCESS_ERR, (int)wc.status);
		// and a bound window deleted before its connection
		rpma_mr_local *mr2 = nullptr;
		RPMA_OK(rpma_mr_reg_for_windows(server_peer_.get(), server_mem_.data(), SIZE,
						WINDOW_USAGE, &mr2));
		region_.reset(mr2);
		Mw other = new_mw();
		Pair third = windowed_pair(other.get(), 0, 64);
		rpma_mw *raw = other.release();
		RPMA_OK(rpma_mw_delete(&raw));
		CPPUNIT_ASSERT(raw == nullptr);
		close_pair(third);
		mw.reset();
	}

	// A measurement, not a test: the time of the server's
	// rpma_conn_req_connect with one window bound before the accept and
	// without, in alternation, printed side by side. Nothing is asserted
	// on it.
	void connect_cost()
	{
		need_windows();
		rpma_mr_local *mr = nullptr;
		RPMA_OK(rpma_mr_reg_for_windows(server_peer_.get(), server_mem_.data(), SIZE,
						WINDOW_USAGE, &mr));
		region_.reset(mr);
		constexpr int ROUNDS = 10;
		std::vector<double> with_ms, without_ms;
		Mw mw = new_mw();
		Peer client_peer = new_peer(RPMA_UTIL_IBV_CONTEXT_REMOTE);
		for (int i = 0; i < 2 * ROUNDS; i++) {
			const bool bind = i % 2 == 0;
			const std::string port = next_port();
			rpma_ep *raw_ep = nullptr;
			RPMA_OK(rpma_ep_listen(server_peer_.get(), test_ip(), port.c_str(),
					       &raw_ep));
			Ep ep(raw_ep);
			rpma_conn_req *creq = nullptr;
			RPMA_OK(rpma_conn_req_new(client_peer.get(), test_ip(), port.c_str(),
						  nullptr, &creq));
			rpma_conn *raw = nullptr;
			RPMA_OK(rpma_conn_req_connect(&creq, nullptr, &raw));
			Conn client(raw);
			rpma_conn_req *sreq = next_conn_req(ep.get(), nullptr);
			std::vector<unsigned char> pdata(21, 0);
			if (bind) {
				RPMA_OK(rpma_conn_req_bind_mw(sreq, mw.get(), region_.get(), 0,
							      SIZE, WINDOW_USAGE));
				pdata = descriptor_of(mw.get());
			}
			rpma_conn_private_data pd{pdata.data(), (uint8_t)pdata.size()};
			const auto start = std::chrono::steady_clock::now();
			RPMA_OK(rpma_conn_req_connect(&sreq, &pd, &raw));
			const double ms = std::chrono::duration<double, std::milli>(
						  std::chrono::steady_clock::now() - start)
						  .count();
			Conn server(raw);
			(bind ? with_ms : without_ms).push_back(ms);
			expect_event(client.get(), RPMA_CONN_ESTABLISHED);
			expect_event(server.get(), RPMA_CONN_ESTABLISHED);
			Pair pair;
			pair.client = std::move(client);
			pair.server = std::move(server);
			close_pair(pair);
		}
		std::sort(with_ms.begin(), with_ms.end());
		std::sort(without_ms.begin(), without_ms.end());
		const double with = with_ms[ROUNDS / 2], without = without_ms[ROUNDS / 2];
		std::printf("  mw connect cost: rpma_conn_req_connect of the server, median of %d "
			    "(min..max): with a window %.3f ms (%.3f..%.3f), without %.3f ms "
			    "(%.3f..%.3f), ratio %.2f\n",
			    ROUNDS, with, with_ms.front(), with_ms.back(), without,
			    without_ms.front(), without_ms.back(), with / without);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(MwTest);
