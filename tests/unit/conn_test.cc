// SPDX-License-Identifier: BSD-3-Clause
// rpma_conn_* (but the data path): events, private data, queues, the shared
// completion channel, disconnection and deletion.
#include "fixture.hh"
#include "out_of_memory.hh"

namespace unit {

class ConnTest : public Fixture {
	CPPUNIT_TEST_SUITE(ConnTest);
	CPPUNIT_TEST(getters_reject_null);
	CPPUNIT_TEST(event_fd_is_own_channel);
	CPPUNIT_TEST(next_event_rejects_null);
	CPPUNIT_TEST(next_event_maps_cm_events);
	CPPUNIT_TEST(next_event_rejects_unexpected_events);
	CPPUNIT_TEST(next_event_maps_get_event_errno);
	CPPUNIT_TEST(next_event_ack_failure);
	CPPUNIT_TEST(active_side_keeps_first_established_data);
	CPPUNIT_TEST(ack_failure_discards_established_data);
	CPPUNIT_TEST(passive_side_keeps_request_data);
	CPPUNIT_TEST(private_data_empty_without_any);
	CPPUNIT_TEST(qp_num_is_the_qps);
	CPPUNIT_TEST(cq_and_no_rcq_by_default);
	CPPUNIT_TEST(rcq_when_configured);
	CPPUNIT_TEST(no_rcq_when_srq_has_one);
	CPPUNIT_TEST(compl_fd_needs_shared_channel);
	CPPUNIT_TEST(compl_fd_is_shared_channel_fd);
	CPPUNIT_TEST(wait_rejects_bad_arguments);
	CPPUNIT_TEST(wait_needs_shared_channel);
	CPPUNIT_TEST(wait_reports_cq_and_rearms_it);
	CPPUNIT_TEST(wait_reports_rcq);
	CPPUNIT_TEST(wait_without_event_is_no_completion);
	CPPUNIT_TEST(wait_on_foreign_cq_is_unknown);
	CPPUNIT_TEST(wait_rearm_failure_clears_cq);
	CPPUNIT_TEST(apply_remote_peer_cfg_rejects_null);
	CPPUNIT_TEST(disconnect);
	CPPUNIT_TEST(disconnect_failure);
	CPPUNIT_TEST(delete_rules);
	CPPUNIT_TEST(delete_releases_everything);
	CPPUNIT_TEST(delete_failures_still_clear);
	CPPUNIT_TEST(delete_destroys_the_qp_before_deregistering);
	CPPUNIT_TEST(next_event_out_of_memory);
	CPPUNIT_TEST_SUITE_END();

	rpma_conn_cfg *shared_cfg(uint32_t rcq_size)
	{
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_compl_channel(conn_cfg, true));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_rcq_size(conn_cfg, rcq_size));
		return conn_cfg;
	}

	rpma_cq *conn_cq()
	{
		rpma_cq *cq = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_get_cq(conn, &cq));
		return cq;
	}

	rpma_cq *conn_rcq()
	{
		rpma_cq *rcq = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_get_rcq(conn, &rcq));
		return rcq;
	}

	rpma_conn_event next_event()
	{
		rpma_conn_event event = RPMA_CONN_UNDEFINED;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_next_event(conn, &event));
		return event;
	}

	std::vector<uint8_t> private_data()
	{
		rpma_conn_private_data pdata{nullptr, 0};
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_get_private_data(conn, &pdata));
		CPPUNIT_ASSERT_EQUAL(pdata.len == 0, pdata.ptr == nullptr);
		const auto *bytes = static_cast<const uint8_t *>(pdata.ptr);
		return std::vector<uint8_t>(bytes, bytes + pdata.len);
	}

	static bool unacked_cm_events()
	{
		return fake::live_objects().find("rdma_cm_event") != std::string::npos;
	}

public:
	void getters_reject_null()
	{
		make_conn();
		int fd = -7;
		uint32_t qp_num = 7;
		rpma_cq *cq = reinterpret_cast<rpma_cq *>(0x1234);
		rpma_conn_private_data pdata{&fd, 3};
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_get_event_fd(nullptr, &fd));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_get_event_fd(conn, nullptr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_get_compl_fd(nullptr, &fd));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_get_compl_fd(conn, nullptr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_get_qp_num(nullptr, &qp_num));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_get_qp_num(conn, nullptr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_get_cq(nullptr, &cq));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_get_cq(conn, nullptr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_get_rcq(nullptr, &cq));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_get_rcq(conn, nullptr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_get_private_data(nullptr, &pdata));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_get_private_data(conn, nullptr));
		CPPUNIT_ASSERT_EQUAL(-7, fd);
		CPPUNIT_ASSERT_EQUAL(uint32_t{7}, qp_num);
		CPPUNIT_ASSERT(cq == reinterpret_cast<rpma_cq *>(0x1234));
		CPPUNIT_ASSERT(pdata.ptr == &fd && pdata.len == 3);
	}

	void event_fd_is_own_channel()
	{
		make_conn();
		int fd = -1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_get_event_fd(conn, &fd));
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::event_channels().size());
		CPPUNIT_ASSERT_EQUAL(fake::event_channels()[0]->fd, fd);
	}

	void next_event_rejects_null()
	{
		make_conn();
		rpma_conn_event event = RPMA_CONN_UNDEFINED;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_next_event(nullptr, &event));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_next_event(conn, nullptr));
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::rdma_get_cm_event));
	}

	void next_event_maps_cm_events()
	{
		make_conn();
		const struct {
			rdma_cm_event_type cm;
			rpma_conn_event rpma;
		} cases[] = {
			{RDMA_CM_EVENT_ESTABLISHED, RPMA_CONN_ESTABLISHED},
			{RDMA_CM_EVENT_CONNECT_ERROR, RPMA_CONN_LOST},
			{RDMA_CM_EVENT_DEVICE_REMOVAL, RPMA_CONN_LOST},
			{RDMA_CM_EVENT_DISCONNECTED, RPMA_CONN_CLOSED},
			{RDMA_CM_EVENT_TIMEWAIT_EXIT, RPMA_CONN_CLOSED},
			{RDMA_CM_EVENT_REJECTED, RPMA_CONN_REJECTED},
			{RDMA_CM_EVENT_UNREACHABLE, RPMA_CONN_UNREACHABLE},
		};
		for (const auto &c : cases) {
			fake::queue_cm_event(c.cm);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(rdma_event_str(c.cm), c.rpma, next_event());
			CPPUNIT_ASSERT(!unacked_cm_events());
		}
		CPPUNIT_ASSERT(LogCapture::contains(RPMA_LOG_LEVEL_NOTICE, "Connection closed"));
	}

	void next_event_rejects_unexpected_events()
	{
		make_conn();
		for (rdma_cm_event_type type :
		     {RDMA_CM_EVENT_ADDR_ERROR, RDMA_CM_EVENT_ROUTE_ERROR,
		      RDMA_CM_EVENT_ADDR_CHANGE, RDMA_CM_EVENT_CONNECT_RESPONSE}) {
			fake::queue_cm_event(type);
			rpma_conn_event event = RPMA_CONN_LOST;
			CPPUNIT_ASSERT_EQUAL(RPMA_E_UNKNOWN, rpma_conn_next_event(conn, &event));
			CPPUNIT_ASSERT_EQUAL(RPMA_CONN_LOST, event);
			CPPUNIT_ASSERT(!unacked_cm_events());
		}
		CPPUNIT_ASSERT(LogCapture::contains(RPMA_LOG_LEVEL_WARNING, ""));
	}

	void next_event_maps_get_event_errno()
	{
		make_conn();
		const struct {
			int err;
			int expected;
		} cases[] = {
			{ENODATA, RPMA_E_NO_EVENT},     {EAGAIN, RPMA_E_NO_EVENT},
			{EWOULDBLOCK, RPMA_E_NO_EVENT}, {EIO, RPMA_E_PROVIDER},
			{EBADF, RPMA_E_PROVIDER},
		};
		for (const auto &c : cases) {
			fake::queue_cm_event(RDMA_CM_EVENT_ESTABLISHED);
			fake::fail(fake::Call::rdma_get_cm_event, c.err);
			rpma_conn_event event = RPMA_CONN_LOST;
			CPPUNIT_ASSERT_EQUAL(c.expected, rpma_conn_next_event(conn, &event));
			CPPUNIT_ASSERT_EQUAL(RPMA_CONN_LOST, event);
			// the event stays queued for the next call
			CPPUNIT_ASSERT_EQUAL(RPMA_CONN_ESTABLISHED, next_event());
		}
		// nothing pending on a non-blocking channel
		rpma_conn_event event = RPMA_CONN_LOST;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NO_EVENT, rpma_conn_next_event(conn, &event));
	}

	void next_event_ack_failure()
	{
		make_conn();
		fake::queue_cm_event(RDMA_CM_EVENT_DISCONNECTED);
		fake::fail(fake::Call::rdma_ack_cm_event, EIO);
		rpma_conn_event event = RPMA_CONN_LOST;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_conn_next_event(conn, &event));
		CPPUNIT_ASSERT_EQUAL(RPMA_CONN_LOST, event);
	}

	void active_side_keeps_first_established_data()
	{
		make_conn();
		CPPUNIT_ASSERT(private_data().empty());
		const std::vector<uint8_t> accepted = {3, 1, 4, 1, 5};
		fake::queue_cm_event(RDMA_CM_EVENT_ESTABLISHED, accepted);
		CPPUNIT_ASSERT_EQUAL(RPMA_CONN_ESTABLISHED, next_event());
		// a copy: the event's buffer is gone (poisoned) after the ack
		CPPUNIT_ASSERT(accepted == private_data());
		fake::queue_cm_event(RDMA_CM_EVENT_ESTABLISHED, {9, 9});
		CPPUNIT_ASSERT_EQUAL(RPMA_CONN_ESTABLISHED, next_event());
		CPPUNIT_ASSERT(accepted == private_data());
	}

	void ack_failure_discards_established_data()
	{
		make_conn();
		fake::queue_cm_event(RDMA_CM_EVENT_ESTABLISHED, {1, 2, 3});
		fake::fail(fake::Call::rdma_ack_cm_event, EIO);
		rpma_conn_event event = RPMA_CONN_UNDEFINED;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_conn_next_event(conn, &event));
		CPPUNIT_ASSERT(private_data().empty());
	}

	void passive_side_keeps_request_data()
	{
		const std::vector<uint8_t> from_client = {7, 7, 7};
		make_incoming_req(nullptr, from_client);
		connect_req();
		fake::queue_cm_event(RDMA_CM_EVENT_ESTABLISHED, {1, 2});
		CPPUNIT_ASSERT_EQUAL(RPMA_CONN_ESTABLISHED, next_event());
		CPPUNIT_ASSERT(from_client == private_data());
	}

	void private_data_empty_without_any()
	{
		make_conn();
		fake::queue_cm_event(RDMA_CM_EVENT_ESTABLISHED);
		CPPUNIT_ASSERT_EQUAL(RPMA_CONN_ESTABLISHED, next_event());
		CPPUNIT_ASSERT(private_data().empty());
	}

	void qp_num_is_the_qps()
	{
		make_conn();
		uint32_t qp_num = 0;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_get_qp_num(conn, &qp_num));
		CPPUNIT_ASSERT_EQUAL(last_qp()->qp_num, qp_num);
	}

	void cq_and_no_rcq_by_default()
	{
		make_conn();
		rpma_cq *cq = conn_cq();
		CPPUNIT_ASSERT(cq);
		CPPUNIT_ASSERT(!conn_rcq());
		int fd = -1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_cq_get_fd(cq, &fd));
		CPPUNIT_ASSERT_EQUAL(last_qp()->send_cq->channel->fd, fd);
	}

	void rcq_when_configured()
	{
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_rcq_size(conn_cfg, 4));
		make_conn(conn_cfg);
		rpma_cq *rcq = conn_rcq();
		CPPUNIT_ASSERT(rcq);
		CPPUNIT_ASSERT(rcq != conn_cq());
		int fd = -1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_cq_get_fd(rcq, &fd));
		CPPUNIT_ASSERT_EQUAL(last_qp()->recv_cq->channel->fd, fd);
	}

	void no_rcq_when_srq_has_one()
	{
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_rcq_size(conn_cfg, 4));
		make_srq();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_srq(conn_cfg, srq));
		make_conn(conn_cfg);
		CPPUNIT_ASSERT(!conn_rcq());
	}

	void compl_fd_needs_shared_channel()
	{
		make_conn();
		int fd = -7;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOT_SHARED_CHNL, rpma_conn_get_compl_fd(conn, &fd));
		CPPUNIT_ASSERT_EQUAL(-7, fd);
	}

	void compl_fd_is_shared_channel_fd()
	{
		make_conn(shared_cfg(4));
		int fd = -1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_get_compl_fd(conn, &fd));
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::comp_channels().size());
		CPPUNIT_ASSERT_EQUAL(fake::comp_channels()[0]->fd, fd);
		int cq_fd = -1;
		int rcq_fd = -1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_cq_get_fd(conn_cq(), &cq_fd));
		CPPUNIT_ASSERT_EQUAL(0, rpma_cq_get_fd(conn_rcq(), &rcq_fd));
		CPPUNIT_ASSERT_EQUAL(fd, cq_fd);
		CPPUNIT_ASSERT_EQUAL(fd, rcq_fd);
	}

	void wait_rejects_bad_arguments()
	{
		make_conn(shared_cfg(0));
		rpma_cq *cq = nullptr;
		bool is_rcq = true;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_wait(nullptr, 0, &cq, &is_rcq));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_wait(conn, 0, nullptr, &is_rcq));
		CPPUNIT_ASSERT(is_rcq);
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::ibv_get_cq_event));
	}

	void wait_needs_shared_channel()
	{
		make_conn();
		rpma_cq *cq = reinterpret_cast<rpma_cq *>(0x1234);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOT_SHARED_CHNL, rpma_conn_wait(conn, 0, &cq, nullptr));
		CPPUNIT_ASSERT(cq == reinterpret_cast<rpma_cq *>(0x1234));
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::ibv_get_cq_event));
	}

	void wait_reports_cq_and_rearms_it()
	{
		make_conn(shared_cfg(4));
		ibv_cq *cq = last_qp()->send_cq;
		fake::queue_cq_event(cq);
		const size_t armed_before = fake::cq_calls_of(fake::Call::ibv_req_notify_cq).size();
		rpma_cq *got = nullptr;
		bool is_rcq = true;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_wait(conn, 0, &got, &is_rcq));
		CPPUNIT_ASSERT(got == conn_cq());
		CPPUNIT_ASSERT(!is_rcq);
		CPPUNIT_ASSERT_EQUAL(0u, fake::unacked_cq_events(cq));
		const auto armed = fake::cq_calls_of(fake::Call::ibv_req_notify_cq);
		CPPUNIT_ASSERT_EQUAL(armed_before + 1, armed.size());
		CPPUNIT_ASSERT(armed.back().cq == cq);
		CPPUNIT_ASSERT_EQUAL(0, armed.back().value);
	}

	void wait_reports_rcq()
	{
		make_conn(shared_cfg(4));
		ibv_cq *rcq = last_qp()->recv_cq;
		fake::queue_cq_event(rcq);
		rpma_cq *got = nullptr;
		bool is_rcq = false;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_wait(conn, 0, &got, &is_rcq));
		CPPUNIT_ASSERT(got == conn_rcq());
		CPPUNIT_ASSERT(is_rcq);
		// is_rcq may be NULL
		fake::queue_cq_event(rcq);
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_wait(conn, 0, &got, nullptr));
		CPPUNIT_ASSERT_EQUAL(0u, fake::unacked_cq_events(rcq));
		CPPUNIT_ASSERT(fake::cq_calls_of(fake::Call::ibv_req_notify_cq).back().cq == rcq);
	}

	void wait_without_event_is_no_completion()
	{
		make_conn(shared_cfg(0));
		rpma_cq *got = reinterpret_cast<rpma_cq *>(0x1234);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NO_COMPLETION, rpma_conn_wait(conn, 0, &got, nullptr));
		CPPUNIT_ASSERT(got == reinterpret_cast<rpma_cq *>(0x1234));
		fake::queue_cq_event(last_qp()->send_cq);
		fake::fail(fake::Call::ibv_get_cq_event, EIO);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NO_COMPLETION, rpma_conn_wait(conn, 0, &got, nullptr));
		CPPUNIT_ASSERT(got == reinterpret_cast<rpma_cq *>(0x1234));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_wait(conn, 0, &got, nullptr));
	}

	void wait_on_foreign_cq_is_unknown()
	{
		make_conn(shared_cfg(0));
		ibv_cq *foreign = ibv_create_cq(fake::context(), 1, nullptr,
						fake::comp_channels()[0], 0);
		fake::queue_cq_event(foreign);
		rpma_cq *got = reinterpret_cast<rpma_cq *>(0x1234);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_UNKNOWN, rpma_conn_wait(conn, 0, &got, nullptr));
		CPPUNIT_ASSERT(got == reinterpret_cast<rpma_cq *>(0x1234));
		// whoever owns that CQ acknowledges what the library left
		if (unsigned unacked = fake::unacked_cq_events(foreign))
			ibv_ack_cq_events(foreign, unacked);
		CPPUNIT_ASSERT_EQUAL(0, ibv_destroy_cq(foreign));
	}

	void wait_rearm_failure_clears_cq()
	{
		make_conn(shared_cfg(4));
		fake::queue_cq_event(last_qp()->recv_cq);
		fake::fail(fake::Call::ibv_req_notify_cq, EIO);
		rpma_cq *got = conn_cq();
		bool is_rcq = false;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_conn_wait(conn, 0, &got, &is_rcq));
		CPPUNIT_ASSERT(!got);
		CPPUNIT_ASSERT(is_rcq);
		CPPUNIT_ASSERT_EQUAL(0u, fake::unacked_cq_events(last_qp()->recv_cq));
	}

	void apply_remote_peer_cfg_rejects_null()
	{
		make_conn();
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_new(&peer_cfg));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_conn_apply_remote_peer_cfg(nullptr, peer_cfg));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_apply_remote_peer_cfg(conn, nullptr));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_apply_remote_peer_cfg(conn, peer_cfg));
	}

	void disconnect()
	{
		make_conn();
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_disconnect(nullptr));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_disconnect(conn));
		const auto disconnected = fake::id_calls_of(fake::Call::rdma_disconnect);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, disconnected.size());
		CPPUNIT_ASSERT(disconnected[0].id == fake::qps()[0].id);
		CPPUNIT_ASSERT(LogCapture::contains(RPMA_LOG_LEVEL_NOTICE, "isconnect"));
	}

	void disconnect_failure()
	{
		make_conn();
		fake::fail(fake::Call::rdma_disconnect, EINVAL);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_conn_disconnect(conn));
	}

	void delete_rules()
	{
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_delete(nullptr));
		rpma_conn *none = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_delete(&none));
	}

	void delete_releases_everything()
	{
		make_conn(shared_cfg(4));
		fake::queue_cm_event(RDMA_CM_EVENT_ESTABLISHED, {1, 2, 3});
		CPPUNIT_ASSERT_EQUAL(RPMA_CONN_ESTABLISHED, next_event());
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_delete(&conn));
		CPPUNIT_ASSERT(!conn);
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::rdma_destroy_qp));
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::rdma_destroy_id));
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd"), fake::live_objects());
	}

	// the flush sink stays registered while a flush may still write into it
	void delete_destroys_the_qp_before_deregistering()
	{
		make_conn();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_delete(&conn));
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::ibv_dereg_mr));
		CPPUNIT_ASSERT(fake::first_index(fake::Call::rdma_destroy_qp) <
			       fake::first_index(fake::Call::ibv_dereg_mr));
	}

	void delete_failures_still_clear()
	{
		for (fake::Call call :
		     {fake::Call::ibv_dereg_mr, fake::Call::ibv_destroy_cq,
		      fake::Call::ibv_destroy_comp_channel, fake::Call::rdma_destroy_id}) {
			make_conn();
			fake::fail(call, EIO);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(fake::name(call), RPMA_E_PROVIDER,
						     rpma_conn_delete(&conn));
			CPPUNIT_ASSERT(!conn);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(fake::name(call), std::string("1 ibv_pd"),
						     fake::live_objects());
			CPPUNIT_ASSERT_EQUAL(0, rpma_peer_delete(&peer));
		}
	}

	// No room for the peer's private data: the event is acknowledged and
	// lost, as upstream's is.
	void next_event_out_of_memory()
	{
		make_conn();
		const std::vector<uint8_t> accepted(77, 1);
		fake::queue_cm_event(RDMA_CM_EVENT_ESTABLISHED, accepted);
		rpma_conn_event event = RPMA_CONN_UNDEFINED;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOMEM, out_of_memory_for(accepted.size(), [&] {
					     return rpma_conn_next_event(conn, &event);
				     }));
		CPPUNIT_ASSERT_EQUAL(RPMA_CONN_UNDEFINED, event);
		CPPUNIT_ASSERT(private_data().empty());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnTest);

} // namespace unit
