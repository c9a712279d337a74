// SPDX-License-Identifier: BSD-3-Clause
// rpma_conn_req_*: the active side's request (address and route resolution,
// CQs, QP), early receives, private data, connect/accept and deletion.
#include <arpa/inet.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "conn.hh"
#include "fixture.hh"
#include "out_of_memory.hh"

namespace unit {

class ConnReqTest : public Fixture {
	CPPUNIT_TEST_SUITE(ConnReqTest);
	CPPUNIT_TEST(new_rejects_null);
	CPPUNIT_TEST(new_resolves_synchronously);
	CPPUNIT_TEST(new_uses_cfg_timeout);
	CPPUNIT_TEST(new_creates_armed_cq_and_rc_qp);
	CPPUNIT_TEST(new_uses_cfg_sizes);
	CPPUNIT_TEST(new_clips_cq_size_to_int_max);
	CPPUNIT_TEST(new_with_rcq_has_own_channels);
	CPPUNIT_TEST(new_with_shared_channel);
	CPPUNIT_TEST(new_with_shared_channel_and_rcq);
	CPPUNIT_TEST(new_with_srq_without_rcq);
	CPPUNIT_TEST(new_with_srq_without_rcq_uses_own_rcq);
	CPPUNIT_TEST(new_with_srq_rcq_uses_it);
	CPPUNIT_TEST(new_rejects_shared_channel_with_srq_rcq);
	CPPUNIT_TEST(new_failures_release_everything);
	CPPUNIT_TEST(new_shared_channel_failure);
	CPPUNIT_TEST(new_logs_notice);
	CPPUNIT_TEST(delete_rules);
	CPPUNIT_TEST(delete_active_destroys_without_reject);
	CPPUNIT_TEST(delete_passive_rejects_then_destroys);
	CPPUNIT_TEST(delete_failures_still_clear);
	CPPUNIT_TEST(recv_rejects_null);
	CPPUNIT_TEST(recv_posts_to_qp);
	CPPUNIT_TEST(recv_failure_is_provider_error);
	CPPUNIT_TEST(recv_refuses_what_an_sge_cannot_hold);
	CPPUNIT_TEST(private_data_rejects_null);
	CPPUNIT_TEST(private_data_of_active_is_empty);
	CPPUNIT_TEST(private_data_of_passive_without_data_is_empty);
	CPPUNIT_TEST(connect_rejects_null_request);
	CPPUNIT_TEST(connect_consumes_request_on_bad_arguments);
	CPPUNIT_TEST(connect_active);
	CPPUNIT_TEST(connect_passive_accepts);
	CPPUNIT_TEST(connect_passes_private_data);
	CPPUNIT_TEST(connect_registers_flush_buffer);
	CPPUNIT_TEST(flush_buffer_takes_remote_write_on_iwarp);
	CPPUNIT_TEST(flush_buffer_has_pages_of_its_own);
	CPPUNIT_TEST(connect_failures_consume_request);
	CPPUNIT_TEST(new_out_of_memory);
	CPPUNIT_TEST(connect_out_of_memory);
	CPPUNIT_TEST_SUITE_END();

	rpma_conn_req *const sentinel = reinterpret_cast<rpma_conn_req *>(0x1234);
	rpma_conn *const conn_sentinel = reinterpret_cast<rpma_conn *>(0x1234);
	char buffer[64] = {};

	const fake::QpCreation &the_qp()
	{
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::qps().size());
		return fake::qps()[0];
	}

	rpma_conn_cfg *cfg_with(bool shared, uint32_t rcq_size)
	{
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_compl_channel(conn_cfg, shared));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_rcq_size(conn_cfg, rcq_size));
		return conn_cfg;
	}

	void attach_srq(uint32_t srq_rcq_size)
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_new(&srq_cfg));
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_set_rcq_size(srq_cfg, srq_rcq_size));
		make_srq(srq_cfg);
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_srq(conn_cfg, srq));
	}

	static void check_conn_param(const fake::ConnParam &param)
	{
		CPPUNIT_ASSERT(param.given);
		CPPUNIT_ASSERT_EQUAL(uint8_t{RDMA_MAX_RESP_RES}, param.param.responder_resources);
		CPPUNIT_ASSERT_EQUAL(uint8_t{RDMA_MAX_INIT_DEPTH}, param.param.initiator_depth);
		CPPUNIT_ASSERT_EQUAL(uint8_t{0xff}, param.param.responder_resources);
		CPPUNIT_ASSERT_EQUAL(uint8_t{1}, param.param.flow_control);
		CPPUNIT_ASSERT_EQUAL(uint8_t{7}, param.param.retry_count);
		CPPUNIT_ASSERT_EQUAL(uint8_t{7}, param.param.rnr_retry_count);
	}

public:
	void new_rejects_null()
	{
		make_peer();
		rpma_conn_req *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_conn_req_new(nullptr, address, service, nullptr, &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_conn_req_new(peer, nullptr, service, nullptr, &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_conn_req_new(peer, address, nullptr, nullptr, &out));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_conn_req_new(peer, address, service, nullptr, nullptr));
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::rdma_getaddrinfo));
	}

	void new_resolves_synchronously()
	{
		make_outgoing_req();
		CPPUNIT_ASSERT(req);
		const fake::AddrInfoQuery &query = fake::addrinfo_queries().at(0);
		CPPUNIT_ASSERT_EQUAL(std::string(address), query.node);
		CPPUNIT_ASSERT_EQUAL(std::string(service), query.service);
		CPPUNIT_ASSERT(!(query.hints.ai_flags & RAI_PASSIVE));
		CPPUNIT_ASSERT_EQUAL(int{IBV_QPT_RC}, query.hints.ai_qp_type);
		CPPUNIT_ASSERT_EQUAL(int{RDMA_PS_TCP}, query.hints.ai_port_space);

		const auto created = fake::id_calls_of(fake::Call::rdma_create_id);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, created.size());
		CPPUNIT_ASSERT(!created[0].channel);
		CPPUNIT_ASSERT_EQUAL(int{RDMA_PS_TCP}, created[0].value);

		const auto addr = fake::id_calls_of(fake::Call::rdma_resolve_addr);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, addr.size());
		CPPUNIT_ASSERT(addr[0].id == created[0].id);
		CPPUNIT_ASSERT_EQUAL(1000, addr[0].value);
		const auto *in = reinterpret_cast<const sockaddr_in *>(&addr[0].addr);
		CPPUNIT_ASSERT_EQUAL(uint16_t{7204}, ntohs(in->sin_port));
		CPPUNIT_ASSERT_EQUAL(inet_addr(address), in->sin_addr.s_addr);

		const auto route = fake::id_calls_of(fake::Call::rdma_resolve_route);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, route.size());
		CPPUNIT_ASSERT_EQUAL(1000, route[0].value);
		CPPUNIT_ASSERT(fake::first_index(fake::Call::rdma_resolve_addr) <
			       fake::first_index(fake::Call::rdma_resolve_route));
		CPPUNIT_ASSERT(fake::first_index(fake::Call::rdma_resolve_route) <
			       fake::first_index(fake::Call::rdma_create_qp_ex));
	}

	void new_uses_cfg_timeout()
	{
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_timeout(conn_cfg, 250));
		make_outgoing_req(conn_cfg);
		CPPUNIT_ASSERT_EQUAL(250,
				     fake::id_calls_of(fake::Call::rdma_resolve_addr)[0].value);
		CPPUNIT_ASSERT_EQUAL(250,
				     fake::id_calls_of(fake::Call::rdma_resolve_route)[0].value);
	}

	void new_creates_armed_cq_and_rc_qp()
	{
		make_outgoing_req();
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::cqs().size());
		const fake::CqCreation &cq = fake::cqs()[0];
		CPPUNIT_ASSERT_EQUAL(10, cq.cqe);
		CPPUNIT_ASSERT(cq.channel);
		CPPUNIT_ASSERT_EQUAL(0, cq.comp_vector);
		const auto armed = fake::cq_calls_of(fake::Call::ibv_req_notify_cq);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, armed.size());
		CPPUNIT_ASSERT(armed[0].cq == cq.cq);
		CPPUNIT_ASSERT_EQUAL(0, armed[0].value);

		const ibv_qp_init_attr_ex &attr = the_qp().attr;
		CPPUNIT_ASSERT_EQUAL(IBV_QPT_RC, attr.qp_type);
		CPPUNIT_ASSERT(attr.send_cq == cq.cq);
		CPPUNIT_ASSERT(attr.recv_cq == cq.cq);
		CPPUNIT_ASSERT(!attr.srq);
		CPPUNIT_ASSERT_EQUAL(uint32_t{10}, attr.cap.max_send_wr);
		CPPUNIT_ASSERT_EQUAL(uint32_t{10}, attr.cap.max_recv_wr);
		CPPUNIT_ASSERT_EQUAL(uint32_t{1}, attr.cap.max_send_sge);
		CPPUNIT_ASSERT_EQUAL(uint32_t{1}, attr.cap.max_recv_sge);
		CPPUNIT_ASSERT_EQUAL(uint32_t{8}, attr.cap.max_inline_data);
		CPPUNIT_ASSERT_EQUAL(0, attr.sq_sig_all);
		CPPUNIT_ASSERT(attr.comp_mask & IBV_QP_INIT_ATTR_PD);
		CPPUNIT_ASSERT(attr.pd && attr.pd->context == fake::context());
		CPPUNIT_ASSERT(the_qp().id->qp == the_qp().qp);
	}

	void new_uses_cfg_sizes()
	{
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_cq_size(conn_cfg, 20));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_sq_size(conn_cfg, 30));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_rq_size(conn_cfg, 40));
		make_outgoing_req(conn_cfg);
		CPPUNIT_ASSERT_EQUAL(20, fake::cqs()[0].cqe);
		CPPUNIT_ASSERT_EQUAL(uint32_t{30}, the_qp().attr.cap.max_send_wr);
		CPPUNIT_ASSERT_EQUAL(uint32_t{40}, the_qp().attr.cap.max_recv_wr);
	}

	void new_clips_cq_size_to_int_max()
	{
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_cq_size(conn_cfg, UINT32_MAX));
		make_outgoing_req(conn_cfg);
		CPPUNIT_ASSERT_EQUAL(INT_MAX, fake::cqs()[0].cqe);
	}

	void new_with_rcq_has_own_channels()
	{
		make_outgoing_req(cfg_with(false, 5));
		CPPUNIT_ASSERT_EQUAL(size_t{2}, fake::cqs().size());
		const ibv_qp_init_attr_ex &attr = the_qp().attr;
		CPPUNIT_ASSERT(attr.send_cq != attr.recv_cq);
		CPPUNIT_ASSERT_EQUAL(10, attr.send_cq->cqe);
		CPPUNIT_ASSERT_EQUAL(5, attr.recv_cq->cqe);
		CPPUNIT_ASSERT(attr.send_cq->channel && attr.recv_cq->channel);
		CPPUNIT_ASSERT(attr.send_cq->channel != attr.recv_cq->channel);
		CPPUNIT_ASSERT_EQUAL(size_t{2},
				     fake::cq_calls_of(fake::Call::ibv_req_notify_cq).size());
	}

	void new_with_shared_channel()
	{
		make_outgoing_req(cfg_with(true, 0));
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::comp_channels().size());
		CPPUNIT_ASSERT(fake::cqs()[0].channel == fake::comp_channels()[0]);
	}

	void new_with_shared_channel_and_rcq()
	{
		make_outgoing_req(cfg_with(true, 5));
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::comp_channels().size());
		const ibv_qp_init_attr_ex &attr = the_qp().attr;
		CPPUNIT_ASSERT(attr.send_cq != attr.recv_cq);
		CPPUNIT_ASSERT(attr.send_cq->channel == fake::comp_channels()[0]);
		CPPUNIT_ASSERT(attr.recv_cq->channel == fake::comp_channels()[0]);
		CPPUNIT_ASSERT_EQUAL(size_t{2},
				     fake::cq_calls_of(fake::Call::ibv_req_notify_cq).size());
	}

	void new_with_srq_without_rcq()
	{
		cfg_with(false, 0);
		attach_srq(0);
		make_outgoing_req(conn_cfg);
		const ibv_qp_init_attr_ex &attr = the_qp().attr;
		CPPUNIT_ASSERT(attr.srq == fake::srqs()[0].srq);
		CPPUNIT_ASSERT(attr.recv_cq == attr.send_cq);
	}

	void new_with_srq_without_rcq_uses_own_rcq()
	{
		cfg_with(false, 5);
		attach_srq(0);
		make_outgoing_req(conn_cfg);
		const ibv_qp_init_attr_ex &attr = the_qp().attr;
		CPPUNIT_ASSERT(attr.srq == fake::srqs()[0].srq);
		CPPUNIT_ASSERT(attr.recv_cq != attr.send_cq);
		CPPUNIT_ASSERT_EQUAL(5, attr.recv_cq->cqe);
	}

	void new_with_srq_rcq_uses_it()
	{
		cfg_with(false, 5);
		attach_srq(7);
		ibv_cq *srq_rcq = fake::cqs().back().cq;
		CPPUNIT_ASSERT_EQUAL(7, srq_rcq->cqe);
		make_outgoing_req(conn_cfg);
		const ibv_qp_init_attr_ex &attr = the_qp().attr;
		CPPUNIT_ASSERT(attr.srq == fake::srqs()[0].srq);
		CPPUNIT_ASSERT(attr.recv_cq == srq_rcq);
		// the connection's own rcq_size is ignored: only its main CQ is made
		CPPUNIT_ASSERT_EQUAL(size_t{2}, fake::cqs().size());
	}

	void new_rejects_shared_channel_with_srq_rcq()
	{
		cfg_with(true, 0);
		attach_srq(7);
		rpma_conn_req *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_conn_req_new(peer, address, service, conn_cfg, &out));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT(fake::qps().empty());
	}

	void new_failures_release_everything()
	{
		// the second CQ is the receive CQ
		const struct {
			fake::Call call;
			unsigned nth;
		} cases[] = {
			{fake::Call::rdma_getaddrinfo, 1},
			{fake::Call::rdma_create_id, 1},
			{fake::Call::rdma_resolve_addr, 1},
			{fake::Call::rdma_resolve_route, 1},
			{fake::Call::ibv_create_comp_channel, 1},
			{fake::Call::ibv_create_comp_channel, 2},
			{fake::Call::ibv_create_cq, 1},
			{fake::Call::ibv_create_cq, 2},
			{fake::Call::ibv_req_notify_cq, 1},
			{fake::Call::ibv_req_notify_cq, 2},
			{fake::Call::rdma_create_qp_ex, 1},
		};
		cfg_with(false, 5);
		make_peer();
		for (const auto &c : cases) {
			const std::string what = std::string(fake::name(c.call)) + " #" +
						 std::to_string(c.nth);
			fake::fail(c.call, EHOSTUNREACH, c.nth);
			rpma_conn_req *out = sentinel;
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what, RPMA_E_PROVIDER,
						     rpma_conn_req_new(peer, address, service,
								       conn_cfg, &out));
			CPPUNIT_ASSERT_MESSAGE(what, out == sentinel);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::string("1 ibv_pd"),
						     fake::live_objects());
		}
	}

	void new_shared_channel_failure()
	{
		cfg_with(true, 5);
		make_peer();
		fake::fail(fake::Call::ibv_create_comp_channel, EMFILE);
		rpma_conn_req *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER,
				     rpma_conn_req_new(peer, address, service, conn_cfg, &out));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd"), fake::live_objects());
	}

	void new_logs_notice()
	{
		make_outgoing_req();
		CPPUNIT_ASSERT(LogCapture::contains(RPMA_LOG_LEVEL_NOTICE, address));
	}

	void delete_rules()
	{
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_delete(nullptr));
		rpma_conn_req *none = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_delete(&none));
	}

	void delete_active_destroys_without_reject()
	{
		make_outgoing_req();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_delete(&req));
		CPPUNIT_ASSERT(!req);
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::rdma_reject));
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::rdma_destroy_qp));
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::rdma_destroy_id));
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd"), fake::live_objects());
	}

	void delete_passive_rejects_then_destroys()
	{
		make_incoming_req();
		rdma_cm_id *id = the_qp().id;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_delete(&req));
		CPPUNIT_ASSERT(!req);
		const auto rejected = fake::id_calls_of(fake::Call::rdma_reject);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, rejected.size());
		CPPUNIT_ASSERT(rejected[0].id == id);
		CPPUNIT_ASSERT(rejected[0].data.empty());
		const auto destroyed = fake::id_calls_of(fake::Call::rdma_destroy_id);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, destroyed.size());
		CPPUNIT_ASSERT(destroyed[0].id == id);
		CPPUNIT_ASSERT(fake::first_index(fake::Call::rdma_reject) <
			       fake::first_index(fake::Call::rdma_destroy_id));
		// the listener, its channel and the PD remain
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd, 1 rdma_event_channel, 1 rdma_cm_id"),
				     fake::live_objects());
	}

	void delete_failures_still_clear()
	{
		const struct {
			fake::Call call;
			bool incoming;
		} cases[] = {
			{fake::Call::ibv_destroy_cq, false},
			{fake::Call::ibv_destroy_comp_channel, false},
			{fake::Call::rdma_destroy_id, false},
			{fake::Call::rdma_reject, true},
			{fake::Call::rdma_destroy_id, true},
		};
		for (const auto &c : cases) {
			if (c.incoming)
				make_incoming_req();
			else
				make_outgoing_req();
			fake::fail(c.call, EIO);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(fake::name(c.call), RPMA_E_PROVIDER,
						     rpma_conn_req_delete(&req));
			CPPUNIT_ASSERT(!req);
		}
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_shutdown(&ep));
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd"), fake::live_objects());
	}

	void recv_rejects_null()
	{
		make_outgoing_req();
		rpma_mr_local *mr = register_mr(buffer, sizeof(buffer), RPMA_MR_USAGE_RECV);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_recv(nullptr, mr, 0, 8, nullptr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_recv(req, nullptr, 0, 8, nullptr));
		// unlike rpma_recv, no zero-length receive without a region
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_recv(req, nullptr, 0, 0, nullptr));
		CPPUNIT_ASSERT(fake::recvs().empty());
	}

	void recv_refuses_what_an_sge_cannot_hold()
	{
		make_outgoing_req();
		receive_refuses_what_an_sge_cannot_hold(
			[this](rpma_mr_local *mr, size_t offset, size_t len) {
				return rpma_conn_req_recv(req, mr, offset, len, nullptr);
			},
			buffer, sizeof(buffer));
	}

	void recv_posts_to_qp()
	{
		make_incoming_req();
		rpma_mr_local *mr = register_mr(buffer, sizeof(buffer), RPMA_MR_USAGE_RECV);
		int context = 0;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_recv(req, mr, 16, 24, &context));
		// op_context may be NULL, as fio's server passes
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_recv(req, mr, 0, 8, nullptr));
		CPPUNIT_ASSERT_EQUAL(size_t{2}, fake::recvs().size());
		const fake::RecvWr &wr = fake::recvs()[0];
		CPPUNIT_ASSERT(wr.qp == the_qp().qp);
		CPPUNIT_ASSERT_EQUAL(uint64_t(reinterpret_cast<uintptr_t>(&context)), wr.wr_id);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, wr.sges.size());
		CPPUNIT_ASSERT_EQUAL(uint64_t(reinterpret_cast<uintptr_t>(buffer + 16)),
				     wr.sges[0].addr);
		CPPUNIT_ASSERT_EQUAL(uint32_t{24}, wr.sges[0].length);
		CPPUNIT_ASSERT_EQUAL(registration_of(mr).mr->lkey, wr.sges[0].lkey);
		CPPUNIT_ASSERT_EQUAL(uint64_t{0}, fake::recvs()[1].wr_id);
	}

	void recv_failure_is_provider_error()
	{
		make_outgoing_req();
		rpma_mr_local *mr = register_mr(buffer, sizeof(buffer), RPMA_MR_USAGE_RECV);
		fake::fail(fake::Call::ibv_post_recv, ENOMEM);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_conn_req_recv(req, mr, 0, 8, nullptr));
	}

	void private_data_rejects_null()
	{
		make_outgoing_req();
		rpma_conn_private_data pdata{buffer, 3};
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_get_private_data(nullptr, &pdata));
		CPPUNIT_ASSERT(pdata.ptr == buffer && pdata.len == 3);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_get_private_data(req, nullptr));
	}

	void private_data_of_active_is_empty()
	{
		make_outgoing_req();
		rpma_conn_private_data pdata{buffer, 3};
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_get_private_data(req, &pdata));
		CPPUNIT_ASSERT(!pdata.ptr);
		CPPUNIT_ASSERT_EQUAL(0, int{pdata.len});
	}

	void private_data_of_passive_without_data_is_empty()
	{
		make_incoming_req();
		rpma_conn_private_data pdata{buffer, 3};
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_get_private_data(req, &pdata));
		CPPUNIT_ASSERT(!pdata.ptr);
		CPPUNIT_ASSERT_EQUAL(0, int{pdata.len});
	}

	void connect_rejects_null_request()
	{
		rpma_conn *out = conn_sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_connect(nullptr, nullptr, &out));
		rpma_conn_req *none = nullptr;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_connect(&none, nullptr, &out));
		CPPUNIT_ASSERT(out == conn_sentinel);
	}

	void connect_consumes_request_on_bad_arguments()
	{
		rpma_conn_private_data no_ptr{nullptr, 5};
		rpma_conn_private_data no_len{buffer, 0};
		const rpma_conn_private_data *bad[] = {&no_ptr, &no_len};
		for (const rpma_conn_private_data *pdata : bad) {
			make_outgoing_req();
			rpma_conn *out = conn_sentinel;
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
					     rpma_conn_req_connect(&req, pdata, &out));
			CPPUNIT_ASSERT(!req);
			CPPUNIT_ASSERT(out == conn_sentinel);
		}
		make_outgoing_req();
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_connect(&req, nullptr, nullptr));
		CPPUNIT_ASSERT(!req);
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::rdma_connect));
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd"), fake::live_objects());
	}

	void connect_active()
	{
		make_outgoing_req();
		rdma_cm_id *id = the_qp().id;
		connect_req();
		CPPUNIT_ASSERT(conn);
		CPPUNIT_ASSERT(!req);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::conn_params().size());
		const fake::ConnParam &param = fake::conn_params()[0];
		CPPUNIT_ASSERT_EQUAL(fake::Call::rdma_connect, param.call);
		CPPUNIT_ASSERT(param.id == id);
		check_conn_param(param);
		CPPUNIT_ASSERT(param.private_data.empty());
		CPPUNIT_ASSERT_EQUAL(0, int{param.param.private_data_len});
		// the id moves onto the connection's own channel before connecting
		const auto migrated = fake::id_calls_of(fake::Call::rdma_migrate_id);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, migrated.size());
		CPPUNIT_ASSERT(migrated[0].id == id);
		CPPUNIT_ASSERT(migrated[0].channel == fake::event_channels().back());
		CPPUNIT_ASSERT(fake::first_index(fake::Call::rdma_migrate_id) <
			       fake::first_index(fake::Call::rdma_connect));
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::rdma_accept));
	}

	void connect_passive_accepts()
	{
		const std::vector<uint8_t> from_client = {0xca, 0xfe};
		make_incoming_req(nullptr, from_client);
		rdma_cm_id *id = the_qp().id;
		connect_req();
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::conn_params().size());
		const fake::ConnParam &param = fake::conn_params()[0];
		CPPUNIT_ASSERT_EQUAL(fake::Call::rdma_accept, param.call);
		CPPUNIT_ASSERT(param.id == id);
		check_conn_param(param);
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::rdma_connect));
		const auto migrated = fake::id_calls_of(fake::Call::rdma_migrate_id);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, migrated.size());
		CPPUNIT_ASSERT(migrated[0].id == id);
		CPPUNIT_ASSERT(migrated[0].channel == fake::event_channels().back());
		CPPUNIT_ASSERT(migrated[0].channel != fake::event_channels().front());
		// the request's private data moves into the connection
		rpma_conn_private_data pdata{nullptr, 0};
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_get_private_data(conn, &pdata));
		CPPUNIT_ASSERT_EQUAL(size_t{2}, size_t{pdata.len});
		const auto *bytes = static_cast<const uint8_t *>(pdata.ptr);
		CPPUNIT_ASSERT(std::vector<uint8_t>(bytes, bytes + 2) == from_client);
	}

	void connect_passes_private_data()
	{
		make_outgoing_req();
		char data[] = "hello";
		rpma_conn_private_data pdata{data, sizeof(data)};
		connect_req(&pdata);
		const fake::ConnParam &param = fake::conn_params()[0];
		CPPUNIT_ASSERT_EQUAL(uint8_t{sizeof(data)}, param.param.private_data_len);
		CPPUNIT_ASSERT(std::vector<uint8_t>(data, data + sizeof(data)) ==
			       param.private_data);
	}

	void connect_registers_flush_buffer()
	{
		make_outgoing_req();
		connect_req();
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::registrations().size());
		const fake::MrReg &reg = fake::registrations()[0];
		CPPUNIT_ASSERT_EQUAL(size_t{8}, reg.length);
		CPPUNIT_ASSERT_EQUAL(unsigned{IBV_ACCESS_LOCAL_WRITE}, reg.access);
		CPPUNIT_ASSERT(reg.pd == the_qp().attr.pd);
	}

	// The emulated flush reads into this buffer, and an iWARP read
	// response lands as a tagged write: the buffer is a read destination
	// and registered as rpma_mr_reg registers one (docs/platforms.md).
	void flush_buffer_takes_remote_write_on_iwarp()
	{
		fake::set_transport(IBV_TRANSPORT_IWARP);
		make_outgoing_req();
		connect_req();
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::registrations().size());
		CPPUNIT_ASSERT_EQUAL(unsigned{IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE},
				     fake::registrations()[0].access);
	}

	// With RDMAV_FORK_SAFE=1 on a kernel without copy-on-fork for DMA pages,
	// libibverbs keeps every page a registration touches out of a forked
	// child. The flush buffer must not share its page with anything else:
	// the child still reads the connection, and the heap around it.
	void flush_buffer_has_pages_of_its_own()
	{
		fake::set_fork_protection(true);
		make_outgoing_req();
		std::vector<void *> before;
		for (int i = 0; i < 64; i++)
			before.push_back(std::malloc(48));
		connect_req();
		std::vector<void *> after;
		for (int i = 0; i < 64; i++)
			after.push_back(std::malloc(48));
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::registrations().size());
		const pid_t child = fork();
		if (child == 0) {
			// reads the connection object, then the heap on both sides
			uint32_t qp_num = 0;
			volatile char sum = 0;
			if (rpma_conn_get_qp_num(conn, &qp_num) == 0)
				for (const auto *list : {&before, &after})
					for (void *p : *list)
						sum = sum + *static_cast<volatile char *>(p);
			_exit(qp_num == fake::qps().back().qp->qp_num ? 0 : 1);
		}
		int status = 0;
		CPPUNIT_ASSERT_EQUAL(child, waitpid(child, &status, 0));
		for (const auto *list : {&before, &after})
			for (void *p : *list)
				std::free(p);
		CPPUNIT_ASSERT_MESSAGE("the child was killed by signal " +
					       std::to_string(WIFSIGNALED(status) ? WTERMSIG(status)
										  : 0),
				       !WIFSIGNALED(status));
		CPPUNIT_ASSERT_EQUAL(0, WEXITSTATUS(status));
		const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
		const uintptr_t sink = reinterpret_cast<uintptr_t>(fake::registrations()[0].addr);
		CPPUNIT_ASSERT_EQUAL_MESSAGE("page-aligned", uintptr_t{0}, sink % page);
	}

	void connect_failures_consume_request()
	{
		const struct {
			fake::Call call;
			bool incoming;
		} cases[] = {
			{fake::Call::rdma_create_event_channel, false},
			{fake::Call::rdma_migrate_id, false},
			{fake::Call::ibv_reg_mr, false},
			{fake::Call::rdma_connect, false},
			{fake::Call::rdma_create_event_channel, true},
			{fake::Call::rdma_migrate_id, true},
			{fake::Call::ibv_reg_mr, true},
			{fake::Call::rdma_accept, true},
		};
		for (const auto &c : cases) {
			const std::string what = std::string(fake::name(c.call)) +
						 (c.incoming ? " (passive)" : " (active)");
			if (c.incoming)
				make_incoming_req(nullptr, {1, 2, 3});
			else
				make_outgoing_req();
			fake::fail(c.call, ECONNREFUSED);
			rpma_conn *out = conn_sentinel;
			CPPUNIT_ASSERT_EQUAL_MESSAGE(what, RPMA_E_PROVIDER,
						     rpma_conn_req_connect(&req, nullptr, &out));
			CPPUNIT_ASSERT_MESSAGE(what, !req);
			CPPUNIT_ASSERT_MESSAGE(what, out == conn_sentinel);
		}
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_shutdown(&ep));
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd"), fake::live_objects());
	}

	void new_out_of_memory()
	{
		make_peer();
		rpma_conn_req *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOMEM, out_of_memory([&] {
					     return rpma_conn_req_new(peer, address, service,
								      nullptr, &out);
				     }));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd"), fake::live_objects());
	}

	// The request is consumed whatever the outcome. Only the connection
	// object's allocation fails: the fake allocates as it releases the
	// request's resources.
	void connect_out_of_memory()
	{
		make_outgoing_req();
		rpma_conn *out = conn_sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOMEM, out_of_memory_for(sizeof(rpma::Conn), [&] {
					     return rpma_conn_req_connect(&req, nullptr, &out);
				     }));
		CPPUNIT_ASSERT(!req);
		CPPUNIT_ASSERT(out == conn_sentinel);
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd"), fake::live_objects());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnReqTest);

} // namespace unit
