// SPDX-License-Identifier: BSD-3-Clause
// rpma_cq_*: the fd, waiting for an event and polling completions.
#include "fixture.hh"

namespace unit {

class CqTest : public Fixture {
	CPPUNIT_TEST_SUITE(CqTest);
	CPPUNIT_TEST(get_fd_rejects_null);
	CPPUNIT_TEST(get_fd_is_channel_fd);
	CPPUNIT_TEST(wait_rejects_null);
	CPPUNIT_TEST(wait_acks_and_rearms);
	CPPUNIT_TEST(wait_without_event_is_no_completion);
	CPPUNIT_TEST(wait_rearm_failure_is_provider_error);
	CPPUNIT_TEST(wait_on_shared_channel_is_refused);
	CPPUNIT_TEST(get_wc_rejects_bad_arguments);
	CPPUNIT_TEST(get_wc_returns_polled_completions);
	CPPUNIT_TEST(get_wc_single_without_count);
	CPPUNIT_TEST(get_wc_empty_is_no_completion);
	CPPUNIT_TEST(get_wc_poll_failure_is_provider_error);
	CPPUNIT_TEST(get_wc_too_many_is_unknown);
	CPPUNIT_TEST_SUITE_END();

	rpma_cq *cq = nullptr;
	ibv_cq *ibv = nullptr;

	void make_cq(bool shared = false)
	{
		if (shared) {
			make_conn_cfg();
			CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_compl_channel(conn_cfg, true));
		}
		make_conn(conn_cfg);
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_get_cq(conn, &cq));
		ibv = last_qp()->send_cq;
	}

	static ibv_wc completion(uint64_t wr_id, ibv_wc_opcode opcode)
	{
		ibv_wc wc{};
		wc.wr_id = wr_id;
		wc.opcode = opcode;
		wc.status = IBV_WC_SUCCESS;
		wc.byte_len = 8;
		wc.qp_num = 0x1234;
		return wc;
	}

public:
	void get_fd_rejects_null()
	{
		make_cq();
		int fd = -7;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_cq_get_fd(nullptr, &fd));
		CPPUNIT_ASSERT_EQUAL(-7, fd);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_cq_get_fd(cq, nullptr));
	}

	void get_fd_is_channel_fd()
	{
		make_cq();
		int fd = -1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_cq_get_fd(cq, &fd));
		CPPUNIT_ASSERT_EQUAL(ibv->channel->fd, fd);
	}

	void wait_rejects_null() { CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_cq_wait(nullptr)); }

	void wait_acks_and_rearms()
	{
		make_cq();
		fake::queue_cq_event(ibv);
		const size_t armed_before = fake::cq_calls_of(fake::Call::ibv_req_notify_cq).size();
		CPPUNIT_ASSERT_EQUAL(0, rpma_cq_wait(cq));
		const auto acked = fake::cq_calls_of(fake::Call::ibv_ack_cq_events);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, acked.size());
		CPPUNIT_ASSERT(acked[0].cq == ibv);
		CPPUNIT_ASSERT_EQUAL(1, acked[0].value);
		const auto armed = fake::cq_calls_of(fake::Call::ibv_req_notify_cq);
		CPPUNIT_ASSERT_EQUAL(armed_before + 1, armed.size());
		CPPUNIT_ASSERT(armed.back().cq == ibv);
		CPPUNIT_ASSERT_EQUAL(0, armed.back().value);
	}

	void wait_without_event_is_no_completion()
	{
		// a non-blocking channel with nothing pending (EAGAIN)
		make_cq();
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NO_COMPLETION, rpma_cq_wait(cq));
		fake::queue_cq_event(ibv);
		fake::fail(fake::Call::ibv_get_cq_event, EIO);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NO_COMPLETION, rpma_cq_wait(cq));
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::ibv_ack_cq_events));
	}

	void wait_rearm_failure_is_provider_error()
	{
		make_cq();
		fake::queue_cq_event(ibv);
		fake::fail(fake::Call::ibv_req_notify_cq, EIO);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_cq_wait(cq));
		CPPUNIT_ASSERT_EQUAL(0u, fake::unacked_cq_events(ibv));
	}

	void wait_on_shared_channel_is_refused()
	{
		make_cq(true);
		fake::queue_cq_event(ibv);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_SHARED_CHANNEL, rpma_cq_wait(cq));
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::ibv_get_cq_event));
	}

	void get_wc_rejects_bad_arguments()
	{
		make_cq();
		ibv_wc wc[2];
		int got = 77;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_cq_get_wc(nullptr, 1, wc, &got));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_cq_get_wc(cq, 1, nullptr, &got));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_cq_get_wc(cq, 0, wc, &got));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_cq_get_wc(cq, -1, wc, &got));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_cq_get_wc(cq, 2, wc, nullptr));
		CPPUNIT_ASSERT_EQUAL(77, got);
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::ibv_poll_cq));
	}

	void get_wc_returns_polled_completions()
	{
		make_cq();
		fake::queue_wc(ibv, completion(11, IBV_WC_RDMA_READ));
		fake::queue_wc(ibv, completion(22, IBV_WC_SEND));
		fake::queue_wc(ibv, completion(33, IBV_WC_RDMA_WRITE));
		ibv_wc wc[5] = {};
		int got = 0;
		CPPUNIT_ASSERT_EQUAL(0, rpma_cq_get_wc(cq, 2, wc, &got));
		CPPUNIT_ASSERT_EQUAL(2, got);
		CPPUNIT_ASSERT_EQUAL(uint64_t{11}, wc[0].wr_id);
		CPPUNIT_ASSERT_EQUAL(IBV_WC_RDMA_READ, wc[0].opcode);
		CPPUNIT_ASSERT_EQUAL(uint64_t{22}, wc[1].wr_id);
		CPPUNIT_ASSERT_EQUAL(uint32_t{0x1234}, wc[1].qp_num);
		const auto polls = fake::cq_calls_of(fake::Call::ibv_poll_cq);
		CPPUNIT_ASSERT(polls.back().cq == ibv);
		CPPUNIT_ASSERT_EQUAL(2, polls.back().value);
		CPPUNIT_ASSERT_EQUAL(0, rpma_cq_get_wc(cq, 5, wc, &got));
		CPPUNIT_ASSERT_EQUAL(1, got);
		CPPUNIT_ASSERT_EQUAL(uint64_t{33}, wc[0].wr_id);
	}

	void get_wc_single_without_count()
	{
		make_cq();
		fake::queue_wc(ibv, completion(44, IBV_WC_RECV));
		ibv_wc wc{};
		CPPUNIT_ASSERT_EQUAL(0, rpma_cq_get_wc(cq, 1, &wc, nullptr));
		CPPUNIT_ASSERT_EQUAL(uint64_t{44}, wc.wr_id);
	}

	void get_wc_empty_is_no_completion()
	{
		make_cq();
		ibv_wc wc{};
		int got = 77;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NO_COMPLETION, rpma_cq_get_wc(cq, 1, &wc, &got));
		CPPUNIT_ASSERT_EQUAL(77, got);
	}

	void get_wc_poll_failure_is_provider_error()
	{
		make_cq();
		fake::fail(fake::Call::ibv_poll_cq, EIO);
		ibv_wc wc{};
		int got = 77;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_cq_get_wc(cq, 1, &wc, &got));
		CPPUNIT_ASSERT_EQUAL(77, got);
	}

	void get_wc_too_many_is_unknown()
	{
		make_cq();
		fake::next_poll_returns(3);
		ibv_wc wc[2] = {};
		int got = 77;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_UNKNOWN, rpma_cq_get_wc(cq, 2, wc, &got));
		CPPUNIT_ASSERT_EQUAL(77, got);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(CqTest);

} // namespace unit
