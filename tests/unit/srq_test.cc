// SPDX-License-Identifier: BSD-3-Clause
// rpma_srq_*: the shared receive queue, its own receive CQ and receives.
#include "fixture.hh"
#include "out_of_memory.hh"

namespace unit {

class SrqTest : public Fixture {
	CPPUNIT_TEST_SUITE(SrqTest);
	CPPUNIT_TEST(new_rejects_null);
	CPPUNIT_TEST(new_with_defaults);
	CPPUNIT_TEST(new_with_cfg_sizes);
	CPPUNIT_TEST(new_without_rcq);
	CPPUNIT_TEST(new_failures_release_everything);
	CPPUNIT_TEST(delete_rules);
	CPPUNIT_TEST(delete_destroys_rcq_then_srq);
	CPPUNIT_TEST(delete_failures_still_clear);
	CPPUNIT_TEST(get_rcq_rejects_null);
	CPPUNIT_TEST(rcq_fd_is_its_channel);
	CPPUNIT_TEST(recv_rejects_bad_arguments);
	CPPUNIT_TEST(recv_posts_one_sge);
	CPPUNIT_TEST(recv_zero_bytes);
	CPPUNIT_TEST(recv_failure_is_provider_error);
	CPPUNIT_TEST(recv_refuses_what_an_sge_cannot_hold);
	CPPUNIT_TEST(new_out_of_memory);
	CPPUNIT_TEST_SUITE_END();

	rpma_srq *const sentinel = reinterpret_cast<rpma_srq *>(0x1234);
	char buffer[64] = {};

	rpma_srq_cfg *make_srq_cfg(uint32_t rq_size, uint32_t rcq_size)
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_new(&srq_cfg));
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_set_rq_size(srq_cfg, rq_size));
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_set_rcq_size(srq_cfg, rcq_size));
		return srq_cfg;
	}

public:
	void new_rejects_null()
	{
		make_peer();
		rpma_srq *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_srq_new(nullptr, nullptr, &out));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_srq_new(peer, nullptr, nullptr));
	}

	void new_with_defaults()
	{
		make_srq();
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::srqs().size());
		const fake::SrqCreation &made = fake::srqs().back();
		CPPUNIT_ASSERT(made.srq);
		CPPUNIT_ASSERT(made.pd && made.pd->context == fake::context());
		CPPUNIT_ASSERT_EQUAL(uint32_t{20}, made.attr.attr.max_wr);
		CPPUNIT_ASSERT_EQUAL(uint32_t{1}, made.attr.attr.max_sge);
		CPPUNIT_ASSERT_EQUAL(uint32_t{0}, made.attr.attr.srq_limit);

		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::cqs().size());
		const fake::CqCreation &rcq = fake::cqs().back();
		CPPUNIT_ASSERT_EQUAL(20, rcq.cqe);
		CPPUNIT_ASSERT(rcq.channel);
		CPPUNIT_ASSERT_EQUAL(0, rcq.comp_vector);
		const auto armed = fake::cq_calls_of(fake::Call::ibv_req_notify_cq);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, armed.size());
		CPPUNIT_ASSERT(armed[0].cq == rcq.cq);
		CPPUNIT_ASSERT_EQUAL(0, armed[0].value);

		rpma_cq *got = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_get_rcq(srq, &got));
		CPPUNIT_ASSERT(got);
	}

	void new_with_cfg_sizes()
	{
		make_srq(make_srq_cfg(50, 30));
		CPPUNIT_ASSERT_EQUAL(uint32_t{50}, fake::srqs().back().attr.attr.max_wr);
		CPPUNIT_ASSERT_EQUAL(30, fake::cqs().back().cqe);
	}

	void new_without_rcq()
	{
		make_srq(make_srq_cfg(50, 0));
		CPPUNIT_ASSERT(fake::cqs().empty());
		CPPUNIT_ASSERT(fake::comp_channels().empty());
		rpma_cq *got = reinterpret_cast<rpma_cq *>(0x1234);
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_get_rcq(srq, &got));
		CPPUNIT_ASSERT(!got);
	}

	void new_failures_release_everything()
	{
		make_peer();
		for (fake::Call call :
		     {fake::Call::ibv_create_srq, fake::Call::ibv_create_comp_channel,
		      fake::Call::ibv_create_cq, fake::Call::ibv_req_notify_cq}) {
			fake::fail(call, EIO);
			rpma_srq *out = sentinel;
			CPPUNIT_ASSERT_EQUAL_MESSAGE(fake::name(call), RPMA_E_PROVIDER,
						     rpma_srq_new(peer, nullptr, &out));
			CPPUNIT_ASSERT(out == sentinel);
			// only the peer's PD is left
			CPPUNIT_ASSERT_EQUAL_MESSAGE(fake::name(call), std::string("1 ibv_pd"),
						     fake::live_objects());
		}
	}

	void delete_rules()
	{
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_srq_delete(nullptr));
		rpma_srq *none = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_delete(&none));
	}

	void delete_destroys_rcq_then_srq()
	{
		make_srq();
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_delete(&srq));
		CPPUNIT_ASSERT(!srq);
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd"), fake::live_objects());
	}

	void delete_failures_still_clear()
	{
		make_peer();
		for (fake::Call call :
		     {fake::Call::ibv_destroy_cq, fake::Call::ibv_destroy_comp_channel,
		      fake::Call::ibv_destroy_srq}) {
			make_srq();
			fake::fail(call, EIO);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(fake::name(call), RPMA_E_PROVIDER,
						     rpma_srq_delete(&srq));
			CPPUNIT_ASSERT(!srq);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(fake::name(call), std::string("1 ibv_pd"),
						     fake::live_objects());
		}
	}

	void get_rcq_rejects_null()
	{
		make_srq();
		rpma_cq *got = reinterpret_cast<rpma_cq *>(0x1234);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_srq_get_rcq(nullptr, &got));
		CPPUNIT_ASSERT(got == reinterpret_cast<rpma_cq *>(0x1234));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_srq_get_rcq(srq, nullptr));
	}

	void rcq_fd_is_its_channel()
	{
		make_srq();
		rpma_cq *rcq = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_get_rcq(srq, &rcq));
		int fd = -1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_cq_get_fd(rcq, &fd));
		CPPUNIT_ASSERT_EQUAL(fake::cqs().back().channel->fd, fd);
	}

	void recv_rejects_bad_arguments()
	{
		make_srq();
		rpma_mr_local *mr = register_mr(buffer, sizeof(buffer), RPMA_MR_USAGE_RECV);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_srq_recv(nullptr, mr, 0, 8, nullptr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_srq_recv(srq, nullptr, 0, 8, nullptr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_srq_recv(srq, nullptr, 8, 0, nullptr));
		CPPUNIT_ASSERT(fake::recvs().empty());
	}

	void recv_posts_one_sge()
	{
		make_srq();
		rpma_mr_local *mr = register_mr(buffer, sizeof(buffer), RPMA_MR_USAGE_RECV);
		int context = 0;
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_recv(srq, mr, 8, 32, &context));
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::recvs().size());
		const fake::RecvWr &wr = fake::recvs().back();
		CPPUNIT_ASSERT(wr.srq == fake::srqs().back().srq);
		CPPUNIT_ASSERT(!wr.qp);
		CPPUNIT_ASSERT_EQUAL(uint64_t(reinterpret_cast<uintptr_t>(&context)), wr.wr_id);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, wr.chain_length);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, wr.sges.size());
		CPPUNIT_ASSERT_EQUAL(uint64_t(reinterpret_cast<uintptr_t>(buffer + 8)),
				     wr.sges[0].addr);
		CPPUNIT_ASSERT_EQUAL(uint32_t{32}, wr.sges[0].length);
		CPPUNIT_ASSERT_EQUAL(registration_of(mr).mr->lkey, wr.sges[0].lkey);
	}

	void recv_zero_bytes()
	{
		make_srq();
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_recv(srq, nullptr, 0, 0, nullptr));
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::recvs().size());
		CPPUNIT_ASSERT(fake::recvs().back().sges.empty());
		CPPUNIT_ASSERT_EQUAL(uint64_t{0}, fake::recvs().back().wr_id);
	}

	void recv_failure_is_provider_error()
	{
		make_srq();
		fake::fail(fake::Call::ibv_post_srq_recv, ENOMEM);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_srq_recv(srq, nullptr, 0, 0, nullptr));
	}

	// 4 GiB would be posted as a 0-byte receive; a range past the region
	// would fail only when a message arrives.
	void recv_refuses_what_an_sge_cannot_hold()
	{
		make_srq();
		receive_refuses_what_an_sge_cannot_hold(
			[this](rpma_mr_local *mr, size_t offset, size_t len) {
				return rpma_srq_recv(srq, mr, offset, len, nullptr);
			},
			buffer, sizeof(buffer));
	}

	void new_out_of_memory()
	{
		make_peer();
		rpma_srq *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOMEM, out_of_memory([&] {
					     return rpma_srq_new(peer, nullptr, &out);
				     }));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd"), fake::live_objects());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(SrqTest);

} // namespace unit
