// SPDX-License-Identifier: BSD-3-Clause
// The data path: the exact work request each call hands to the device.
#include <arpa/inet.h>

#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "c_callers.h"
#include "config.h"
#include "fixture.hh"
#include "librpma_private.h"

namespace unit {

namespace {

constexpr uint64_t RADDR = 0x7f0000100000;
constexpr uint32_t RKEY = 0x4321;
constexpr int FLUSH_USAGES = RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |
			     RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;

// RPMA_NATIVE_OPS for the peers created in a scope ("" unsets it).
class NativeOps {
public:
	explicit NativeOps(const char *ops)
	{
		if (*ops)
			setenv("RPMA_NATIVE_OPS", ops, 1);
		else
			unsetenv("RPMA_NATIVE_OPS");
	}
	NativeOps(const NativeOps &) = delete;
	NativeOps &operator=(const NativeOps &) = delete;
	~NativeOps() { unsetenv("RPMA_NATIVE_OPS"); }
};

// What a send work request must look like.
struct Expected {
	ibv_wr_opcode opcode;
	unsigned send_flags;
	const void *op_context;
	std::optional<fake::Sge> sge; // none: a 0-byte request without SGE
	uint64_t remote_addr = 0;
	uint32_t rkey = 0;
	uint32_t imm_data = 0; // network byte order
};

void check(const Expected &expected, const fake::SendWr &wr)
{
	CPPUNIT_ASSERT_EQUAL(expected.opcode, wr.opcode);
	CPPUNIT_ASSERT_EQUAL(expected.send_flags, wr.send_flags);
	CPPUNIT_ASSERT_EQUAL(uint64_t(reinterpret_cast<uintptr_t>(expected.op_context)), wr.wr_id);
	CPPUNIT_ASSERT_EQUAL(size_t{1}, wr.chain_length);
	if (expected.sge) {
		CPPUNIT_ASSERT_EQUAL(size_t{1}, wr.sges.size());
		CPPUNIT_ASSERT_EQUAL(expected.sge->addr, wr.sges[0].addr);
		CPPUNIT_ASSERT_EQUAL(expected.sge->length, wr.sges[0].length);
		CPPUNIT_ASSERT_EQUAL(expected.sge->lkey, wr.sges[0].lkey);
	} else {
		CPPUNIT_ASSERT(wr.sges.empty());
	}
	CPPUNIT_ASSERT_EQUAL(expected.remote_addr, wr.remote_addr);
	CPPUNIT_ASSERT_EQUAL(expected.rkey, wr.rkey);
	CPPUNIT_ASSERT_EQUAL(expected.imm_data, wr.imm_data);
}

} // namespace

class DataPathTest : public Fixture {
	CPPUNIT_TEST_SUITE(DataPathTest);
	CPPUNIT_TEST(read_rejects_bad_arguments);
	CPPUNIT_TEST(read_posts_rdma_read);
	CPPUNIT_TEST(read_zero_bytes);
	CPPUNIT_TEST(write_rejects_bad_arguments);
	CPPUNIT_TEST(write_posts_rdma_write);
	CPPUNIT_TEST(write_zero_bytes);
	CPPUNIT_TEST(write_with_imm_rejects_bad_arguments);
	CPPUNIT_TEST(write_with_imm_sends_network_order);
	CPPUNIT_TEST(write_with_imm_zero_bytes);
	CPPUNIT_TEST(signaled_only_with_completion_always);
	CPPUNIT_TEST(post_failure_is_provider_error);
	CPPUNIT_TEST(atomic_write_rejects_bad_arguments);
	CPPUNIT_TEST(atomic_write_emulated_inline_fenced);
#if HAVE_DECL_IBV_WR_ATOMIC_WRITE
	CPPUNIT_TEST(atomic_write_emulated_unless_asked_for);
	CPPUNIT_TEST(atomic_write_native_when_device_can);
	CPPUNIT_TEST(atomic_write_native_failure);
	CPPUNIT_TEST(atomic_write_per_peer_choice);
#endif
	CPPUNIT_TEST(write_atomic_rejects_bad_arguments);
	CPPUNIT_TEST(write_atomic_posts_fenced_write);
	CPPUNIT_TEST(flush_rejects_bad_arguments);
	CPPUNIT_TEST(flush_persistent_needs_direct_write);
	CPPUNIT_TEST(flush_needs_region_usage);
	CPPUNIT_TEST(flush_checks_inval_before_nosupp);
	CPPUNIT_TEST(flush_is_8_byte_read_into_private_buffer);
	CPPUNIT_TEST(flush_persistent_with_direct_write);
	CPPUNIT_TEST(flush_post_failure);
#if HAVE_DECL_IBV_WR_FLUSH
	CPPUNIT_TEST(flush_per_peer_choice);
#endif
	CPPUNIT_TEST(flush_emulated_unless_asked_for);
#if HAVE_DECL_IBV_WR_FLUSH
	CPPUNIT_TEST(flush_native_when_asked_for);
#endif
	CPPUNIT_TEST(send_rejects_bad_arguments);
	CPPUNIT_TEST(send_posts_send);
	CPPUNIT_TEST(send_zero_bytes);
	CPPUNIT_TEST(send_with_imm_sends_network_order);
	CPPUNIT_TEST(recv_rejects_bad_arguments);
	CPPUNIT_TEST(recv_posts_receive);
	CPPUNIT_TEST(recv_zero_bytes);
	CPPUNIT_TEST(recv_failure_is_provider_error);
	CPPUNIT_TEST(recv_on_srq_qp_is_provider_error);
	CPPUNIT_TEST(lengths_beyond_32_bits_are_refused);
	CPPUNIT_TEST(ranges_beyond_the_local_region_are_refused);
	CPPUNIT_TEST(ranges_beyond_the_remote_region_are_refused);
	CPPUNIT_TEST(ranges_ending_at_the_region_end_are_posted);
	CPPUNIT_TEST_SUITE_END();

	char buffer[256] = {};
	rpma_mr_local *local = nullptr;
	rpma_mr_remote *remote = nullptr;
	int context = 0;
	const void *const ctx = &context;

	// A connection, a local region over `buffer` and a remote one.
	void connect(int remote_usage = RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC |
					FLUSH_USAGES)
	{
		make_conn(conn_cfg);
		local = register_mr(buffer, sizeof(buffer), 0xff);
		remote = remote_mr(RADDR, 4096, RKEY, remote_usage);
	}

	uint32_t lkey()
	{
		return registration_of(local).mr->lkey;
	}

	fake::Sge local_sge(size_t offset, uint32_t length)
	{
		return {reinterpret_cast<uintptr_t>(buffer) + offset, length, lkey()};
	}

	const fake::SendWr &only_send()
	{
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::sends().size());
		CPPUNIT_ASSERT(fake::sends()[0].qp == last_qp());
		return fake::sends()[0];
	}

	void apply_direct_write(bool supported)
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_new(&peer_cfg));
		CPPUNIT_ASSERT_EQUAL(0,
				     rpma_peer_cfg_set_direct_write_to_pmem(peer_cfg, supported));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_apply_remote_peer_cfg(conn, peer_cfg));
	}

	// The 8-byte buffer the connection registered for flushes.
	const fake::MrReg &flush_buffer()
	{
		const fake::MrReg *found = nullptr;
		for (const fake::MrReg &reg : fake::registrations())
			if (reg.mr && reg.length == 8 && reg.addr != buffer)
				found = &reg;
		CPPUNIT_ASSERT_MESSAGE("no 8-byte registration for flushes", found);
		return *found;
	}

	// The checks shared by read, write and write_with_imm.
	template <typename Op> void rejects_like_read_write(Op op)
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     op(nullptr, local, 0, remote, 0, 8, RPMA_F_COMPLETION_ALWAYS));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, op(conn, local, 0, remote, 0, 8, 0));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     op(conn, nullptr, 0, remote, 0, 8, RPMA_F_COMPLETION_ALWAYS));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     op(conn, local, 0, nullptr, 0, 8, RPMA_F_COMPLETION_ALWAYS));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     op(conn, nullptr, 0, nullptr, 0, 8, RPMA_F_COMPLETION_ALWAYS));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     op(conn, nullptr, 1, nullptr, 0, 0, RPMA_F_COMPLETION_ALWAYS));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     op(conn, nullptr, 0, nullptr, 1, 0, RPMA_F_COMPLETION_ALWAYS));
		CPPUNIT_ASSERT(fake::sends().empty());
	}

	// Argument order: (conn, local mr, local offset, remote mr, remote offset, len, flags).
	static auto read_op()
	{
		return [](rpma_conn *c, rpma_mr_local *l, size_t loff, rpma_mr_remote *r,
			  size_t roff, size_t len, int flags) {
			return rpma_read(c, l, loff, r, roff, len, flags, nullptr);
		};
	}
	static auto write_op()
	{
		return [](rpma_conn *c, rpma_mr_local *l, size_t loff, rpma_mr_remote *r,
			  size_t roff, size_t len, int flags) {
			return rpma_write(c, r, roff, l, loff, len, flags, nullptr);
		};
	}
	static auto write_imm_op()
	{
		return [](rpma_conn *c, rpma_mr_local *l, size_t loff, rpma_mr_remote *r,
			  size_t roff, size_t len, int flags) {
			return rpma_write_with_imm(c, r, roff, l, loff, len, flags, 5, nullptr);
		};
	}

public:
	void read_rejects_bad_arguments()
	{
		rejects_like_read_write(read_op());
	}
	void write_rejects_bad_arguments()
	{
		rejects_like_read_write(write_op());
	}
	void write_with_imm_rejects_bad_arguments()
	{
		rejects_like_read_write(write_imm_op());
	}

	void read_posts_rdma_read()
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(0, rpma_read(conn, local, 16, remote, 100, 64,
						  RPMA_F_COMPLETION_ALWAYS, ctx));
		check({IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, ctx, local_sge(16, 64), RADDR + 100,
		       RKEY},
		      only_send());
	}

	void read_zero_bytes()
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(0, rpma_read(conn, nullptr, 0, nullptr, 0, 0,
						  RPMA_F_COMPLETION_ALWAYS, ctx));
		check({IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, ctx, std::nullopt}, only_send());
	}

	void write_posts_rdma_write()
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(0, rpma_write(conn, remote, 8, local, 32, 100,
						   RPMA_F_COMPLETION_ALWAYS, ctx));
		check({IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, ctx, local_sge(32, 100), RADDR + 8,
		       RKEY},
		      only_send());
	}

	void write_zero_bytes()
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(0, rpma_write(conn, nullptr, 0, nullptr, 0, 0,
						   RPMA_F_COMPLETION_ON_ERROR, ctx));
		check({IBV_WR_RDMA_WRITE, 0, ctx, std::nullopt}, only_send());
	}

	void write_with_imm_sends_network_order()
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(0, rpma_write_with_imm(conn, remote, 0, local, 0, 8,
							    RPMA_F_COMPLETION_ALWAYS, 0x12345678,
							    ctx));
		check({IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED, ctx, local_sge(0, 8), RADDR,
		       RKEY, htonl(0x12345678)},
		      only_send());
	}

	void write_with_imm_zero_bytes()
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(0, rpma_write_with_imm(conn, nullptr, 0, nullptr, 0, 0,
							    RPMA_F_COMPLETION_ALWAYS, 7, ctx));
		check({IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED, ctx, std::nullopt, 0, 0,
		       htonl(7)},
		      only_send());
	}

	void signaled_only_with_completion_always()
	{
		connect();
		const struct {
			int flags;
			unsigned send_flags;
		} cases[] = {
			{RPMA_F_COMPLETION_ON_ERROR, 0},
			{RPMA_F_COMPLETION_ALWAYS, IBV_SEND_SIGNALED},
			{2, IBV_SEND_SIGNALED},
			{4, 0},
		};
		for (const auto &c : cases) {
			CPPUNIT_ASSERT_EQUAL(0, rpma_write(conn, remote, 0, local, 0, 8, c.flags,
							   ctx));
			CPPUNIT_ASSERT_EQUAL_MESSAGE("flags " + std::to_string(c.flags),
						     c.send_flags, fake::sends().back().send_flags);
		}
	}

	void post_failure_is_provider_error()
	{
		connect();
		fake::fail(fake::Call::ibv_post_send, ENOMEM);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_read(conn, local, 0, remote, 0, 8,
								RPMA_F_COMPLETION_ALWAYS, ctx));
		fake::fail(fake::Call::ibv_post_send, ENOMEM);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_write(conn, remote, 0, local, 0, 8,
								 RPMA_F_COMPLETION_ALWAYS, ctx));
		fake::fail(fake::Call::ibv_post_send, ENOMEM);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER,
				     rpma_write_with_imm(conn, remote, 0, local, 0, 8,
							 RPMA_F_COMPLETION_ALWAYS, 1, ctx));
		fake::fail(fake::Call::ibv_post_send, ENOMEM);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER,
				     rpma_send(conn, local, 0, 8, RPMA_F_COMPLETION_ALWAYS, ctx));
		fake::fail(fake::Call::ibv_post_send, ENOMEM);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER,
				     rpma_send_with_imm(conn, local, 0, 8, RPMA_F_COMPLETION_ALWAYS,
							1, ctx));
		const char word[8] = {};
		fake::fail(fake::Call::ibv_post_send, ENOMEM);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER,
				     rpma_atomic_write(conn, remote, 0, word,
						       RPMA_F_COMPLETION_ALWAYS, ctx));
		fake::fail(fake::Call::ibv_post_send, ENOMEM);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER,
				     rpma_write_atomic(conn, remote, 0, local, 0,
						       RPMA_F_COMPLETION_ALWAYS, ctx));
		CPPUNIT_ASSERT(fake::sends().empty());
	}

	void atomic_write_rejects_bad_arguments()
	{
		connect();
		const char word[8] = {};
		const int always = RPMA_F_COMPLETION_ALWAYS;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_atomic_write(nullptr, remote, 0, word, always, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_atomic_write(conn, nullptr, 0, word, always, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_atomic_write(conn, remote, 0, nullptr, always, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_atomic_write(conn, remote, 0, word, 0, ctx));
		for (size_t offset : {1, 4, 7, 12})
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_atomic_write(conn, remote, offset,
									     word, always, ctx));
		CPPUNIT_ASSERT(fake::sends().empty());
	}

	void atomic_write_emulated_inline_fenced()
	{
		connect();
		char word[8] = {'a', 't', 'o', 'm', 'i', 'c', '!', '\0'};
		CPPUNIT_ASSERT_EQUAL(0, rpma_atomic_write(conn, remote, 64, word,
							  RPMA_F_COMPLETION_ALWAYS, ctx));
		const fake::SendWr &wr = only_send();
		CPPUNIT_ASSERT(!wr.extended);
		check({IBV_WR_RDMA_WRITE, IBV_SEND_INLINE | IBV_SEND_FENCE | IBV_SEND_SIGNALED, ctx,
		       fake::Sge{reinterpret_cast<uintptr_t>(word), 8, 0}, RADDR + 64, RKEY},
		      wr);
		CPPUNIT_ASSERT(std::vector<uint8_t>(word, word + 8) == wr.data);
		CPPUNIT_ASSERT_EQUAL(0, rpma_atomic_write(conn, remote, 0, word,
							  RPMA_F_COMPLETION_ON_ERROR, ctx));
		CPPUNIT_ASSERT_EQUAL(unsigned{IBV_SEND_INLINE | IBV_SEND_FENCE},
				     fake::sends().back().send_flags);
	}

	// A capable device alone does not say that the responder can execute
	// the verb: without RPMA_NATIVE_OPS the write stays emulated.
	void atomic_write_emulated_unless_asked_for()
	{
		fake::device_attr().device_cap_flags_ex |= fake::DEVICE_CAP_ATOMIC_WRITE;
		for (const char *ops : {"", "flush", "none", "atomic-write-typo"}) {
			NativeOps env(ops);
			connect();
			const ibv_qp_init_attr_ex &attr = fake::qps().back().attr;
			CPPUNIT_ASSERT_MESSAGE(ops, !(attr.send_ops_flags &
						      IBV_QP_EX_WITH_ATOMIC_WRITE));
			const char word[8] = {};
			CPPUNIT_ASSERT_EQUAL(0, rpma_atomic_write(conn, remote, 0, word,
								  RPMA_F_COMPLETION_ALWAYS, ctx));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(ops, int{IBV_WR_RDMA_WRITE},
						     int{fake::sends().back().opcode});
			Fixture::tearDown();
			Fixture::setUp();
			fake::device_attr().device_cap_flags_ex |= fake::DEVICE_CAP_ATOMIC_WRITE;
		}
	}

	void connect_with_native_atomic_write()
	{
		fake::device_attr().device_cap_flags_ex |= fake::DEVICE_CAP_ATOMIC_WRITE;
		NativeOps env("atomic_write");
		connect();
		const ibv_qp_init_attr_ex &attr = fake::qps().back().attr;
		CPPUNIT_ASSERT(attr.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
		CPPUNIT_ASSERT(attr.send_ops_flags & IBV_QP_EX_WITH_ATOMIC_WRITE);
	}

	void atomic_write_native_when_device_can()
	{
		connect_with_native_atomic_write();
		char word[8] = {1, 2, 3, 4, 5, 6, 7, 8};
		CPPUNIT_ASSERT_EQUAL(0, rpma_atomic_write(conn, remote, 8, word,
							  RPMA_F_COMPLETION_ALWAYS, ctx));
		const fake::SendWr &wr = only_send();
		CPPUNIT_ASSERT(wr.extended);
		// native: no SGE, the 8 bytes travel in the request; fenced like the
		// emulated path (a deliberate deviation, docs/compatibility.md)
		check({IBV_WR_ATOMIC_WRITE, IBV_SEND_SIGNALED | IBV_SEND_FENCE, ctx, std::nullopt,
		       RADDR + 8, RKEY},
		      wr);
		CPPUNIT_ASSERT(std::vector<uint8_t>(word, word + 8) == wr.data);
		CPPUNIT_ASSERT_EQUAL(0, rpma_atomic_write(conn, remote, 0, word,
							  RPMA_F_COMPLETION_ON_ERROR, ctx));
		CPPUNIT_ASSERT_EQUAL(unsigned{IBV_SEND_FENCE}, fake::sends().back().send_flags);
		CPPUNIT_ASSERT(
			!LogCapture::contains(RPMA_LOG_LEVEL_INFO, "tomic write is not supported"));
	}

	void atomic_write_native_failure()
	{
		connect_with_native_atomic_write();
		const char word[8] = {};
		fake::fail(fake::Call::ibv_wr_complete, EIO);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER,
				     rpma_atomic_write(conn, remote, 0, word,
						       RPMA_F_COMPLETION_ALWAYS, ctx));
		fake::fail(fake::Call::ibv_post_send, ENOMEM);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER,
				     rpma_write_atomic(conn, remote, 0, local, 0,
						       RPMA_F_COMPLETION_ALWAYS, ctx));
		CPPUNIT_ASSERT(fake::sends().empty());
	}

	// A device that executes flushes does not make this side's flushes
	// native: the responder's device may not.
	void flush_emulated_unless_asked_for()
	{
		fake::device_attr().device_cap_flags_ex |= fake::DEVICE_CAP_FLUSH;
		connect();
		CPPUNIT_ASSERT_EQUAL(0, rpma_flush(conn, remote, 0, 100, RPMA_FLUSH_TYPE_VISIBILITY,
						   RPMA_F_COMPLETION_ALWAYS, ctx));
		CPPUNIT_ASSERT_EQUAL(int{IBV_WR_RDMA_READ}, int{only_send().opcode});
		CPPUNIT_ASSERT(!only_send().extended);
	}

#if HAVE_DECL_IBV_WR_FLUSH
	void flush_native_when_asked_for()
	{
		fake::device_attr().device_cap_flags_ex |= fake::DEVICE_CAP_FLUSH;
		{
			NativeOps env("flush");
			connect();
		}
		const ibv_qp_init_attr_ex &attr = fake::qps().back().attr;
		CPPUNIT_ASSERT(attr.send_ops_flags & IBV_QP_EX_WITH_FLUSH);
		CPPUNIT_ASSERT(!(attr.send_ops_flags & IBV_QP_EX_WITH_ATOMIC_WRITE));
		CPPUNIT_ASSERT_EQUAL(0, rpma_flush(conn, remote, 8, 100, RPMA_FLUSH_TYPE_VISIBILITY,
						   RPMA_F_COMPLETION_ALWAYS, ctx));
		const fake::SendWr &wr = only_send();
		CPPUNIT_ASSERT(wr.extended);
		check({IBV_WR_FLUSH, IBV_SEND_SIGNALED, ctx, std::nullopt, RADDR + 8, RKEY}, wr);
		CPPUNIT_ASSERT_EQUAL(size_t{100}, wr.flush_len);
		CPPUNIT_ASSERT_EQUAL(int{IBV_FLUSH_GLOBAL}, int{wr.flush_type});
		CPPUNIT_ASSERT_EQUAL(int{IBV_FLUSH_RANGE}, int{wr.flush_level});
		apply_direct_write(true);
		CPPUNIT_ASSERT_EQUAL(0,
				     rpma_flush(conn, remote, 0, 4096, RPMA_FLUSH_TYPE_PERSISTENT,
						RPMA_F_COMPLETION_ON_ERROR, ctx));
		CPPUNIT_ASSERT_EQUAL(int{IBV_FLUSH_PERSISTENT},
				     int{fake::sends().back().flush_type});
		CPPUNIT_ASSERT_EQUAL(0u, fake::sends().back().send_flags);
		// the atomic write was not asked for: emulated
		const char word[8] = {};
		CPPUNIT_ASSERT_EQUAL(0, rpma_atomic_write(conn, remote, 0, word,
							  RPMA_F_COMPLETION_ALWAYS, ctx));
		CPPUNIT_ASSERT_EQUAL(int{IBV_WR_RDMA_WRITE}, int{fake::sends().back().opcode});
	}
#endif

	// A second connection to address:service, of its own peer; the
	// caller deletes both.
	static rpma_conn *connect_peer(rpma_peer *other)
	{
		rpma_conn_req *other_req = nullptr;
		rpma_conn *other_conn = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_new(other, address, service, nullptr,
							  &other_req));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_connect(&other_req, nullptr, &other_conn));
		return other_conn;
	}

	// The opcode that op(c) posted on connection c.
	template <typename Op> static int posted_by(rpma_conn *c, Op op)
	{
		const size_t before = fake::sends().size();
		CPPUNIT_ASSERT_EQUAL(0, op(c));
		CPPUNIT_ASSERT_EQUAL(before + 1, fake::sends().size());
		return int{fake::sends().back().opcode};
	}

	// Two peers of one process with opposite choices (the fio engines'
	// native_ops= of two jobs, librpma_private.h), both alive, and
	// RPMA_NATIVE_OPS saying the opposite of each while it is created:
	// each connection posts what its own peer was told, in any order.
	template <typename Op> void per_peer_choice(uint64_t capability, int native_op, Op op,
						    int native_opcode, int emulated_opcode)
	{
		fake::device_attr().device_cap_flags_ex |= capability;
		rpma_peer *other = nullptr;
		{
			NativeOps env("none");
			CPPUNIT_ASSERT_EQUAL(0, rpma_peer_new_with_native_ops(fake::context(),
									      native_op, &peer));
		}
		{
			NativeOps env("all");
			CPPUNIT_ASSERT_EQUAL(0, rpma_peer_new_with_native_ops(fake::context(), 0,
									      &other));
		}
		connect();
		rpma_conn *other_conn = connect_peer(other);
		CPPUNIT_ASSERT_EQUAL(native_opcode, posted_by(conn, op));
		CPPUNIT_ASSERT_EQUAL(emulated_opcode, posted_by(other_conn, op));
		CPPUNIT_ASSERT_EQUAL(native_opcode, posted_by(conn, op));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_delete(&other_conn));
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_delete(&other));
	}

#if HAVE_DECL_IBV_WR_ATOMIC_WRITE
	void atomic_write_per_peer_choice()
	{
		const char word[8] = {};
		per_peer_choice(
			fake::DEVICE_CAP_ATOMIC_WRITE, RPMA_NATIVE_OP_ATOMIC_WRITE,
			[&](rpma_conn *c) {
				return rpma_atomic_write(c, remote, 0, word,
							 RPMA_F_COMPLETION_ALWAYS, ctx);
			},
			IBV_WR_ATOMIC_WRITE, IBV_WR_RDMA_WRITE);
	}
#endif

#if HAVE_DECL_IBV_WR_FLUSH
	void flush_per_peer_choice()
	{
		per_peer_choice(
			fake::DEVICE_CAP_FLUSH, RPMA_NATIVE_OP_FLUSH,
			[&](rpma_conn *c) {
				return rpma_flush(c, remote, 0, 64, RPMA_FLUSH_TYPE_VISIBILITY,
						  RPMA_F_COMPLETION_ALWAYS, ctx);
			},
			IBV_WR_FLUSH, IBV_WR_RDMA_READ);
	}
#endif

	void write_atomic_rejects_bad_arguments()
	{
		connect();
		const int always = RPMA_F_COMPLETION_ALWAYS;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_write_atomic(nullptr, remote, 0, local, 0, always, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_write_atomic(conn, nullptr, 0, local, 0, always, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_write_atomic(conn, remote, 0, nullptr, 0, always, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_write_atomic(conn, remote, 4, local, 0, always, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_write_atomic(conn, remote, 0, local, 0, 0, ctx));
		CPPUNIT_ASSERT(fake::sends().empty());
	}

	void write_atomic_posts_fenced_write()
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(0, rpma_write_atomic(conn, remote, 16, local, 40,
							  RPMA_F_COMPLETION_ALWAYS, ctx));
		check({IBV_WR_RDMA_WRITE, IBV_SEND_FENCE | IBV_SEND_SIGNALED, ctx, local_sge(40, 8),
		       RADDR + 16, RKEY},
		      only_send());
	}

	void flush_rejects_bad_arguments()
	{
		connect();
		const int always = RPMA_F_COMPLETION_ALWAYS;
		const auto visibility = RPMA_FLUSH_TYPE_VISIBILITY;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_flush(nullptr, remote, 0, 8, visibility, always, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_flush(conn, nullptr, 0, 8, visibility, always, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_flush(conn, remote, 0, 8, visibility, 0, ctx));
		// our deviation: an unknown type is refused
		for (int type : {2, -1, 100})
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
					     c_flush(conn, remote, 0, 8, type, always, ctx));
		CPPUNIT_ASSERT(fake::sends().empty());
	}

	void flush_persistent_needs_direct_write()
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOSUPP,
				     rpma_flush(conn, remote, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT,
						RPMA_F_COMPLETION_ALWAYS, ctx));
		apply_direct_write(false);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOSUPP,
				     rpma_flush(conn, remote, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT,
						RPMA_F_COMPLETION_ALWAYS, ctx));
		CPPUNIT_ASSERT(fake::sends().empty());
	}

	void flush_needs_region_usage()
	{
		connect(RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
		apply_direct_write(true);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOSUPP,
				     rpma_flush(conn, remote, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT,
						RPMA_F_COMPLETION_ALWAYS, ctx));
		rpma_mr_remote *persistent_only = remote_mr(RADDR, 4096, RKEY,
							    RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOSUPP, rpma_flush(conn, persistent_only, 0, 8,
							       RPMA_FLUSH_TYPE_VISIBILITY,
							       RPMA_F_COMPLETION_ALWAYS, ctx));
		CPPUNIT_ASSERT(fake::sends().empty());
	}

	void flush_checks_inval_before_nosupp()
	{
		connect(RPMA_MR_USAGE_WRITE_DST);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_flush(conn, remote, 0, 8,
							      RPMA_FLUSH_TYPE_PERSISTENT, 0, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_flush(conn, remote, 0, 8,
							      RPMA_FLUSH_TYPE_VISIBILITY, 0, ctx));
	}

	void flush_is_8_byte_read_into_private_buffer()
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(0,
				     rpma_flush(conn, remote, 200, 1000, RPMA_FLUSH_TYPE_VISIBILITY,
						RPMA_F_COMPLETION_ALWAYS, ctx));
		const fake::MrReg &sink = flush_buffer();
		CPPUNIT_ASSERT(sink.access & IBV_ACCESS_LOCAL_WRITE);
		// len is ignored: always 8 bytes at raddr + offset
		check({IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, ctx,
		       fake::Sge{reinterpret_cast<uintptr_t>(sink.addr), 8, sink.mr->lkey},
		       RADDR + 200, RKEY},
		      only_send());
		CPPUNIT_ASSERT_EQUAL(0, rpma_flush(conn, remote, 0, 8, RPMA_FLUSH_TYPE_VISIBILITY,
						   RPMA_F_COMPLETION_ON_ERROR, ctx));
		CPPUNIT_ASSERT_EQUAL(0u, fake::sends().back().send_flags);
	}

	void flush_persistent_with_direct_write()
	{
		connect();
		apply_direct_write(true);
		CPPUNIT_ASSERT_EQUAL(0, rpma_flush(conn, remote, 24, 8, RPMA_FLUSH_TYPE_PERSISTENT,
						   RPMA_F_COMPLETION_ALWAYS, ctx));
		const fake::MrReg &sink = flush_buffer();
		check({IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, ctx,
		       fake::Sge{reinterpret_cast<uintptr_t>(sink.addr), 8, sink.mr->lkey},
		       RADDR + 24, RKEY},
		      only_send());
	}

	void flush_post_failure()
	{
		connect();
		fake::fail(fake::Call::ibv_post_send, EIO);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER,
				     rpma_flush(conn, remote, 0, 8, RPMA_FLUSH_TYPE_VISIBILITY,
						RPMA_F_COMPLETION_ALWAYS, ctx));
	}

	void send_rejects_bad_arguments()
	{
		connect();
		const int always = RPMA_F_COMPLETION_ALWAYS;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_send(nullptr, local, 0, 8, always, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_send(conn, local, 0, 8, 0, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_send(conn, nullptr, 0, 8, always, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_send(conn, nullptr, 8, 0, always, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_send_with_imm(nullptr, local, 0, 8, always, 1, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_send_with_imm(conn, local, 0, 8, 0, 1, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_send_with_imm(conn, nullptr, 0, 8, always, 1, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_send_with_imm(conn, nullptr, 8, 0, always, 1, ctx));
		CPPUNIT_ASSERT(fake::sends().empty());
	}

	void send_posts_send()
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(0,
				     rpma_send(conn, local, 4, 27, RPMA_F_COMPLETION_ALWAYS, ctx));
		check({IBV_WR_SEND, IBV_SEND_SIGNALED, ctx, local_sge(4, 27)}, only_send());
	}

	void send_zero_bytes()
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(0, rpma_send(conn, nullptr, 0, 0, RPMA_F_COMPLETION_ON_ERROR,
						  ctx));
		check({IBV_WR_SEND, 0, ctx, std::nullopt}, only_send());
	}

	void send_with_imm_sends_network_order()
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(0, rpma_send_with_imm(conn, local, 0, 9,
							   RPMA_F_COMPLETION_ALWAYS, 1234, ctx));
		CPPUNIT_ASSERT_EQUAL(0,
				     rpma_send_with_imm(conn, nullptr, 0, 0,
							RPMA_F_COMPLETION_ALWAYS, 0xa1b2c3d4, ctx));
		CPPUNIT_ASSERT_EQUAL(size_t{2}, fake::sends().size());
		check({IBV_WR_SEND_WITH_IMM, IBV_SEND_SIGNALED, ctx, local_sge(0, 9), 0, 0,
		       htonl(1234)},
		      fake::sends()[0]);
		check({IBV_WR_SEND_WITH_IMM, IBV_SEND_SIGNALED, ctx, std::nullopt, 0, 0,
		       htonl(0xa1b2c3d4)},
		      fake::sends()[1]);
	}

	void recv_rejects_bad_arguments()
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_recv(nullptr, local, 0, 8, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_recv(conn, nullptr, 0, 8, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_recv(conn, nullptr, 8, 0, ctx));
		CPPUNIT_ASSERT(fake::recvs().empty());
	}

	void recv_posts_receive()
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(0, rpma_recv(conn, local, 128, 64, ctx));
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::recvs().size());
		const fake::RecvWr &wr = fake::recvs()[0];
		CPPUNIT_ASSERT(wr.qp == last_qp());
		CPPUNIT_ASSERT(!wr.srq);
		CPPUNIT_ASSERT_EQUAL(uint64_t(reinterpret_cast<uintptr_t>(ctx)), wr.wr_id);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, wr.chain_length);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, wr.sges.size());
		const fake::Sge expected = local_sge(128, 64);
		CPPUNIT_ASSERT_EQUAL(expected.addr, wr.sges[0].addr);
		CPPUNIT_ASSERT_EQUAL(expected.length, wr.sges[0].length);
		CPPUNIT_ASSERT_EQUAL(expected.lkey, wr.sges[0].lkey);
	}

	void recv_zero_bytes()
	{
		connect();
		CPPUNIT_ASSERT_EQUAL(0, rpma_recv(conn, nullptr, 0, 0, ctx));
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::recvs().size());
		CPPUNIT_ASSERT(fake::recvs()[0].sges.empty());
	}

	void recv_failure_is_provider_error()
	{
		connect();
		fake::fail(fake::Call::ibv_post_recv, ENOMEM);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_recv(conn, local, 0, 8, ctx));
	}

	void recv_on_srq_qp_is_provider_error()
	{
		make_srq();
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_srq(conn_cfg, srq));
		connect();
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_recv(conn, local, 0, 8, ctx));
		CPPUNIT_ASSERT(fake::recvs().empty());
	}

	// A scatter/gather entry holds a 32-bit length: 4 GiB would go out as a
	// 0-byte request that succeeds. The regions are large enough (the fake
	// never touches the memory), so the length alone is at fault.
	void lengths_beyond_32_bits_are_refused()
	{
		make_conn(conn_cfg);
		const size_t four_gib = size_t{1} << 32;
		local = register_mr(buffer, 2 * four_gib, 0xff);
		remote = remote_mr(RADDR, 2 * four_gib, RKEY,
				   RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC);
		const int always = RPMA_F_COMPLETION_ALWAYS;
		for (size_t len : {four_gib, four_gib + 8}) {
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_read(conn, local, 0, remote, 0, len,
								     always, ctx));
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_write(conn, remote, 0, local, 0,
								      len, always, ctx));
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
					     rpma_write_with_imm(conn, remote, 0, local, 0, len,
								 always, 1, ctx));
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
					     rpma_send(conn, local, 0, len, always, ctx));
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_send_with_imm(conn, local, 0, len,
									      always, 1, ctx));
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_recv(conn, local, 0, len, ctx));
		}
		CPPUNIT_ASSERT(fake::sends().empty());
		CPPUNIT_ASSERT(fake::recvs().empty());
		// the largest length an SGE holds still goes out whole
		CPPUNIT_ASSERT_EQUAL(0, rpma_write(conn, remote, 0, local, 0, four_gib - 1, always,
						   ctx));
		CPPUNIT_ASSERT_EQUAL(uint32_t{0xffffffff}, only_send().sges.at(0).length);
	}

	// The local NIC would fail such a request at completion time (and the
	// queue pair with it); an offset near SIZE_MAX must not wrap around.
	void ranges_beyond_the_local_region_are_refused()
	{
		connect();
		const int always = RPMA_F_COMPLETION_ALWAYS;
		const size_t size = sizeof(buffer);
		const size_t huge = SIZE_MAX - 3;
		for (auto [offset, len] :
		     {std::pair<size_t, size_t>{size - 4, 8}, {size + 8, 0}, {huge, 8}}) {
			const std::string what = std::to_string(offset) + "+" + std::to_string(len);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what, RPMA_E_INVAL,
						     rpma_read(conn, local, offset, remote, 0, len,
							       always, ctx));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what, RPMA_E_INVAL,
						     rpma_write(conn, remote, 0, local, offset, len,
								always, ctx));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what, RPMA_E_INVAL,
						     rpma_write_with_imm(conn, remote, 0, local,
									 offset, len, always, 1,
									 ctx));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what, RPMA_E_INVAL,
						     rpma_send(conn, local, offset, len, always,
							       ctx));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what, RPMA_E_INVAL,
						     rpma_send_with_imm(conn, local, offset, len,
									always, 1, ctx));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what, RPMA_E_INVAL,
						     rpma_recv(conn, local, offset, len, ctx));
		}
		// the deprecated atomic write reads 8 bytes of the local region
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_write_atomic(conn, remote, 0, local,
								     size - 4, always, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_write_atomic(conn, remote, 0, local, huge, always, ctx));
		CPPUNIT_ASSERT(fake::sends().empty());
		CPPUNIT_ASSERT(fake::recvs().empty());
	}

	// The remote NIC would refuse these (and break the connection); the
	// emulated flush reads 8 bytes at the offset, which must lie inside too.
	void ranges_beyond_the_remote_region_are_refused()
	{
		connect();
		apply_direct_write(true);
		const int always = RPMA_F_COMPLETION_ALWAYS;
		const size_t size = 4096;         // of `remote`
		const size_t huge = SIZE_MAX - 7; // 8-byte aligned
		for (auto [offset, len] :
		     {std::pair<size_t, size_t>{size - 4, 8}, {size + 8, 0}, {huge, 16}}) {
			const std::string what = std::to_string(offset) + "+" + std::to_string(len);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what, RPMA_E_INVAL,
						     rpma_read(conn, local, 0, remote, offset, len,
							       always, ctx));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what, RPMA_E_INVAL,
						     rpma_write(conn, remote, offset, local, 0, len,
								always, ctx));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what, RPMA_E_INVAL,
						     rpma_write_with_imm(conn, remote, offset,
									 local, 0, len, always, 1,
									 ctx));
			for (rpma_flush_type type :
			     {RPMA_FLUSH_TYPE_VISIBILITY, RPMA_FLUSH_TYPE_PERSISTENT})
				CPPUNIT_ASSERT_EQUAL_MESSAGE(what, RPMA_E_INVAL,
							     rpma_flush(conn, remote, offset, len,
									type, always, ctx));
		}
		// the flushed range must lie inside, and so must the 8-byte read
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_flush(conn, remote, 0, size + 1,
						RPMA_FLUSH_TYPE_VISIBILITY, always, ctx));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_flush(conn, remote, size - 4, 0,
						RPMA_FLUSH_TYPE_VISIBILITY, always, ctx));
		const char word[8] = {};
		for (size_t offset : {size, size + 8, huge}) {
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_atomic_write(conn, remote, offset,
									     word, always, ctx));
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
					     rpma_write_atomic(conn, remote, offset, local, 0,
							       always, ctx));
		}
		CPPUNIT_ASSERT(fake::sends().empty());
	}

	void ranges_ending_at_the_region_end_are_posted()
	{
		connect();
		const int always = RPMA_F_COMPLETION_ALWAYS;
		const size_t lsize = sizeof(buffer), rsize = 4096;
		const char word[8] = {};
		CPPUNIT_ASSERT_EQUAL(0, rpma_read(conn, local, lsize - 8, remote, rsize - 8, 8,
						  always, ctx));
		CPPUNIT_ASSERT_EQUAL(0, rpma_write(conn, remote, rsize - 8, local, lsize - 8, 8,
						   always, ctx));
		CPPUNIT_ASSERT_EQUAL(0,
				     rpma_write(conn, remote, rsize, local, lsize, 0, always, ctx));
		CPPUNIT_ASSERT_EQUAL(0, rpma_send(conn, local, lsize - 8, 8, always, ctx));
		CPPUNIT_ASSERT_EQUAL(0, rpma_recv(conn, local, lsize - 8, 8, ctx));
		CPPUNIT_ASSERT_EQUAL(0,
				     rpma_atomic_write(conn, remote, rsize - 8, word, always, ctx));
		CPPUNIT_ASSERT_EQUAL(0, rpma_write_atomic(conn, remote, rsize - 8, local, lsize - 8,
							  always, ctx));
		CPPUNIT_ASSERT_EQUAL(0, rpma_flush(conn, remote, rsize - 8, 8,
						   RPMA_FLUSH_TYPE_VISIBILITY, always, ctx));
		CPPUNIT_ASSERT_EQUAL(size_t{7}, fake::sends().size());
		CPPUNIT_ASSERT_EQUAL(RADDR + rsize - 8, fake::sends().back().remote_addr);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(DataPathTest);

} // namespace unit
