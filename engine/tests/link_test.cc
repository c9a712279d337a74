// SPDX-License-Identifier: BSD-3-Clause
// link_test.cc -- LinkWatch on a device with two ports (engine/link.hh): the
// connection's port is the one that counts, found from the ports' GID
// tables. No RDMA: Soft-RoCE devices have one port each, so the ports'
// states and GID tables come from a stand-in.
#include "link.hh"

#include <arpa/inet.h>

#include <cstring>
#include <vector>

#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using rpma_fio::LinkWatch;

namespace {

// the stand-in device: two ports, their states set by the tests
ibv_port_state states[3];
int queries;

int two_ports(ibv_context *, ibv_device_attr *attr)
{
	attr->phys_port_cnt = 2;
	return 0;
}

int port_state(ibv_context *, uint8_t port, ibv_port_attr *attr)
{
	queries++;
	if (port < 1 || port > 2)
		return EINVAL;
	attr->state = states[port];
	attr->gid_tbl_len = 4;
	return 0;
}

// the GID tables: the addresses each port holds
std::vector<ibv_gid_entry> table;

void holds(uint8_t port, const char *addr)
{
	ibv_gid_entry e{};
	if (inet_pton(AF_INET6, addr, e.gid.raw) != 1) {
		in_addr v4{};
		CPPUNIT_ASSERT(inet_pton(AF_INET, addr, &v4) == 1);
		e.gid.raw[10] = e.gid.raw[11] = 0xff; // ::ffff:a.b.c.d
		std::memcpy(&e.gid.raw[12], &v4, 4);
	}
	e.port_num = port;
	table.push_back(e);
}

ssize_t gid_table(ibv_context *, ibv_gid_entry *entries, size_t max)
{
	if (table.size() > max)
		return -EINVAL;
	std::copy(table.begin(), table.end(), entries);
	return static_cast<ssize_t>(table.size());
}

ibv_context *const DEV = reinterpret_cast<ibv_context *>(&states);

class LinkTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(LinkTest);
	CPPUNIT_TEST(its_own_port_down_is_down);
	CPPUNIT_TEST(the_other_port_down_is_not);
	CPPUNIT_TEST(both_up_is_not_down);
	CPPUNIT_TEST(port_unknown_is_down_only_with_every_port);
	CPPUNIT_TEST(the_port_holding_the_address_is_watched);
	CPPUNIT_TEST(a_client_watches_the_port_of_its_source_address);
	CPPUNIT_TEST(ipv6_addresses_as_they_are);
	CPPUNIT_TEST(no_port_or_two_ports_or_the_wildcard_is_every_port);
	CPPUNIT_TEST_SUITE_END();

	LinkWatch watch_{{two_ports, port_state, gid_table}};

public:
	void setUp() override
	{
		states[1] = states[2] = IBV_PORT_ACTIVE;
		queries = 0;
		table.clear();
	}

	void its_own_port_down_is_down()
	{
		watch_.watch_port(DEV, 1);
		states[1] = IBV_PORT_DOWN;
		CPPUNIT_ASSERT(watch_.down());
	}

	void the_other_port_down_is_not()
	{
		watch_.watch_port(DEV, 1);
		states[2] = IBV_PORT_DOWN;
		CPPUNIT_ASSERT(!watch_.down());
		CPPUNIT_ASSERT(queries > 0);
	}

	void both_up_is_not_down()
	{
		watch_.watch_port(DEV, 2);
		CPPUNIT_ASSERT(!watch_.down());
		CPPUNIT_ASSERT(queries > 0);
	}

	// where the connection's port cannot be told (0), only a device with
	// no active port is surely down
	void port_unknown_is_down_only_with_every_port()
	{
		watch_.watch_port(DEV, 0);
		states[1] = IBV_PORT_DOWN;
		CPPUNIT_ASSERT(!watch_.down());
		LinkWatch again{{two_ports, port_state, gid_table}};
		again.watch_port(DEV, 0);
		states[2] = IBV_PORT_DOWN;
		CPPUNIT_ASSERT(again.down());
	}

	// RoCE lists an IPv4 address as ::ffff:a.b.c.d; a server watches the
	// port that holds the address it listens on
	void the_port_holding_the_address_is_watched()
	{
		holds(1, "192.0.2.7");
		holds(2, "fe80::1");
		holds(2, "127.0.0.1");
		CPPUNIT_ASSERT_EQUAL(2, int(watch_.port_for(DEV, "127.0.0.1", true)));
		watch_.watch(DEV, "127.0.0.1", true);
		states[1] = IBV_PORT_DOWN;
		CPPUNIT_ASSERT(!watch_.down());
		LinkWatch other{{two_ports, port_state, gid_table}};
		other.watch(DEV, "192.0.2.7", true);
		CPPUNIT_ASSERT(other.down());
	}

	// a client's port is the one of the address this host sends from
	// to the server: to 127.0.0.1, from 127.0.0.1
	void a_client_watches_the_port_of_its_source_address()
	{
		holds(1, "127.0.0.1");
		CPPUNIT_ASSERT_EQUAL(1, int(watch_.port_for(DEV, "127.0.0.1", false)));
		table.clear();
		holds(2, "127.0.0.1");
		CPPUNIT_ASSERT_EQUAL(2, int(watch_.port_for(DEV, "127.0.0.1", false)));
	}

	void ipv6_addresses_as_they_are()
	{
		holds(1, "::ffff:127.0.0.1");
		holds(2, "2001:db8::5");
		CPPUNIT_ASSERT_EQUAL(2, int(watch_.port_for(DEV, "2001:db8::5", true)));
		CPPUNIT_ASSERT_EQUAL(1, int(watch_.port_for(DEV, "127.0.0.1", true)));
	}

	// where the port cannot be told, every port is watched
	void no_port_or_two_ports_or_the_wildcard_is_every_port()
	{
		holds(1, "192.0.2.7");
		CPPUNIT_ASSERT_EQUAL(0, int(watch_.port_for(DEV, "192.0.2.8", true)));
		CPPUNIT_ASSERT_EQUAL(0, int(watch_.port_for(DEV, "0.0.0.0", true)));
		CPPUNIT_ASSERT_EQUAL(0, int(watch_.port_for(DEV, "::", true)));
		CPPUNIT_ASSERT_EQUAL(0, int(watch_.port_for(DEV, "no such host.invalid", true)));
		holds(2, "192.0.2.7");
		CPPUNIT_ASSERT_EQUAL(0, int(watch_.port_for(DEV, "192.0.2.7", true)));
		watch_.watch(DEV, "192.0.2.7", true);
		states[1] = IBV_PORT_DOWN;
		CPPUNIT_ASSERT(!watch_.down());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(LinkTest);

}
