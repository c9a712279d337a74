// SPDX-License-Identifier: BSD-3-Clause
// rpma_utils_* and rpma_err_2str: device lookup, ODP detection, strings.
#include <arpa/inet.h>

#include "c_callers.h"
#include "fixture.hh"

namespace unit {

class UtilsTest : public Fixture {
	CPPUNIT_TEST_SUITE(UtilsTest);
	CPPUNIT_TEST(get_ibv_context_rejects_bad_arguments);
	CPPUNIT_TEST(get_ibv_context_local_binds);
	CPPUNIT_TEST(get_ibv_context_remote_resolves);
	CPPUNIT_TEST(get_ibv_context_failures);
	CPPUNIT_TEST(get_ibv_context_without_device);
	CPPUNIT_TEST(odp_rejects_null);
	CPPUNIT_TEST(odp_query_failure_reports_zero);
	CPPUNIT_TEST(odp_needs_general_and_rc_read_write);
	CPPUNIT_TEST(conn_event_strings);
	CPPUNIT_TEST(error_strings);
	CPPUNIT_TEST_SUITE_END();

	ibv_context *const sentinel = reinterpret_cast<ibv_context *>(0x1234);

	static void check_hints(const fake::AddrInfoQuery &query, bool passive)
	{
		CPPUNIT_ASSERT_EQUAL(std::string(address), query.node);
		CPPUNIT_ASSERT(query.has_hints);
		CPPUNIT_ASSERT_EQUAL(passive, (query.hints.ai_flags & RAI_PASSIVE) != 0);
		CPPUNIT_ASSERT_EQUAL(int{IBV_QPT_RC}, query.hints.ai_qp_type);
		CPPUNIT_ASSERT_EQUAL(int{RDMA_PS_TCP}, query.hints.ai_port_space);
	}

	static void check_temporary_id()
	{
		const auto created = fake::id_calls_of(fake::Call::rdma_create_id);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, created.size());
		CPPUNIT_ASSERT(!created[0].channel);
		CPPUNIT_ASSERT_EQUAL(int{RDMA_PS_TCP}, created[0].value);
	}

	void set_odp_caps(uint64_t general, uint32_t rc)
	{
		fake::device_attr().odp_caps.general_caps = general;
		fake::device_attr().odp_caps.per_transport_caps.rc_odp_caps = rc;
	}

	int odp_capable()
	{
		int capable = -1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_utils_ibv_context_is_odp_capable(fake::context(),
									      &capable));
		return capable;
	}

public:
	void get_ibv_context_rejects_bad_arguments()
	{
		ibv_context *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_utils_get_ibv_context(nullptr,
								RPMA_UTIL_IBV_CONTEXT_LOCAL, &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, c_utils_get_ibv_context(address, 2, &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, c_utils_get_ibv_context(address, -1, &out));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_utils_get_ibv_context(address,
								RPMA_UTIL_IBV_CONTEXT_LOCAL,
								nullptr));
		CPPUNIT_ASSERT(fake::calls().empty());
	}

	void get_ibv_context_local_binds()
	{
		ibv_context *out = nullptr;
		CPPUNIT_ASSERT_EQUAL(0,
				     rpma_utils_get_ibv_context(address,
								RPMA_UTIL_IBV_CONTEXT_LOCAL, &out));
		CPPUNIT_ASSERT(out == fake::context());
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::addrinfo_queries().size());
		check_hints(fake::addrinfo_queries()[0], true);
		check_temporary_id();
		const auto bound = fake::id_calls_of(fake::Call::rdma_bind_addr);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, bound.size());
		CPPUNIT_ASSERT(bound[0].has_addr);
		const auto *in = reinterpret_cast<const sockaddr_in *>(&bound[0].addr);
		CPPUNIT_ASSERT_EQUAL(sa_family_t{AF_INET}, in->sin_family);
		char text[INET_ADDRSTRLEN] = "";
		inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
		CPPUNIT_ASSERT_EQUAL(std::string(address), std::string(text));
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::rdma_resolve_addr));
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::rdma_destroy_id));
	}

	void get_ibv_context_remote_resolves()
	{
		ibv_context *out = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_utils_get_ibv_context(address,
								   RPMA_UTIL_IBV_CONTEXT_REMOTE,
								   &out));
		CPPUNIT_ASSERT(out == fake::context());
		check_hints(fake::addrinfo_queries()[0], false);
		check_temporary_id();
		const auto resolved = fake::id_calls_of(fake::Call::rdma_resolve_addr);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, resolved.size());
		CPPUNIT_ASSERT_EQUAL(RPMA_DEFAULT_TIMEOUT_MS, resolved[0].value);
		CPPUNIT_ASSERT(resolved[0].has_addr);
		const auto *in = reinterpret_cast<const sockaddr_in *>(&resolved[0].addr);
		CPPUNIT_ASSERT_EQUAL(sa_family_t{AF_INET}, in->sin_family);
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::rdma_bind_addr));
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::rdma_destroy_id));
	}

	void get_ibv_context_failures()
	{
		const struct {
			fake::Call call;
			rpma_util_ibv_context_type type;
		} cases[] = {
			{fake::Call::rdma_getaddrinfo, RPMA_UTIL_IBV_CONTEXT_LOCAL},
			{fake::Call::rdma_getaddrinfo, RPMA_UTIL_IBV_CONTEXT_REMOTE},
			{fake::Call::rdma_create_id, RPMA_UTIL_IBV_CONTEXT_LOCAL},
			{fake::Call::rdma_bind_addr, RPMA_UTIL_IBV_CONTEXT_LOCAL},
			{fake::Call::rdma_resolve_addr, RPMA_UTIL_IBV_CONTEXT_REMOTE},
		};
		for (const auto &c : cases) {
			fake::fail(c.call, ENODEV);
			ibv_context *out = sentinel;
			CPPUNIT_ASSERT_EQUAL_MESSAGE(fake::name(c.call), RPMA_E_PROVIDER,
						     rpma_utils_get_ibv_context(address, c.type,
										&out));
			CPPUNIT_ASSERT(out == sentinel);
			CPPUNIT_ASSERT_EQUAL_MESSAGE(fake::name(c.call), std::string(),
						     fake::live_objects());
		}
	}

	void get_ibv_context_without_device()
	{
		// a wildcard address binds to no device: reported as PROVIDER
		fake::set_bind_attaches_device(false);
		ibv_context *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER,
				     rpma_utils_get_ibv_context("0.0.0.0",
								RPMA_UTIL_IBV_CONTEXT_LOCAL, &out));
		CPPUNIT_ASSERT(out == sentinel);
	}

	void odp_rejects_null()
	{
		int capable = 7;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_utils_ibv_context_is_odp_capable(nullptr, &capable));
		CPPUNIT_ASSERT_EQUAL(7, capable);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_utils_ibv_context_is_odp_capable(fake::context(),
									   nullptr));
	}

	void odp_query_failure_reports_zero()
	{
		set_odp_caps(IBV_ODP_SUPPORT, IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_WRITE);
		fake::fail(fake::Call::ibv_query_device_ex, EIO);
		int capable = 7;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER,
				     rpma_utils_ibv_context_is_odp_capable(fake::context(),
									   &capable));
		CPPUNIT_ASSERT_EQUAL(0, capable);
	}

	void odp_needs_general_and_rc_read_write()
	{
		const uint32_t read_write = IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_WRITE;
		const struct {
			uint64_t general;
			uint32_t rc;
			int capable;
		} cases[] = {
			{0, 0, 0},
			{IBV_ODP_SUPPORT, read_write, 1},
			{IBV_ODP_SUPPORT, read_write | IBV_ODP_SUPPORT_SEND, 1},
			{IBV_ODP_SUPPORT, IBV_ODP_SUPPORT_READ, 0},
			{IBV_ODP_SUPPORT, IBV_ODP_SUPPORT_WRITE, 0},
			{0, read_write, 0},
			{IBV_ODP_SUPPORT_IMPLICIT, read_write, 0},
		};
		for (const auto &c : cases) {
			set_odp_caps(c.general, c.rc);
			CPPUNIT_ASSERT_EQUAL(c.capable, odp_capable());
		}
	}

	void conn_event_strings()
	{
		const struct {
			int event;
			const char *text;
		} cases[] = {
			{RPMA_CONN_UNDEFINED, "Undefined connection event"},
			{RPMA_CONN_ESTABLISHED, "Connection established"},
			{RPMA_CONN_CLOSED, "Connection closed"},
			{RPMA_CONN_LOST, "Connection lost"},
			{RPMA_CONN_REJECTED, "Connection rejected"},
			{RPMA_CONN_UNREACHABLE, "Connection unreachable"},
			{5, "Unsupported connection event"},
			{-2, "Unsupported connection event"},
			{1000, "Unsupported connection event"},
		};
		for (const auto &c : cases)
			CPPUNIT_ASSERT_EQUAL(std::string(c.text),
					     std::string(c_utils_conn_event_2str(c.event)));
	}

	void error_strings()
	{
		const struct {
			int code;
			const char *text;
		} cases[] = {
			{0, "Success"},
			{RPMA_E_NOSUPP, "Not supported"},
			{RPMA_E_PROVIDER, "Provider error occurred"},
			{RPMA_E_NOMEM, "Out of memory"},
			{RPMA_E_INVAL, "Invalid argument"},
			{RPMA_E_NO_COMPLETION, "No next completion available"},
			{RPMA_E_NO_EVENT, "No next event available"},
			{RPMA_E_AGAIN, "Temporary error, try again"},
			{RPMA_E_SHARED_CHANNEL, "Completion channel is shared"},
			{RPMA_E_NOT_SHARED_CHNL, "Completion channel is not shared"},
			{RPMA_E_UNKNOWN, "Unknown error"},
			{1, "Unknown error"},
			{-1, "Unknown error"},
			{-100010, "Unknown error"},
		};
		for (const auto &c : cases)
			CPPUNIT_ASSERT_EQUAL(std::string(c.text),
					     std::string(rpma_err_2str(c.code)));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(UtilsTest);

} // namespace unit
