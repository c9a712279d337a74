// SPDX-License-Identifier: BSD-3-Clause
// rpma_peer_new/delete: the capability probe and the protection domain;
// the private rpma_peer_new_with_native_ops/rpma_peer_get_native_ops.
#include "config.h"
#include "fixture.hh"
#include "librpma_private.h"

namespace unit {

class PeerTest : public Fixture {
	CPPUNIT_TEST_SUITE(PeerTest);
	CPPUNIT_TEST(new_rejects_null);
	CPPUNIT_TEST(new_queries_device_and_allocates_pd);
	CPPUNIT_TEST(new_fails_when_query_fails);
	CPPUNIT_TEST(new_maps_alloc_pd_errno);
	CPPUNIT_TEST(new_logs_emulated_atomic_write);
	CPPUNIT_TEST(new_with_native_ops_rejects_bad_arguments);
	CPPUNIT_TEST(new_with_native_ops_fails_as_new);
	CPPUNIT_TEST(new_with_native_ops_logs_who_chose);
	CPPUNIT_TEST(get_native_ops_rejects_null);
	CPPUNIT_TEST(get_native_ops_on_a_capable_device);
	CPPUNIT_TEST(get_native_ops_on_an_incapable_device);
	CPPUNIT_TEST(delete_rejects_null);
	CPPUNIT_TEST(delete_of_null_is_noop);
	CPPUNIT_TEST(delete_deallocates_pd);
	CPPUNIT_TEST(delete_reports_dealloc_failure_and_clears);
	CPPUNIT_TEST(delete_with_live_mr_is_provider_error);
	CPPUNIT_TEST_SUITE_END();

	rpma_peer *const sentinel = reinterpret_cast<rpma_peer *>(0x1234);

public:
	void new_rejects_null()
	{
		rpma_peer *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_peer_new(nullptr, &out));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_peer_new(fake::context(), nullptr));
		CPPUNIT_ASSERT(fake::calls().empty());
	}

	void new_queries_device_and_allocates_pd()
	{
		make_peer();
		CPPUNIT_ASSERT(peer);
		CPPUNIT_ASSERT(fake::count(fake::Call::ibv_query_device_ex) >= 1);
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::ibv_alloc_pd));
	}

	void new_fails_when_query_fails()
	{
		fake::fail(fake::Call::ibv_query_device_ex, EIO);
		rpma_peer *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_peer_new(fake::context(), &out));
		CPPUNIT_ASSERT(out == sentinel);
	}

	void new_maps_alloc_pd_errno()
	{
		const struct {
			int err;
			int expected;
		} cases[] = {
			{ENOMEM, RPMA_E_NOMEM},
			{EPERM, RPMA_E_PROVIDER},
			{EIO, RPMA_E_PROVIDER},
			{0, RPMA_E_UNKNOWN},
		};
		for (const auto &c : cases) {
			fake::fail(fake::Call::ibv_alloc_pd, c.err);
			rpma_peer *out = sentinel;
			CPPUNIT_ASSERT_EQUAL(c.expected, rpma_peer_new(fake::context(), &out));
			CPPUNIT_ASSERT(out == sentinel);
		}
	}

	void new_logs_emulated_atomic_write()
	{
		make_peer();
		CPPUNIT_ASSERT(LogCapture::contains(RPMA_LOG_LEVEL_INFO, "tomic write"));
	}

	void new_with_native_ops_rejects_bad_arguments()
	{
		rpma_peer *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_peer_new_with_native_ops(nullptr, RPMA_NATIVE_OP_ALL,
								   &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_peer_new_with_native_ops(fake::context(), 0, nullptr));
		for (int ops : {RPMA_NATIVE_OP_ALL + 1, 1 << 2, -1})
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
					     rpma_peer_new_with_native_ops(fake::context(), ops,
									   &out));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT(fake::calls().empty());
	}

	void new_with_native_ops_fails_as_new()
	{
		rpma_peer *out = sentinel;
		fake::fail(fake::Call::ibv_query_device_ex, EIO);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER,
				     rpma_peer_new_with_native_ops(fake::context(), 0, &out));
		fake::fail(fake::Call::ibv_alloc_pd, ENOMEM);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOMEM,
				     rpma_peer_new_with_native_ops(fake::context(),
								   RPMA_NATIVE_OP_ALL, &out));
		CPPUNIT_ASSERT(out == sentinel);
	}

	// the log names who decided, not the environment it did not read
	void new_with_native_ops_logs_who_chose()
	{
		fake::device_attr().device_cap_flags_ex |= fake::DEVICE_CAP_ATOMIC_WRITE |
							   fake::DEVICE_CAP_FLUSH;
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_new_with_native_ops(fake::context(), 0, &peer));
		CPPUNIT_ASSERT(LogCapture::contains(
			RPMA_LOG_LEVEL_INFO,
			"Native flush is not enabled (rpma_peer_new_with_native_ops)"));
		CPPUNIT_ASSERT(!LogCapture::contains(RPMA_LOG_LEVEL_INFO, "(RPMA_NATIVE_OPS)"));
	}

	void get_native_ops_rejects_null()
	{
		make_peer();
		int used = -1, device = -1;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_peer_get_native_ops(nullptr, &used, &device));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_peer_get_native_ops(peer, nullptr, &device));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_peer_get_native_ops(peer, &used, nullptr));
		CPPUNIT_ASSERT_EQUAL(-1, used);
		CPPUNIT_ASSERT_EQUAL(-1, device);
	}

	// What this build can post natively on a device that has both verbs.
	static int buildable_ops()
	{
		int ops = 0;
#if HAVE_DECL_IBV_WR_ATOMIC_WRITE
		ops |= RPMA_NATIVE_OP_ATOMIC_WRITE;
#endif
#if HAVE_DECL_IBV_WR_FLUSH
		ops |= RPMA_NATIVE_OP_FLUSH;
#endif
		return ops;
	}

	void get_native_ops_on_a_capable_device()
	{
		fake::device_attr().device_cap_flags_ex |= fake::DEVICE_CAP_ATOMIC_WRITE |
							   fake::DEVICE_CAP_FLUSH;
		for (int asked :
		     {0, RPMA_NATIVE_OP_ATOMIC_WRITE, RPMA_NATIVE_OP_FLUSH, RPMA_NATIVE_OP_ALL}) {
			rpma_peer *p = nullptr;
			CPPUNIT_ASSERT_EQUAL(0, rpma_peer_new_with_native_ops(fake::context(),
									      asked, &p));
			int used = -1, device = -1;
			CPPUNIT_ASSERT_EQUAL(0, rpma_peer_get_native_ops(p, &used, &device));
			CPPUNIT_ASSERT_EQUAL(asked & buildable_ops(), used);
			CPPUNIT_ASSERT_EQUAL(buildable_ops(), device);
			CPPUNIT_ASSERT_EQUAL(0, rpma_peer_delete(&p));
		}
	}

	void get_native_ops_on_an_incapable_device()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_new_with_native_ops(fake::context(),
								      RPMA_NATIVE_OP_ALL, &peer));
		int used = -1, device = -1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_get_native_ops(peer, &used, &device));
		CPPUNIT_ASSERT_EQUAL(0, used);
		CPPUNIT_ASSERT_EQUAL(0, device);
		CPPUNIT_ASSERT(
			LogCapture::contains(RPMA_LOG_LEVEL_INFO, "Native flush is not supported"));
	}

	void delete_rejects_null()
	{
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_peer_delete(nullptr));
	}

	void delete_of_null_is_noop()
	{
		rpma_peer *none = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_delete(&none));
		CPPUNIT_ASSERT(fake::calls().empty());
	}

	void delete_deallocates_pd()
	{
		make_peer();
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_delete(&peer));
		CPPUNIT_ASSERT(!peer);
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::ibv_dealloc_pd));
		CPPUNIT_ASSERT_EQUAL(std::string(), fake::live_objects());
	}

	void delete_reports_dealloc_failure_and_clears()
	{
		make_peer();
		fake::fail(fake::Call::ibv_dealloc_pd, EIO);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_peer_delete(&peer));
		CPPUNIT_ASSERT(!peer);
	}

	void delete_with_live_mr_is_provider_error()
	{
		static char buffer[64];
		register_mr(buffer, sizeof(buffer), RPMA_MR_USAGE_READ_SRC);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_peer_delete(&peer));
		CPPUNIT_ASSERT(!peer);
		// the device keeps a PD that still has an MR
		expect_leaks();
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PeerTest);

} // namespace unit
