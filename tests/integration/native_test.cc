// SPDX-License-Identifier: BSD-3-Clause
// The native atomic write and flush over real verbs (docs/persistence.md,
// "Native operations"): used only when the initiator's peer is created with
// RPMA_NATIVE_OPS and the device has the verb; shown native by the
// completion opcode. Each native case skips, saying why, where the kernel's
// rxe (>= 6.2) or the rdma-core of this build (atomic write >= 44, flush
// >= 45) lacks the verb.

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "check.hh"
#include "config.h"
#include "pair.hh"
#include "pattern.hh"
#include "platform.hh"
#include "wait.hh"

using namespace it;

namespace {

constexpr size_t SIZE = 8192;

// rdma-core 44 names no flush opcode
constexpr int WC_FLUSH = 8;

void need_native_atomic_write()
{
#if !HAVE_DECL_IBV_WR_ATOMIC_WRITE
	skip("built with an rdma-core without ibv_wr_atomic_write (needs >= 44)");
#endif
	if (!has_native_atomic_write())
		skip("the device reports no atomic write (kernel " + platform().kernel +
		     (platform().iwarp ? "; iWARP: siw has none)" : "; rxe has it from 6.2)"));
}

void need_native_flush()
{
#if !HAVE_DECL_IBV_WR_FLUSH
	skip("built with an rdma-core without ibv_wr_flush (needs >= 45)");
#endif
	if (!has_native_flush())
		skip("the device reports no flush (kernel " + platform().kernel +
		     (platform().iwarp ? "; iWARP: siw has none)" : "; rxe has it from 6.2)"));
}

ibv_wc expect_success(rpma_cq *cq, const void *ctx)
{
	ibv_wc wc = next_wc(cq);
	CPPUNIT_ASSERT_EQUAL_MESSAGE(ibv_wc_status_str(wc.status), (int)IBV_WC_SUCCESS,
				     (int)wc.status);
	CPPUNIT_ASSERT_EQUAL((uint64_t)(uintptr_t)ctx, (uint64_t)wc.wr_id);
	return wc;
}

// what the server says about its memory: direct write to PMem
PeerCfg direct_write_cfg()
{
	rpma_peer_cfg *cfg = nullptr;
	RPMA_OK(rpma_peer_cfg_new(&cfg));
	PeerCfg own(cfg);
	RPMA_OK(rpma_peer_cfg_set_direct_write_to_pmem(cfg, true));
	return own;
}

} // namespace

class NativeOpsTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(NativeOpsTest);
	CPPUNIT_TEST(atomic_write_emulated_unless_enabled);
	CPPUNIT_TEST(atomic_write_native);
	CPPUNIT_TEST(atomic_write_lands_whole);
	CPPUNIT_TEST(atomic_write_after_flush);
	CPPUNIT_TEST(flush_emulated_unless_enabled);
	CPPUNIT_TEST(flush_native_visibility_on_dram);
	CPPUNIT_TEST(flush_native_persistent_on_devdax);
	CPPUNIT_TEST(flush_native_against_responder_without_it);
	CPPUNIT_TEST_SUITE_END();

	std::unique_ptr<Pair> pair_;
	std::vector<unsigned char> local_mem_;

	void connect(const char *native_ops)
	{
		PairOptions opts;
		opts.client_native_ops = native_ops;
		pair_ = std::make_unique<Pair>(connect_pair(opts));
	}

	rpma_conn *client() { return pair_->client.get(); }
	rpma_cq *client_cq() { return cq_of(client()); }

	MrLocal expose(unsigned char *mem, size_t size, int usage)
	{
		return reg(pair_->server_peer.get(), mem, size, usage);
	}

	MrLocal local(int usage)
	{
		return reg(pair_->client_peer.get(), local_mem_.data(), local_mem_.size(), usage);
	}

	// Stores `value` at dst + offset with rpma_atomic_write and waits for
	// its completion; returns the completion's opcode.
	int store(rpma_mr_remote *dst, size_t offset, const void *value)
	{
		static const int ctx = 0;
		RPMA_OK(rpma_atomic_write(client(), dst, offset, static_cast<const char *>(value),
					  RPMA_F_COMPLETION_ALWAYS, &ctx));
		return expect_success(client_cq(), &ctx).opcode;
	}

	// One store of 8 bytes at `offset` of a zeroed region of the server,
	// through a client with `native_ops`: the region must hold them there
	// and nothing else; returns the completion's opcode.
	int store_once(const char *native_ops, size_t offset)
	{
		std::vector<unsigned char> mem(SIZE, 0);
		connect(native_ops);
		MrLocal mr = expose(mem.data(), SIZE, RPMA_MR_USAGE_WRITE_DST);
		MrRemote dst = remote_of(mr.get());
		const char value[8] = {1, 2, 3, 4, 5, 6, 7, 8};
		const int opcode = store(dst.get(), offset, value);
		std::vector<unsigned char> expected(SIZE, 0);
		std::memcpy(expected.data() + offset, value, sizeof(value));
		CPPUNIT_ASSERT(mem == expected);
		return opcode;
	}

	// `len` bytes of local_mem_ (seeded) written to dst, no completion
	void write_pattern(rpma_mr_remote *dst, const rpma_mr_local *src, size_t len, uint32_t seed)
	{
		fill_pattern(local_mem_, seed);
		RPMA_OK(rpma_write(client(), dst, 0, src, 0, len, RPMA_F_COMPLETION_ON_ERROR,
				   nullptr));
	}

public:
	void setUp() override { local_mem_.assign(SIZE, 0); }

	void tearDown() override
	{
		if (pair_ && pair_->client && pair_->server)
			close_pair(*pair_);
		pair_.reset();
	}

	// the rule's default: a capable device alone changes nothing
	void atomic_write_emulated_unless_enabled()
	{
		CPPUNIT_ASSERT_EQUAL((int)IBV_WC_RDMA_WRITE, store_once("flush", 8));
	}

	void atomic_write_native()
	{
		need_native_atomic_write();
		CPPUNIT_ASSERT_EQUAL_MESSAGE("not the native atomic write",
					     (int)IBV_WC_ATOMIC_WRITE,
					     store_once("atomic_write", 24));
	}

	// A reader on the responder's side never sees a mix of two values.
	void atomic_write_lands_whole()
	{
		need_native_atomic_write();
		alignas(8) static uint64_t word;
		word = 0;
		connect("atomic_write");
		MrLocal mr = expose(reinterpret_cast<unsigned char *>(&word), sizeof(word),
				    RPMA_MR_USAGE_WRITE_DST);
		MrRemote dst = remote_of(mr.get());
		const uint64_t values[2] = {0x0123456789abcdefULL, 0xfedcba9876543210ULL};
		std::atomic<bool> stop{false};
		std::atomic<uint64_t> torn{0}, seen{0};
		std::thread reader([&] {
			std::atomic_ref<uint64_t> w(word);
			while (!stop.load()) {
				uint64_t v = w.load(std::memory_order_relaxed);
				if (v != 0 && v != values[0] && v != values[1])
					torn = v;
				seen++;
				std::this_thread::yield();
			}
		});
		bool all_native = true;
		for (int i = 0; i < 200; i++)
			all_native &= store(dst.get(), 0, &values[i % 2]) == IBV_WC_ATOMIC_WRITE;
		stop = true;
		reader.join();
		CPPUNIT_ASSERT(all_native);
		CPPUNIT_ASSERT_EQUAL_MESSAGE("a torn value was read", (uint64_t)0, torn.load());
		CPPUNIT_ASSERT(seen.load() > 0);
		CPPUNIT_ASSERT_EQUAL(values[1], word);
	}

	// Example 07's log append: data, flush, then the 8-byte "used" word.
	// The store must come after the flush: the completions arrive in that
	// order and the word never announces data that did not land.
	void atomic_write_after_flush()
	{
		need_native_atomic_write();
		const bool flush_native = has_native_flush();
		std::vector<unsigned char> mem(SIZE, 0);
		connect(flush_native ? "all" : "atomic_write");
		MrLocal mr = expose(mem.data(), SIZE,
				    RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
		MrRemote dst = remote_of(mr.get());
		MrLocal src = local(RPMA_MR_USAGE_WRITE_SRC);
		const size_t data_len = SIZE - 8;
		for (uint32_t round = 1; round <= 20; round++) {
			write_pattern(dst.get(), src.get(), data_len, round);
			static const int flush_ctx = 0, used_ctx = 0;
			RPMA_OK(rpma_flush(client(), dst.get(), 0, data_len,
					   RPMA_FLUSH_TYPE_VISIBILITY, RPMA_F_COMPLETION_ALWAYS,
					   &flush_ctx));
			const uint64_t used = round;
			RPMA_OK(rpma_atomic_write(client(), dst.get(), data_len,
						  reinterpret_cast<const char *>(&used),
						  RPMA_F_COMPLETION_ALWAYS, &used_ctx));
			ibv_wc wc = expect_success(client_cq(), &flush_ctx);
			CPPUNIT_ASSERT_EQUAL(flush_native ? WC_FLUSH : (int)IBV_WC_RDMA_READ,
					     (int)wc.opcode);
			wc = expect_success(client_cq(), &used_ctx);
			CPPUNIT_ASSERT_EQUAL((int)IBV_WC_ATOMIC_WRITE, (int)wc.opcode);
			CPPUNIT_ASSERT(std::memcmp(mem.data(), local_mem_.data(), data_len) == 0);
			uint64_t landed;
			std::memcpy(&landed, mem.data() + data_len, 8);
			CPPUNIT_ASSERT_EQUAL(used, landed);
		}
	}

	// Written data flushed for visibility on DRAM with the initiator's
	// native_ops: the flush's completion opcode, once the data is there.
	int visibility_flush_opcode(const char *native_ops)
	{
		std::vector<unsigned char> mem(SIZE, 0);
		connect(native_ops);
		MrLocal mr = expose(mem.data(), SIZE,
				    RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
		MrRemote dst = remote_of(mr.get());
		MrLocal src = local(RPMA_MR_USAGE_WRITE_SRC);
		write_pattern(dst.get(), src.get(), SIZE, 3);
		static const int ctx = 0;
		RPMA_OK(rpma_flush(client(), dst.get(), 0, SIZE, RPMA_FLUSH_TYPE_VISIBILITY,
				   RPMA_F_COMPLETION_ALWAYS, &ctx));
		ibv_wc wc = expect_success(client_cq(), &ctx);
		CPPUNIT_ASSERT(mem == local_mem_);
		return (int)wc.opcode;
	}

	void flush_emulated_unless_enabled()
	{
		CPPUNIT_ASSERT_EQUAL((int)IBV_WC_RDMA_READ,
				     visibility_flush_opcode("atomic_write"));
	}

	void flush_native_visibility_on_dram()
	{
		need_native_flush();
		CPPUNIT_ASSERT_EQUAL_MESSAGE("not the native flush", WC_FLUSH,
					     visibility_flush_opcode("flush"));
	}

	void flush_native_persistent_on_devdax()
	{
		need_native_flush();
		PmemMapping pmem = PmemMapping::devdax(2 << 20);
		connect("flush");
		std::fill_n(pmem.data(), SIZE, 0);
		MrLocal mr = expose(pmem.data(), SIZE,
				    RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
		MrRemote dst = remote_of(mr.get());
		PeerCfg cfg = direct_write_cfg();
		RPMA_OK(rpma_conn_apply_remote_peer_cfg(client(), cfg.get()));
		MrLocal src = local(RPMA_MR_USAGE_WRITE_SRC);
		write_pattern(dst.get(), src.get(), SIZE, 5);
		static const int ctx = 0;
		RPMA_OK(rpma_flush(client(), dst.get(), 0, SIZE, RPMA_FLUSH_TYPE_PERSISTENT,
				   RPMA_F_COMPLETION_ALWAYS, &ctx));
		ibv_wc wc = expect_success(client_cq(), &ctx);
		CPPUNIT_ASSERT_EQUAL_MESSAGE("not the native flush", WC_FLUSH, (int)wc.opcode);
		CPPUNIT_ASSERT(std::memcmp(pmem.data(), local_mem_.data(), SIZE) == 0);
	}

	// A responder that grants only RDMA reads for flushes (librpma 1.2, or
	// a device without the flush verb) refuses the native flush: an error
	// completion, in bounded time, and the written data is left alone.
	// Emulation against the same region works: opting out is the remedy.
	void flush_native_against_responder_without_it()
	{
		need_native_flush();
		std::vector<unsigned char> mem(SIZE, 0);
		connect("flush");
		{
			MrLocal mr = expose(mem.data(), SIZE,
					    RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC);
			MrRemote dst = flush_usage_without_access(mr.get());
			MrLocal src = local(RPMA_MR_USAGE_WRITE_SRC);
			write_pattern(dst.get(), src.get(), SIZE, 6);
			static const int ctx = 0;
			RPMA_OK(rpma_flush(client(), dst.get(), 0, SIZE, RPMA_FLUSH_TYPE_VISIBILITY,
					   RPMA_F_COMPLETION_ALWAYS, &ctx));
			ibv_wc wc = next_wc(client_cq());
			CPPUNIT_ASSERT_MESSAGE("the responder executed a flush "
					       "it never granted",
					       wc.status != IBV_WC_SUCCESS);
			CPPUNIT_ASSERT(mem == local_mem_);
		}
		close_pair(*pair_);

		connect(nullptr);
		MrLocal mr = expose(mem.data(), SIZE,
				    RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC);
		MrRemote dst = flush_usage_without_access(mr.get());
		static const int ctx = 0;
		RPMA_OK(rpma_flush(client(), dst.get(), 0, SIZE, RPMA_FLUSH_TYPE_VISIBILITY,
				   RPMA_F_COMPLETION_ALWAYS, &ctx));
		ibv_wc wc = expect_success(client_cq(), &ctx);
		CPPUNIT_ASSERT_EQUAL((int)IBV_WC_RDMA_READ, (int)wc.opcode);
	}

	// mr's descriptor as such a responder sends it: the visibility flush
	// usage, without the device's flush access behind it
	static MrRemote flush_usage_without_access(const rpma_mr_local *mr)
	{
		size_t size = 0;
		RPMA_OK(rpma_mr_get_descriptor_size(mr, &size));
		std::vector<unsigned char> desc(size);
		RPMA_OK(rpma_mr_get_descriptor(mr, desc.data()));
		desc[size - 1] |= RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
		rpma_mr_remote *remote = nullptr;
		RPMA_OK(rpma_mr_remote_from_descriptor(desc.data(), size, &remote));
		return MrRemote(remote);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(NativeOpsTest);
