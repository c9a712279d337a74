// SPDX-License-Identifier: BSD-3-Clause
// The rules of the C++ core hold for a C++ caller that never goes through
// the C API: the objects are made through the API (a handle is the object's
// address), then used through their classes.
#include <memory>

#include "conn.hh"
#include "conn_cfg.hh"
#include "conn_req.hh"
#include "descriptor.hh"
#include "ep.hh"
#include "error.hh"
#include "fixture.hh"
#include "mr.hh"
#include "peer.hh"

namespace unit {

namespace {

constexpr uint64_t RADDR = 0x7f0000001000;
constexpr uint32_t RKEY = 0x1234;
constexpr int ALWAYS = RPMA_F_COMPLETION_ALWAYS;

rpma::Conn &core(rpma_conn *conn)
{
	return *reinterpret_cast<rpma::Conn *>(conn);
}
rpma::Peer &core(rpma_peer *peer)
{
	return *reinterpret_cast<rpma::Peer *>(peer);
}
rpma::Ep &core(rpma_ep *ep)
{
	return *reinterpret_cast<rpma::Ep *>(ep);
}
const rpma::MrRemote &core(rpma_mr_remote *mr)
{
	return *reinterpret_cast<rpma::MrRemote *>(mr);
}
const rpma::ConnCfg &core(rpma_conn_cfg *cfg)
{
	return *reinterpret_cast<rpma::ConnCfg *>(cfg);
}

// The RPMA_E_* code body() throws as rpma::Error, or 0.
template <typename Body> int thrown(Body body)
{
	try {
		body();
	} catch (const rpma::Error &error) {
		return error.code();
	}
	return 0;
}

} // namespace

class CoreTest : public Fixture {
	CPPUNIT_TEST_SUITE(CoreTest);
	CPPUNIT_TEST(flush_persistent_needs_direct_write);
	CPPUNIT_TEST(flush_needs_region_usage);
	CPPUNIT_TEST(flush_stays_inside_the_region);
	CPPUNIT_TEST(outgoing_request_refuses_shared_channel_with_srq_rcq);
	CPPUNIT_TEST(endpoint_refuses_shared_channel_with_srq_rcq);
	CPPUNIT_TEST(local_region_needs_known_usage);
	CPPUNIT_TEST(remote_region_needs_usage);
	CPPUNIT_TEST_SUITE_END();

	rpma_mr_remote *remote = nullptr;

	void connect(int remote_usage)
	{
		make_conn();
		remote = remote_mr(RADDR, 4096, RKEY, remote_usage);
	}

	void set_direct_write(bool supported) { core(conn).set_direct_write_to_pmem(supported); }

	int flush(size_t offset, size_t len, rpma_flush_type type)
	{
		return core(conn).flush(core(remote), offset, len, type, ALWAYS, nullptr);
	}

	// A configuration with a shared channel and an SRQ that has a receive CQ.
	void shared_channel_with_srq_rcq()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_new(&srq_cfg));
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_set_rcq_size(srq_cfg, 7));
		make_srq(srq_cfg);
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_srq(conn_cfg, srq));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_compl_channel(conn_cfg, true));
	}

public:
	void flush_persistent_needs_direct_write()
	{
		connect(RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOSUPP, flush(0, 8, RPMA_FLUSH_TYPE_PERSISTENT));
		CPPUNIT_ASSERT(fake::sends().empty());
		set_direct_write(true);
		CPPUNIT_ASSERT_EQUAL(0, flush(0, 8, RPMA_FLUSH_TYPE_PERSISTENT));
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::sends().size());
	}

	void flush_needs_region_usage()
	{
		connect(RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
		set_direct_write(true);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOSUPP, flush(0, 8, RPMA_FLUSH_TYPE_PERSISTENT));
		remote = remote_mr(RADDR, 4096, RKEY, RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOSUPP, flush(0, 8, RPMA_FLUSH_TYPE_VISIBILITY));
		CPPUNIT_ASSERT(fake::sends().empty());
	}

	// Neither the flushed range nor the 8 bytes the emulated flush reads may
	// leave the region.
	void flush_stays_inside_the_region()
	{
		connect(RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, flush(4000, 100, RPMA_FLUSH_TYPE_VISIBILITY));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, flush(4092, 4, RPMA_FLUSH_TYPE_VISIBILITY));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     flush(SIZE_MAX - 3, 8, RPMA_FLUSH_TYPE_VISIBILITY));
		CPPUNIT_ASSERT(fake::sends().empty());
		CPPUNIT_ASSERT_EQUAL(0, flush(4088, 8, RPMA_FLUSH_TYPE_VISIBILITY));
	}

	void outgoing_request_refuses_shared_channel_with_srq_rcq()
	{
		shared_channel_with_srq_rcq();
		std::unique_ptr<rpma::ConnReq> made;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, thrown([&] {
					     made = rpma::ConnReq::outgoing(
						     core(peer), address, service,
						     core(conn_cfg).values());
				     }));
		CPPUNIT_ASSERT(!made);
		CPPUNIT_ASSERT(fake::qps().empty());
	}

	// Refused before the event is taken: the request stays queued.
	void endpoint_refuses_shared_channel_with_srq_rcq()
	{
		shared_channel_with_srq_rcq();
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_listen(peer, address, service, &ep));
		fake::queue_cm_event(RDMA_CM_EVENT_CONNECT_REQUEST);
		std::unique_ptr<rpma::ConnReq> made;
		bool dropped = false;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, core(ep).next_conn_req(core(conn_cfg).values(),
									  made, dropped));
		CPPUNIT_ASSERT(!made);
		CPPUNIT_ASSERT(!dropped);
		CPPUNIT_ASSERT(fake::qps().empty());
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::rdma_reject));
		// the request is still there for a configuration that works
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_next_conn_req(ep, nullptr, &req));
	}

	void local_region_needs_known_usage()
	{
		make_peer();
		char buffer[64];
		for (int usage : {0, 0x100, -1})
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, thrown([&] {
						     rpma::MrLocal mr(core(peer), buffer,
								      sizeof(buffer), usage);
					     }));
		CPPUNIT_ASSERT(fake::registrations().empty());
	}

	void remote_region_needs_usage()
	{
		const auto desc = mr_descriptor(RADDR, 4096, RKEY, 0);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     thrown([&] { rpma::MrRemote::from_descriptor(desc.data()); }));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(CoreTest);

} // namespace unit
