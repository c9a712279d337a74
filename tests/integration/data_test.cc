// SPDX-License-Identifier: BSD-3-Clause
// One-sided operations over a real connection: read, write, both kinds of
// flush, atomic write, memory advice and remote access errors. Both ends
// live in this process, so every byte that lands can be checked directly.

#include <algorithm>
#include <cstring>
#include <memory>

#include "check.hh"
#include "config.h"
#include "pair.hh"
#include "pattern.hh"
#include "platform.hh"
#include "wait.hh"

using namespace it;

namespace {

constexpr size_t SIZE = 8192;

// opcodes that rdma-core 44 does not name
constexpr int WC_FLUSH = 8;
constexpr int WC_ATOMIC_WRITE = 9;

// a flush completes as the RDMA READ emulating it or as a native flush
void expect_flush_wc(rpma_cq *cq, const void *ctx)
{
	ibv_wc wc = next_wc(cq);
	CPPUNIT_ASSERT_EQUAL_MESSAGE(ibv_wc_status_str(wc.status), (int)IBV_WC_SUCCESS,
				     (int)wc.status);
	CPPUNIT_ASSERT(wc.opcode == IBV_WC_RDMA_READ || (int)wc.opcode == WC_FLUSH);
	CPPUNIT_ASSERT_EQUAL((uint64_t)(uintptr_t)ctx, (uint64_t)wc.wr_id);
}

// a peer configuration descriptor saying "direct write to PMem"
PeerCfg direct_write_cfg()
{
	rpma_peer_cfg *cfg = nullptr;
	RPMA_OK(rpma_peer_cfg_new(&cfg));
	PeerCfg own(cfg);
	RPMA_OK(rpma_peer_cfg_set_direct_write_to_pmem(cfg, true));
	unsigned char desc = 0;
	RPMA_OK(rpma_peer_cfg_get_descriptor(cfg, &desc));
	CPPUNIT_ASSERT_EQUAL(1, (int)desc);
	rpma_peer_cfg *remote = nullptr;
	RPMA_OK(rpma_peer_cfg_from_descriptor(&desc, sizeof(desc), &remote));
	return PeerCfg(remote);
}

} // namespace

class DataTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(DataTest);
	CPPUNIT_TEST(read);
	CPPUNIT_TEST(write);
	CPPUNIT_TEST(flush_visibility);
	CPPUNIT_TEST(flush_persistent);
	CPPUNIT_TEST(atomic_write);
	CPPUNIT_TEST(mr_advise);
	CPPUNIT_TEST(access_outside_region_fails);
	CPPUNIT_TEST_SUITE_END();

	std::unique_ptr<Pair> pair_;
	std::vector<unsigned char> remote_mem_, local_mem_;

	rpma_conn *client() { return pair_->client.get(); }

	// the server's memory, registered with `usage`, as the client sees it
	std::pair<MrLocal, MrRemote> expose(int usage)
	{
		MrLocal mr = reg(pair_->server_peer.get(), remote_mem_.data(), SIZE, usage);
		MrRemote remote = remote_of(mr.get());
		return {std::move(mr), std::move(remote)};
	}

	MrLocal local(int usage)
	{
		return reg(pair_->client_peer.get(), local_mem_.data(), SIZE, usage);
	}

	// writes local_mem_ to the remote region without a completion
	void write_unsignalled(rpma_mr_remote *dst, const rpma_mr_local *src)
	{
		fill_pattern(local_mem_, 5);
		RPMA_OK(rpma_write(client(), dst, 0, src, 0, SIZE, RPMA_F_COMPLETION_ON_ERROR,
				   nullptr));
	}

public:
	void setUp() override
	{
		remote_mem_.assign(SIZE, 0);
		local_mem_.assign(SIZE, 0);
		pair_ = std::make_unique<Pair>(connect_pair());
	}

	void tearDown() override
	{
		if (pair_->client && pair_->server)
			close_pair(*pair_);
		pair_.reset();
	}

	void read()
	{
		fill_pattern(remote_mem_, 1);
		auto [mr, src] = expose(RPMA_MR_USAGE_READ_SRC);
		MrLocal dst = local(RPMA_MR_USAGE_READ_DST);
		static const int ctx = 0;
		// the second half lands at the start of the local buffer
		RPMA_OK(rpma_read(client(), dst.get(), 0, src.get(), SIZE / 2, SIZE / 2,
				  RPMA_F_COMPLETION_ALWAYS, &ctx));
		ibv_wc wc = expect_wc(cq_of(client()), IBV_WC_RDMA_READ);
		CPPUNIT_ASSERT_EQUAL((uint64_t)(uintptr_t)&ctx, wc.wr_id);
		CPPUNIT_ASSERT(std::memcmp(local_mem_.data(), remote_mem_.data() + SIZE / 2,
					   SIZE / 2) == 0);
		CPPUNIT_ASSERT(std::all_of(local_mem_.begin() + SIZE / 2, local_mem_.end(),
					   [](unsigned char b) { return b == 0; }));
	}

	void write()
	{
		auto [mr, dst] = expose(RPMA_MR_USAGE_WRITE_DST);
		MrLocal src = local(RPMA_MR_USAGE_WRITE_SRC);
		fill_pattern(local_mem_, 2);
		RPMA_OK(rpma_write(client(), dst.get(), 100, src.get(), 0, 1000,
				   RPMA_F_COMPLETION_ALWAYS, nullptr));
		expect_wc(cq_of(client()), IBV_WC_RDMA_WRITE);
		std::vector<unsigned char> expected(SIZE, 0);
		std::memcpy(expected.data() + 100, local_mem_.data(), 1000);
		CPPUNIT_ASSERT(remote_mem_ == expected);
	}

	void flush_visibility()
	{
		auto [mr,
		      dst] = expose(RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
		int usage = 0;
		RPMA_OK(rpma_mr_remote_get_flush_type(dst.get(), &usage));
		CPPUNIT_ASSERT_EQUAL(RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, usage);
		// persistence is neither promised by the peer nor by the region
		RPMA_EXPECT(RPMA_E_NOSUPP,
			    rpma_flush(client(), dst.get(), 0, SIZE, RPMA_FLUSH_TYPE_PERSISTENT,
				       RPMA_F_COMPLETION_ALWAYS, nullptr));

		MrLocal src = local(RPMA_MR_USAGE_WRITE_SRC);
		write_unsignalled(dst.get(), src.get());
		static const int ctx = 0;
		RPMA_OK(rpma_flush(client(), dst.get(), 0, SIZE, RPMA_FLUSH_TYPE_VISIBILITY,
				   RPMA_F_COMPLETION_ALWAYS, &ctx));
		expect_flush_wc(cq_of(client()), &ctx);
		CPPUNIT_ASSERT(remote_mem_ == local_mem_);
	}

	void flush_persistent()
	{
		auto [mr,
		      dst] = expose(RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
		MrLocal src = local(RPMA_MR_USAGE_WRITE_SRC);
		// without the peer's promise of direct writes to PMem
		RPMA_EXPECT(RPMA_E_NOSUPP,
			    rpma_flush(client(), dst.get(), 0, SIZE, RPMA_FLUSH_TYPE_PERSISTENT,
				       RPMA_F_COMPLETION_ALWAYS, nullptr));
		PeerCfg cfg = direct_write_cfg();
		RPMA_OK(rpma_conn_apply_remote_peer_cfg(client(), cfg.get()));
		// the region does not offer visibility flushes
		RPMA_EXPECT(RPMA_E_NOSUPP,
			    rpma_flush(client(), dst.get(), 0, SIZE, RPMA_FLUSH_TYPE_VISIBILITY,
				       RPMA_F_COMPLETION_ALWAYS, nullptr));

		write_unsignalled(dst.get(), src.get());
		static const int ctx = 0;
		RPMA_OK(rpma_flush(client(), dst.get(), 0, SIZE, RPMA_FLUSH_TYPE_PERSISTENT,
				   RPMA_F_COMPLETION_ALWAYS, &ctx));
		expect_flush_wc(cq_of(client()), &ctx);
		CPPUNIT_ASSERT(remote_mem_ == local_mem_);
	}

	void atomic_write()
	{
		auto [mr, dst] = expose(RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC);
		const char value[8] = {1, 2, 3, 4, 5, 6, 7, 8};
		RPMA_EXPECT(RPMA_E_INVAL, rpma_atomic_write(client(), dst.get(), 12, value,
							    RPMA_F_COMPLETION_ALWAYS, nullptr));
		RPMA_OK(rpma_atomic_write(client(), dst.get(), 16, value, RPMA_F_COMPLETION_ALWAYS,
					  nullptr));
		ibv_wc wc = next_wc(cq_of(client()));
		CPPUNIT_ASSERT_EQUAL_MESSAGE(ibv_wc_status_str(wc.status), (int)IBV_WC_SUCCESS,
					     (int)wc.status);
		CPPUNIT_ASSERT(wc.opcode == IBV_WC_RDMA_WRITE || (int)wc.opcode == WC_ATOMIC_WRITE);
		std::vector<unsigned char> expected(SIZE, 0);
		std::memcpy(expected.data() + 16, value, sizeof(value));
		CPPUNIT_ASSERT(remote_mem_ == expected);
	}

	void mr_advise()
	{
		MrLocal mr = local(RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC);
		// a region registered without on-demand paging has nothing to
		// prefetch: refused before the device is asked (rxe of 7.2.13
		// faults in the kernel on it), NOSUPP from a build whose
		// rdma-core has no ibv_advise_mr; OdpTest prefetches a region
		// that pages on demand
#if HAVE_DECL_IBV_ADVISE_MR
		const int expected = RPMA_E_INVAL;
#else
		const int expected = RPMA_E_NOSUPP;
#endif
		RPMA_EXPECT(expected,
			    rpma_mr_advise(mr.get(), 0, SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
					   IBV_ADVISE_MR_FLAG_FLUSH));
	}

	void access_outside_region_fails()
	{
		auto [mr, dst] = expose(RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC |
					RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
		MrLocal src = local(RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST);
		// rpma refuses what lies past the region before posting it
		RPMA_EXPECT(RPMA_E_INVAL, rpma_write(client(), dst.get(), SIZE - 8, src.get(), 0,
						     64, RPMA_F_COMPLETION_ALWAYS, nullptr));
		RPMA_EXPECT(RPMA_E_INVAL, rpma_read(client(), src.get(), 0, dst.get(), SIZE, 8,
						    RPMA_F_COMPLETION_ALWAYS, nullptr));
		RPMA_EXPECT(RPMA_E_INVAL,
			    rpma_flush(client(), dst.get(), SIZE - 4, 4, RPMA_FLUSH_TYPE_VISIBILITY,
				       RPMA_F_COMPLETION_ALWAYS, nullptr));
		const char word[8] = {1};
		RPMA_EXPECT(RPMA_E_INVAL, rpma_atomic_write(client(), dst.get(), SIZE, word,
							    RPMA_F_COMPLETION_ALWAYS, nullptr));
		ibv_wc wc{};
		int got = 0;
		RPMA_EXPECT(RPMA_E_NO_COMPLETION, rpma_cq_get_wc(cq_of(client()), 1, &wc, &got));

		// a descriptor overstating the region gets the write past rpma:
		// the remote NIC must refuse it
		std::vector<unsigned char> desc(21);
		RPMA_OK(rpma_mr_get_descriptor(mr.get(), desc.data()));
		const uint64_t overstated = SIZE + 64; // the size field, little-endian
		for (int i = 0; i < 8; i++)
			desc[8 + i] = (unsigned char)(overstated >> (8 * i));
		rpma_mr_remote *raw = nullptr;
		RPMA_OK(rpma_mr_remote_from_descriptor(desc.data(), desc.size(), &raw));
		MrRemote liar(raw);
		RPMA_OK(rpma_write(client(), liar.get(), SIZE, src.get(), 0, 64,
				   RPMA_F_COMPLETION_ON_ERROR, nullptr));
		if (platform().iwarp) {
			// An iWARP write is never acknowledged: it completes once
			// sent, and the responder refuses it by terminating the
			// connection (a TERMINATE message, then the TCP stream's
			// end). The initiator learns it from its connection; its
			// queue pair, in error by then, takes new work requests
			// but (siw) never completes them.
			rpma_conn_event event = next_event(client());
			CPPUNIT_ASSERT_MESSAGE(rpma_utils_conn_event_2str(event),
					       event == RPMA_CONN_CLOSED ||
						       event == RPMA_CONN_LOST);
			CPPUNIT_ASSERT(std::all_of(remote_mem_.begin(), remote_mem_.end(),
						   [](unsigned char b) { return b == 0; }));
			pair_->client.reset();
			pair_->server.reset();
			return;
		}
		wc = next_wc(cq_of(client()));
		CPPUNIT_ASSERT_MESSAGE("a write past the region succeeded",
				       wc.status != IBV_WC_SUCCESS);
		CPPUNIT_ASSERT(std::all_of(remote_mem_.begin(), remote_mem_.end(),
					   [](unsigned char b) { return b == 0; }));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(DataTest);
