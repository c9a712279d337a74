// SPDX-License-Identifier: BSD-3-Clause
// rpma_ep_*: listening and taking incoming connection requests.
#include <arpa/inet.h>
#include <fcntl.h>

#include <chrono>
#include <thread>

#include "fixture.hh"
#include "librpma_private.h"
#include "out_of_memory.hh"

namespace unit {

class EpTest : public Fixture {
	CPPUNIT_TEST_SUITE(EpTest);
	CPPUNIT_TEST(listen_rejects_null);
	CPPUNIT_TEST(listen_binds_and_listens);
	CPPUNIT_TEST(listen_failures_release_everything);
	CPPUNIT_TEST(get_fd_is_event_channel_fd);
	CPPUNIT_TEST(get_fd_rejects_null);
	CPPUNIT_TEST(shutdown_rules);
	CPPUNIT_TEST(shutdown_releases_id_and_channel);
	CPPUNIT_TEST(shutdown_failure_still_clears);
	CPPUNIT_TEST(next_conn_req_rejects_null);
	CPPUNIT_TEST(next_conn_req_without_event_is_no_event);
	CPPUNIT_TEST(next_conn_req_maps_get_event_errno);
	CPPUNIT_TEST(next_conn_req_on_a_blocking_channel_waits_then_takes_without_blocking);
	CPPUNIT_TEST(next_conn_req_on_a_blocking_channel_waits_again_for_a_taken_event);
	CPPUNIT_TEST(next_conn_req_rejects_other_events);
	CPPUNIT_TEST(next_conn_req_other_event_ack_failure);
	CPPUNIT_TEST(next_conn_req_builds_queues_on_request_id);
	CPPUNIT_TEST(next_conn_req_uses_cfg);
	CPPUNIT_TEST(next_conn_req_copies_private_data);
	CPPUNIT_TEST(next_conn_req_acks_before_returning);
	CPPUNIT_TEST(next_conn_req_resource_failure_rejects);
	CPPUNIT_TEST(next_conn_req_ack_failure_deletes_request);
	CPPUNIT_TEST(next_conn_req_rejects_shared_channel_with_srq_rcq);
	CPPUNIT_TEST(listen_out_of_memory);
	CPPUNIT_TEST(next_conn_req_out_of_memory);
	CPPUNIT_TEST(set_peer_filter_rejects_null);
	CPPUNIT_TEST(peer_filter_refuses_before_anything_is_made);
	CPPUNIT_TEST(peer_filter_takes_the_next_request_it_accepts);
	CPPUNIT_TEST(peer_filter_gives_the_thread_back_after_a_batch);
	CPPUNIT_TEST(peer_filter_on_a_blocking_channel_waits_for_an_accepted_request);
	CPPUNIT_TEST(peer_filter_ack_failure_drops_the_refused_request);
	CPPUNIT_TEST(peer_filter_none_takes_anyone);
	CPPUNIT_TEST_SUITE_END();

	rpma_ep *const sentinel = reinterpret_cast<rpma_ep *>(0x1234);

	// A filter that lets only 192.0.2.1 in and keeps what it was shown.
	struct Seen {
		std::vector<std::string> sources;
	};
	static int only_192_0_2_1(const sockaddr *src, void *arg)
	{
		char text[INET6_ADDRSTRLEN] = "";
		if (src->sa_family == AF_INET)
			inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in *>(src)->sin_addr,
				  text, sizeof(text));
		else if (src->sa_family == AF_INET6)
			inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6 *>(src)->sin6_addr,
				  text, sizeof(text));
		static_cast<Seen *>(arg)->sources.emplace_back(text);
		return std::string(text) == "192.0.2.1";
	}
	static constexpr const char *LISTENER_ONLY = "1 ibv_pd, 1 rdma_event_channel, 1 rdma_cm_id";
	rpma_conn_req *const req_sentinel = reinterpret_cast<rpma_conn_req *>(0x1234);

	void listen()
	{
		if (!peer)
			make_peer();
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_listen(peer, address, service, &ep));
	}

	rdma_cm_id *listening_id()
	{
		const auto listened = fake::id_calls_of(fake::Call::rdma_listen);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, listened.size());
		return listened[0].id;
	}

public:
	void listen_rejects_null()
	{
		make_peer();
		rpma_ep *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_ep_listen(nullptr, address, service, &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_ep_listen(peer, nullptr, service, &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_ep_listen(peer, address, nullptr, &out));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_ep_listen(peer, address, service, nullptr));
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::rdma_create_event_channel));
	}

	void listen_binds_and_listens()
	{
		listen();
		CPPUNIT_ASSERT(ep);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::event_channels().size());
		const auto created = fake::id_calls_of(fake::Call::rdma_create_id);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, created.size());
		CPPUNIT_ASSERT(created[0].channel == fake::event_channels()[0]);
		CPPUNIT_ASSERT_EQUAL(int{RDMA_PS_TCP}, created[0].value);

		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::addrinfo_queries().size());
		const fake::AddrInfoQuery &query = fake::addrinfo_queries()[0];
		CPPUNIT_ASSERT_EQUAL(std::string(address), query.node);
		CPPUNIT_ASSERT_EQUAL(std::string(service), query.service);
		CPPUNIT_ASSERT(query.hints.ai_flags & RAI_PASSIVE);
		CPPUNIT_ASSERT_EQUAL(int{IBV_QPT_RC}, query.hints.ai_qp_type);
		CPPUNIT_ASSERT_EQUAL(int{RDMA_PS_TCP}, query.hints.ai_port_space);

		const auto bound = fake::id_calls_of(fake::Call::rdma_bind_addr);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, bound.size());
		CPPUNIT_ASSERT(bound[0].id == created[0].id);
		const auto *in = reinterpret_cast<const sockaddr_in *>(&bound[0].addr);
		CPPUNIT_ASSERT_EQUAL(sa_family_t{AF_INET}, in->sin_family);
		CPPUNIT_ASSERT_EQUAL(uint16_t{7204}, ntohs(in->sin_port));
		CPPUNIT_ASSERT_EQUAL(inet_addr(address), in->sin_addr.s_addr);

		CPPUNIT_ASSERT(listening_id() == created[0].id);
		CPPUNIT_ASSERT_EQUAL(0, fake::id_calls_of(fake::Call::rdma_listen)[0].value);
		CPPUNIT_ASSERT(LogCapture::contains(RPMA_LOG_LEVEL_NOTICE, address));
	}

	void listen_failures_release_everything()
	{
		make_peer();
		for (fake::Call call : {fake::Call::rdma_create_event_channel,
					fake::Call::rdma_create_id, fake::Call::rdma_getaddrinfo,
					fake::Call::rdma_bind_addr, fake::Call::rdma_listen}) {
			fake::fail(call, EADDRINUSE);
			rpma_ep *out = sentinel;
			errno = 0;
			CPPUNIT_ASSERT_EQUAL_MESSAGE(fake::name(call), RPMA_E_PROVIDER,
						     rpma_ep_listen(peer, address, service, &out));
			// what lets a caller say "port in use"
			CPPUNIT_ASSERT_EQUAL_MESSAGE(fake::name(call), EADDRINUSE, errno);
			CPPUNIT_ASSERT(out == sentinel);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(fake::name(call), std::string("1 ibv_pd"),
						     fake::live_objects());
		}
	}

	void get_fd_is_event_channel_fd()
	{
		listen();
		int fd = -1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_get_fd(ep, &fd));
		CPPUNIT_ASSERT_EQUAL(fake::event_channels()[0]->fd, fd);
	}

	void get_fd_rejects_null()
	{
		listen();
		int fd = -7;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_ep_get_fd(nullptr, &fd));
		CPPUNIT_ASSERT_EQUAL(-7, fd);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_ep_get_fd(ep, nullptr));
	}

	void shutdown_rules()
	{
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_ep_shutdown(nullptr));
		rpma_ep *none = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_shutdown(&none));
	}

	void shutdown_releases_id_and_channel()
	{
		listen();
		rdma_cm_id *id = listening_id();
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_shutdown(&ep));
		CPPUNIT_ASSERT(!ep);
		const auto destroyed = fake::id_calls_of(fake::Call::rdma_destroy_id);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, destroyed.size());
		CPPUNIT_ASSERT(destroyed[0].id == id);
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::rdma_destroy_event_channel));
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd"), fake::live_objects());
	}

	void shutdown_failure_still_clears()
	{
		listen();
		fake::fail(fake::Call::rdma_destroy_id, EIO);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_ep_shutdown(&ep));
		CPPUNIT_ASSERT(!ep);
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd"), fake::live_objects());
	}

	void next_conn_req_rejects_null()
	{
		listen();
		rpma_conn_req *out = req_sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_ep_next_conn_req(nullptr, nullptr, &out));
		CPPUNIT_ASSERT(out == req_sentinel);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_ep_next_conn_req(ep, nullptr, nullptr));
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::rdma_get_cm_event));
	}

	void next_conn_req_without_event_is_no_event()
	{
		// a non-blocking channel with nothing pending: EAGAIN
		listen();
		rpma_conn_req *out = req_sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NO_EVENT, rpma_ep_next_conn_req(ep, nullptr, &out));
		CPPUNIT_ASSERT(out == req_sentinel);
	}

	void next_conn_req_maps_get_event_errno()
	{
		listen();
		const struct {
			int err;
			int expected;
		} cases[] = {
			{ENODATA, RPMA_E_NO_EVENT},     {EAGAIN, RPMA_E_NO_EVENT},
			{EWOULDBLOCK, RPMA_E_NO_EVENT}, {EIO, RPMA_E_PROVIDER},
			{EINVAL, RPMA_E_PROVIDER},
		};
		for (const auto &c : cases) {
			fake::queue_cm_event(RDMA_CM_EVENT_CONNECT_REQUEST);
			fake::fail(fake::Call::rdma_get_cm_event, c.err);
			rpma_conn_req *out = req_sentinel;
			CPPUNIT_ASSERT_EQUAL(c.expected, rpma_ep_next_conn_req(ep, nullptr, &out));
			CPPUNIT_ASSERT(out == req_sentinel);
		}
	}

	// The fd of the endpoint's channel, made blocking as librdmacm makes it.
	int blocking_fd()
	{
		int fd = -1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_get_fd(ep, &fd));
		CPPUNIT_ASSERT_EQUAL(0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK));
		return fd;
	}

	// librdmacm makes the incoming request's id inside rdma_get_cm_event,
	// which therefore runs under the library's CM-id lock; on a blocking
	// channel it waits for the fd to turn readable first (without the
	// lock), then takes the event with the channel non-blocking (never
	// blocking under the lock), and leaves the channel blocking again.
	void next_conn_req_on_a_blocking_channel_waits_then_takes_without_blocking()
	{
		listen();
		const int fd = blocking_fd();
		fake::queue_cm_event(RDMA_CM_EVENT_CONNECT_REQUEST);
		fake::signal_channel(fd);
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_next_conn_req(ep, nullptr, &req));
		CPPUNIT_ASSERT(req);
		CPPUNIT_ASSERT_EQUAL(0u, fake::blocking_cm_event_gets());
		CPPUNIT_ASSERT_EQUAL(0, fcntl(fd, F_GETFL) & O_NONBLOCK);
	}

	// The fd said readable but the event was gone (another thread took
	// it): the call waits again, and takes the next one; no event is lost.
	void next_conn_req_on_a_blocking_channel_waits_again_for_a_taken_event()
	{
		listen();
		const int fd = blocking_fd();
		fake::signal_channel(fd); // nothing queued
		std::thread client([fd] {
			std::this_thread::sleep_for(std::chrono::milliseconds(50));
			fake::queue_cm_event(RDMA_CM_EVENT_CONNECT_REQUEST);
			fake::signal_channel(fd);
		});
		const int ret = rpma_ep_next_conn_req(ep, nullptr, &req);
		client.join();
		CPPUNIT_ASSERT_EQUAL(0, ret);
		CPPUNIT_ASSERT(req);
		CPPUNIT_ASSERT_EQUAL(2u, fake::count(fake::Call::rdma_get_cm_event));
		CPPUNIT_ASSERT_EQUAL(0u, fake::blocking_cm_event_gets());
		CPPUNIT_ASSERT_EQUAL(0, fcntl(fd, F_GETFL) & O_NONBLOCK);
	}

	void next_conn_req_rejects_other_events()
	{
		listen();
		for (rdma_cm_event_type type :
		     {RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_EVENT_DISCONNECTED,
		      RDMA_CM_EVENT_ADDR_CHANGE}) {
			fake::queue_cm_event(type);
			rpma_conn_req *out = req_sentinel;
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
					     rpma_ep_next_conn_req(ep, nullptr, &out));
			CPPUNIT_ASSERT(out == req_sentinel);
		}
		// every event was acked
		CPPUNIT_ASSERT_EQUAL(3u, fake::count(fake::Call::rdma_ack_cm_event));
		CPPUNIT_ASSERT(fake::qps().empty());
	}

	void next_conn_req_other_event_ack_failure()
	{
		listen();
		fake::queue_cm_event(RDMA_CM_EVENT_DISCONNECTED);
		fake::fail(fake::Call::rdma_ack_cm_event, EIO);
		rpma_conn_req *out = req_sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_ep_next_conn_req(ep, nullptr, &out));
		CPPUNIT_ASSERT(out == req_sentinel);
	}

	void next_conn_req_builds_queues_on_request_id()
	{
		make_incoming_req();
		CPPUNIT_ASSERT(req);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::qps().size());
		const fake::QpCreation &qp = fake::qps()[0];
		CPPUNIT_ASSERT(qp.id != listening_id());
		CPPUNIT_ASSERT(qp.id->verbs == fake::context());
		CPPUNIT_ASSERT_EQUAL(uint32_t{10}, qp.attr.cap.max_send_wr);
		CPPUNIT_ASSERT_EQUAL(uint32_t{10}, qp.attr.cap.max_recv_wr);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::cqs().size());
		CPPUNIT_ASSERT_EQUAL(10, fake::cqs()[0].cqe);
		CPPUNIT_ASSERT(qp.attr.send_cq == fake::cqs()[0].cq);
	}

	void next_conn_req_uses_cfg()
	{
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_sq_size(conn_cfg, 33));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_rq_size(conn_cfg, 44));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_cq_size(conn_cfg, 55));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_rcq_size(conn_cfg, 66));
		make_incoming_req(conn_cfg);
		const fake::QpCreation &qp = fake::qps()[0];
		CPPUNIT_ASSERT_EQUAL(uint32_t{33}, qp.attr.cap.max_send_wr);
		CPPUNIT_ASSERT_EQUAL(uint32_t{44}, qp.attr.cap.max_recv_wr);
		CPPUNIT_ASSERT_EQUAL(size_t{2}, fake::cqs().size());
		CPPUNIT_ASSERT(qp.attr.send_cq != qp.attr.recv_cq);
		CPPUNIT_ASSERT_EQUAL(55, qp.attr.send_cq->cqe);
		CPPUNIT_ASSERT_EQUAL(66, qp.attr.recv_cq->cqe);
	}

	void next_conn_req_copies_private_data()
	{
		const std::vector<uint8_t> sent = {1, 2, 3, 4, 5, 6, 7};
		make_incoming_req(nullptr, sent);
		rpma_conn_private_data pdata{nullptr, 0};
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_get_private_data(req, &pdata));
		CPPUNIT_ASSERT(pdata.ptr);
		CPPUNIT_ASSERT_EQUAL(size_t{7}, size_t{pdata.len});
		const auto *bytes = static_cast<const uint8_t *>(pdata.ptr);
		CPPUNIT_ASSERT(std::vector<uint8_t>(bytes, bytes + pdata.len) == sent);
	}

	void next_conn_req_acks_before_returning()
	{
		make_incoming_req();
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::rdma_ack_cm_event));
		CPPUNIT_ASSERT(fake::live_objects().find("rdma_cm_event") == std::string::npos);
	}

	void next_conn_req_resource_failure_rejects()
	{
		listen();
		for (fake::Call call :
		     {fake::Call::ibv_create_comp_channel, fake::Call::ibv_create_cq,
		      fake::Call::ibv_req_notify_cq, fake::Call::rdma_create_qp_ex}) {
			const unsigned rejects = fake::count(fake::Call::rdma_reject);
			fake::queue_cm_event(RDMA_CM_EVENT_CONNECT_REQUEST);
			fake::fail(call, ENOMEM);
			rpma_conn_req *out = req_sentinel;
			CPPUNIT_ASSERT_EQUAL_MESSAGE(fake::name(call), RPMA_E_PROVIDER,
						     rpma_ep_next_conn_req(ep, nullptr, &out));
			CPPUNIT_ASSERT(out == req_sentinel);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(fake::name(call), rejects + 1,
						     fake::count(fake::Call::rdma_reject));
			// the listener, its channel and the PD remain
			CPPUNIT_ASSERT_EQUAL_MESSAGE(
				fake::name(call),
				std::string("1 ibv_pd, 1 rdma_event_channel, 1 rdma_cm_id"),
				fake::live_objects());
		}
	}

	void next_conn_req_ack_failure_deletes_request()
	{
		listen();
		fake::queue_cm_event(RDMA_CM_EVENT_CONNECT_REQUEST, {9, 9});
		fake::fail(fake::Call::rdma_ack_cm_event, EIO);
		rpma_conn_req *out = req_sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_ep_next_conn_req(ep, nullptr, &out));
		// upstream builds the request, then deletes it: rejected, and (our
		// deviation) its id destroyed
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::rdma_reject));
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd, 1 rdma_event_channel, 1 rdma_cm_id"),
				     fake::live_objects());
		CPPUNIT_ASSERT(!out);
	}

	void next_conn_req_rejects_shared_channel_with_srq_rcq()
	{
		make_srq();
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_srq(conn_cfg, srq));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_compl_channel(conn_cfg, true));
		listen();
		fake::queue_cm_event(RDMA_CM_EVENT_CONNECT_REQUEST);
		rpma_conn_req *out = req_sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_ep_next_conn_req(ep, conn_cfg, &out));
		CPPUNIT_ASSERT(out == req_sentinel);
		CPPUNIT_ASSERT(fake::qps().empty());
	}

	void listen_out_of_memory()
	{
		make_peer();
		rpma_ep *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOMEM, out_of_memory([&] {
					     return rpma_ep_listen(peer, address, service, &out);
				     }));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd"), fake::live_objects());
	}

	void next_conn_req_out_of_memory()
	{
		listen();
		const std::vector<uint8_t> from_client(77, 1);
		fake::queue_cm_event(RDMA_CM_EVENT_CONNECT_REQUEST, from_client);
		rpma_conn_req *out = req_sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOMEM, out_of_memory_for(from_client.size(), [&] {
					     return rpma_ep_next_conn_req(ep, nullptr, &out);
				     }));
		CPPUNIT_ASSERT(fake::qps().empty());
	}

	void set_peer_filter_rejects_null()
	{
		Seen seen;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_ep_set_peer_filter(nullptr, only_192_0_2_1, &seen));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_ep_set_peer_filter(nullptr, nullptr, nullptr));
	}

	// A refused request costs a reject and its id: no channel, CQ or QP
	// is made for it, nothing stays; the only pending event gone, a
	// non-blocking call says there is none.
	void peer_filter_refuses_before_anything_is_made()
	{
		listen();
		Seen seen;
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_set_peer_filter(ep, only_192_0_2_1, &seen));
		fake::queue_conn_req_from("198.51.100.7");
		rpma_conn_req *out = req_sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NO_EVENT, rpma_ep_next_conn_req(ep, nullptr, &out));
		CPPUNIT_ASSERT(out == req_sentinel);
		CPPUNIT_ASSERT(seen.sources == std::vector<std::string>{"198.51.100.7"});
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::rdma_reject));
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::rdma_ack_cm_event));
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::ibv_create_comp_channel));
		CPPUNIT_ASSERT(fake::qps().empty());
		CPPUNIT_ASSERT(fake::cqs().empty());
		CPPUNIT_ASSERT_EQUAL(std::string(LISTENER_ONLY), fake::live_objects());
	}

	void peer_filter_takes_the_next_request_it_accepts()
	{
		listen();
		Seen seen;
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_set_peer_filter(ep, only_192_0_2_1, &seen));
		fake::queue_conn_req_from("2001:db8::1");
		fake::queue_conn_req_from("192.0.2.2");
		fake::queue_conn_req_from("192.0.2.1");
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_next_conn_req(ep, nullptr, &req));
		CPPUNIT_ASSERT(req);
		CPPUNIT_ASSERT((seen.sources ==
				std::vector<std::string>{"2001:db8::1", "192.0.2.2", "192.0.2.1"}));
		CPPUNIT_ASSERT_EQUAL(2u, fake::count(fake::Call::rdma_reject));
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::qps().size());
	}

	// A flood: a non-blocking call refuses RPMA_EP_REFUSED_PER_CALL, then
	// gives the thread back; the next call takes the rest.
	void peer_filter_gives_the_thread_back_after_a_batch()
	{
		listen();
		Seen seen;
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_set_peer_filter(ep, only_192_0_2_1, &seen));
		constexpr unsigned FLOOD = RPMA_EP_REFUSED_PER_CALL + 4;
		for (unsigned i = 0; i < FLOOD; i++)
			fake::queue_conn_req_from("198.51.100.7");
		fake::queue_conn_req_from("192.0.2.1");
		rpma_conn_req *out = req_sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NO_EVENT, rpma_ep_next_conn_req(ep, nullptr, &out));
		CPPUNIT_ASSERT(out == req_sentinel);
		CPPUNIT_ASSERT_EQUAL(unsigned{RPMA_EP_REFUSED_PER_CALL},
				     fake::count(fake::Call::rdma_reject));
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_next_conn_req(ep, nullptr, &req));
		CPPUNIT_ASSERT(req);
		CPPUNIT_ASSERT_EQUAL(FLOOD, fake::count(fake::Call::rdma_reject));
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::qps().size());
	}

	// A blocking call waits on past any number of refused requests.
	void peer_filter_on_a_blocking_channel_waits_for_an_accepted_request()
	{
		listen();
		Seen seen;
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_set_peer_filter(ep, only_192_0_2_1, &seen));
		const int fd = blocking_fd();
		for (unsigned i = 0; i < RPMA_EP_REFUSED_PER_CALL; i++) {
			fake::queue_conn_req_from("198.51.100.7");
			fake::signal_channel(fd);
		}
		std::thread client([fd] {
			std::this_thread::sleep_for(std::chrono::milliseconds(50));
			fake::queue_conn_req_from("192.0.2.1");
			fake::signal_channel(fd);
		});
		const int ret = rpma_ep_next_conn_req(ep, nullptr, &req);
		client.join();
		CPPUNIT_ASSERT_EQUAL(0, ret);
		CPPUNIT_ASSERT(req);
		CPPUNIT_ASSERT_EQUAL(unsigned{RPMA_EP_REFUSED_PER_CALL},
				     fake::count(fake::Call::rdma_reject));
		CPPUNIT_ASSERT_EQUAL(0u, fake::blocking_cm_event_gets());
		CPPUNIT_ASSERT_EQUAL(0, fcntl(fd, F_GETFL) & O_NONBLOCK);
	}

	void peer_filter_ack_failure_drops_the_refused_request()
	{
		listen();
		Seen seen;
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_set_peer_filter(ep, only_192_0_2_1, &seen));
		fake::queue_conn_req_from("198.51.100.7");
		fake::fail(fake::Call::rdma_ack_cm_event, EIO);
		rpma_conn_req *out = req_sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_ep_next_conn_req(ep, nullptr, &out));
		CPPUNIT_ASSERT(!out);
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::rdma_reject));
		CPPUNIT_ASSERT(fake::qps().empty());
		CPPUNIT_ASSERT_EQUAL(std::string(LISTENER_ONLY), fake::live_objects());
	}

	void peer_filter_none_takes_anyone()
	{
		listen();
		Seen seen;
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_set_peer_filter(ep, only_192_0_2_1, &seen));
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_set_peer_filter(ep, nullptr, nullptr));
		fake::queue_conn_req_from("198.51.100.7");
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_next_conn_req(ep, nullptr, &req));
		CPPUNIT_ASSERT(req);
		CPPUNIT_ASSERT(seen.sources.empty());
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::rdma_reject));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(EpTest);

} // namespace unit
