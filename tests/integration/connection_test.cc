// SPDX-License-Identifier: BSD-3-Clause
// Connection setup and teardown, private data, and refused connections.

#include <cstring>

#include "check.hh"
#include "env.hh"
#include "pair.hh"
#include "platform.hh"
#include "wait.hh"

using namespace it;

namespace {

std::vector<unsigned char> bytes(size_t n, unsigned char first)
{
	std::vector<unsigned char> v(n);
	for (size_t i = 0; i < n; i++)
		v[i] = (unsigned char)(first + i);
	return v;
}

// the private data must start with `sent`; RoCE pads it to a fixed length
void expect_prefix(const rpma_conn_private_data &pd, const std::vector<unsigned char> &sent)
{
	CPPUNIT_ASSERT(pd.ptr != nullptr);
	CPPUNIT_ASSERT_MESSAGE("private data shorter than sent", pd.len >= sent.size());
	CPPUNIT_ASSERT(std::memcmp(pd.ptr, sent.data(), sent.size()) == 0);
}

// an outgoing request to a port of its own, already sent
struct Attempt {
	Peer server_peer, client_peer;
	Ep ep;
	Conn client;
};

Attempt attempt_connect(bool listen)
{
	Attempt a;
	std::string port = next_port();
	if (listen) {
		a.server_peer = new_peer(RPMA_UTIL_IBV_CONTEXT_LOCAL);
		rpma_ep *ep = nullptr;
		RPMA_OK(rpma_ep_listen(a.server_peer.get(), test_ip(), port.c_str(), &ep));
		a.ep.reset(ep);
	}
	a.client_peer = new_peer(RPMA_UTIL_IBV_CONTEXT_REMOTE);
	rpma_conn_req *req = nullptr;
	RPMA_OK(rpma_conn_req_new(a.client_peer.get(), test_ip(), port.c_str(), nullptr, &req));
	rpma_conn *conn = nullptr;
	RPMA_OK(rpma_conn_req_connect(&req, nullptr, &conn));
	CPPUNIT_ASSERT(req == nullptr);
	a.client.reset(conn);
	return a;
}

} // namespace

class ConnectionTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(ConnectionTest);
	CPPUNIT_TEST(client_disconnects_first);
	CPPUNIT_TEST(server_disconnects_first);
	CPPUNIT_TEST(private_data_both_ways);
	CPPUNIT_TEST(deleted_request_is_rejected);
	CPPUNIT_TEST(no_listener_is_refused);
	CPPUNIT_TEST_SUITE_END();

public:
	void client_disconnects_first()
	{
		Pair p = connect_pair();
		uint32_t cqp = 0, sqp = 0;
		RPMA_OK(rpma_conn_get_qp_num(p.client.get(), &cqp));
		RPMA_OK(rpma_conn_get_qp_num(p.server.get(), &sqp));
		CPPUNIT_ASSERT(cqp != sqp);
		close_pair(p);
		CPPUNIT_ASSERT(!p.client && !p.server);
	}

	void server_disconnects_first()
	{
		Pair p = connect_pair();
		RPMA_OK(rpma_conn_disconnect(p.server.get()));
		expect_event(p.client.get(), RPMA_CONN_CLOSED);
		RPMA_OK(rpma_conn_disconnect(p.client.get()));
		expect_event(p.server.get(), RPMA_CONN_CLOSED);
		rpma_conn *conn = p.server.release();
		RPMA_OK(rpma_conn_delete(&conn));
		conn = p.client.release();
		RPMA_OK(rpma_conn_delete(&conn));
		CPPUNIT_ASSERT(conn == nullptr);
	}

	void private_data_both_ways()
	{
		PairOptions opts;
		opts.client_pdata = bytes(20, 0x10);
		opts.server_pdata = bytes(30, 0x80);
		opts.before_connect = [](rpma_conn_req *req) {
			// an outgoing request has received nothing yet
			rpma_conn_private_data pd{(void *)1, 1};
			RPMA_OK(rpma_conn_req_get_private_data(req, &pd));
			CPPUNIT_ASSERT(pd.ptr == nullptr && pd.len == 0);
		};
		opts.before_accept = [&opts](rpma_conn_req *req) {
			rpma_conn_private_data pd{};
			RPMA_OK(rpma_conn_req_get_private_data(req, &pd));
			expect_prefix(pd, opts.client_pdata);
		};
		Pair p = connect_pair(opts);

		rpma_conn_private_data pd{};
		RPMA_OK(rpma_conn_get_private_data(p.client.get(), &pd));
		expect_prefix(pd, opts.server_pdata);
		// the server keeps what came with the request
		RPMA_OK(rpma_conn_get_private_data(p.server.get(), &pd));
		expect_prefix(pd, opts.client_pdata);
		close_pair(p);
	}

	void deleted_request_is_rejected()
	{
		Attempt a = attempt_connect(true);
		rpma_conn_req *req = next_conn_req(a.ep.get(), nullptr);
		RPMA_OK(rpma_conn_req_delete(&req));
		CPPUNIT_ASSERT(req == nullptr);
		expect_event(a.client.get(), RPMA_CONN_REJECTED);
	}

	// On iWARP the connection is set up over TCP first (MPA), and siw's
	// rdma_connect makes that TCP connection itself: a refused one fails
	// the connect call rather than arriving as a rejection.
	void no_listener_is_refused()
	{
		if (platform().iwarp) {
			Peer peer = new_peer(RPMA_UTIL_IBV_CONTEXT_REMOTE);
			std::string port = next_port();
			rpma_conn_req *req = nullptr;
			RPMA_OK(rpma_conn_req_new(peer.get(), test_ip(), port.c_str(), nullptr,
						  &req));
			rpma_conn *conn = nullptr;
			const int ret = rpma_conn_req_connect(&req, nullptr, &conn);
			if (ret == 0) {
				// an iWARP device that connects asynchronously reports it
				// as an event, as InfiniBand and RoCE do
				Conn c(conn);
				rpma_conn_event event = next_event(conn);
				CPPUNIT_ASSERT_MESSAGE(rpma_utils_conn_event_2str(event),
						       event == RPMA_CONN_REJECTED ||
							       event == RPMA_CONN_UNREACHABLE);
				return;
			}
			CPPUNIT_ASSERT_EQUAL(int{RPMA_E_PROVIDER}, ret);
			CPPUNIT_ASSERT(req == nullptr && conn == nullptr);
			return;
		}
		Attempt a = attempt_connect(false);
		rpma_conn_event event = next_event(a.client.get());
		CPPUNIT_ASSERT_MESSAGE(rpma_utils_conn_event_2str(event),
				       event == RPMA_CONN_REJECTED ||
					       event == RPMA_CONN_UNREACHABLE);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnectionTest);
