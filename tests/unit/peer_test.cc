// SPDX-License-Identifier: BSD-3-Clause
// rpma_peer_new/delete: the capability probe and the protection domain.
#include "fixture.hh"

namespace unit {

class PeerTest : public Fixture {
	CPPUNIT_TEST_SUITE(PeerTest);
	CPPUNIT_TEST(new_rejects_null);
	CPPUNIT_TEST(new_queries_device_and_allocates_pd);
	CPPUNIT_TEST(new_fails_when_query_fails);
	CPPUNIT_TEST(new_maps_alloc_pd_errno);
	CPPUNIT_TEST(new_logs_emulated_atomic_write);
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
