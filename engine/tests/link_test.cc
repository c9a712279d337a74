// SPDX-License-Identifier: BSD-3-Clause
// link_test.cc -- LinkWatch on a device with two ports (engine/link.hh): the
// connection's port is the one that counts. No RDMA: Soft-RoCE devices
// have one port each, so the ports' states come from a stand-in.
#include "link.hh"

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
	return 0;
}

ibv_context *const DEV = reinterpret_cast<ibv_context *>(&states);

class LinkTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(LinkTest);
	CPPUNIT_TEST(its_own_port_down_is_down);
	CPPUNIT_TEST(the_other_port_down_is_not);
	CPPUNIT_TEST(both_up_is_not_down);
	CPPUNIT_TEST(port_unknown_is_down_only_with_every_port);
	CPPUNIT_TEST_SUITE_END();

	LinkWatch watch_{{two_ports, port_state}};

public:
	void setUp() override
	{
		states[1] = states[2] = IBV_PORT_ACTIVE;
		queries = 0;
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
		LinkWatch again{{two_ports, port_state}};
		again.watch_port(DEV, 0);
		states[2] = IBV_PORT_DOWN;
		CPPUNIT_ASSERT(again.down());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(LinkTest);

}
