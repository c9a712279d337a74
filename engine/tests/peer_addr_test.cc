// SPDX-License-Identifier: BSD-3-Clause
// peer_addr_test.cc -- finding a connection's peer in the kernel's RDMA
// netlink dump of rdma-cm ids (engine/peer_addr.hh), from dumps built
// here: no RDMA needed.
#include "peer_addr.hh"

#include <arpa/inet.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <rdma/rdma_netlink.h>

#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

#include <cstring>
#include <vector>

using rpma_fio::peer_in_dump;

namespace {

// A netlink message under construction: attributes, nests by hand.
class Msg {
public:
	explicit Msg(uint16_t type)
	{
		nlmsghdr h{};
		h.nlmsg_type = type;
		put(&h, sizeof(h));
	}
	size_t open(uint16_t type)
	{
		size_t at = bytes_.size();
		nlattr a{NLA_HDRLEN, type};
		put(&a, sizeof(a));
		return at;
	}
	void close(size_t at)
	{
		uint16_t len = static_cast<uint16_t>(bytes_.size() - at);
		std::memcpy(&bytes_[at], &len, sizeof(len));
	}
	void attr(uint16_t type, const void *v, size_t len)
	{
		size_t at = open(type);
		put(v, len);
		close(at);
		bytes_.resize(NLA_ALIGN(bytes_.size()));
	}
	std::vector<uint8_t> done()
	{
		uint32_t len = static_cast<uint32_t>(bytes_.size());
		std::memcpy(bytes_.data(), &len, sizeof(len));
		return bytes_;
	}

private:
	void put(const void *v, size_t len)
	{
		auto p = static_cast<const uint8_t *>(v);
		bytes_.insert(bytes_.end(), p, p + len);
	}
	std::vector<uint8_t> bytes_;
};

sockaddr_storage v4(const char *addr, uint16_t port)
{
	sockaddr_storage ss{};
	auto *in = reinterpret_cast<sockaddr_in *>(&ss);
	in->sin_family = AF_INET;
	in->sin_port = htons(port);
	inet_pton(AF_INET, addr, &in->sin_addr);
	return ss;
}

// One message of the dump: cm ids of the given queue pairs (0: none, as a
// listening id), each connected from 10.0.0.<qp>:<40000 + qp>.
std::vector<uint8_t> dump(std::initializer_list<uint32_t> qps)
{
	Msg m(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_CM_ID_GET));
	uint32_t index = 1;
	m.attr(RDMA_NLDEV_ATTR_DEV_INDEX, &index, sizeof(index));
	size_t table = m.open(RDMA_NLDEV_ATTR_RES_CM_ID);
	for (uint32_t qp : qps) {
		size_t entry = m.open(RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY);
		if (qp)
			m.attr(RDMA_NLDEV_ATTR_RES_LQPN, &qp, sizeof(qp));
		sockaddr_storage src = v4("10.0.0.1", 7204);
		m.attr(RDMA_NLDEV_ATTR_RES_SRC_ADDR, &src, sizeof(src));
		if (qp) {
			// room for any qp, though the tests' are one octet
			char peer[sizeof("10.0.0.4294967295")];
			std::snprintf(peer, sizeof(peer), "10.0.0.%u", qp);
			sockaddr_storage dst = v4(peer, static_cast<uint16_t>(40000 + qp));
			m.attr(RDMA_NLDEV_ATTR_RES_DST_ADDR, &dst, sizeof(dst));
		}
		m.close(entry);
	}
	m.close(table);
	return m.done();
}

std::vector<uint8_t> end_of_dump()
{
	return Msg(NLMSG_DONE).done();
}

class PeerAddrTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(PeerAddrTest);
	CPPUNIT_TEST(finds_its_queue_pair_among_others);
	CPPUNIT_TEST(finds_it_in_a_later_message);
	CPPUNIT_TEST(none_for_an_unknown_queue_pair);
	CPPUNIT_TEST(the_end_after_a_match_is_seen);
	CPPUNIT_TEST(a_truncated_dump_is_no_match);
	CPPUNIT_TEST_SUITE_END();

public:
	void finds_its_queue_pair_among_others()
	{
		auto d = dump({0, 17, 42, 9});
		bool done = false;
		CPPUNIT_ASSERT_EQUAL(std::string("10.0.0.42:40042"), peer_in_dump(d, 42, &done));
	}

	void finds_it_in_a_later_message()
	{
		auto d = dump({0, 5});
		auto more = dump({6, 7});
		d.insert(d.end(), more.begin(), more.end());
		bool done = false;
		CPPUNIT_ASSERT_EQUAL(std::string("10.0.0.7:40007"), peer_in_dump(d, 7, &done));
	}

	void none_for_an_unknown_queue_pair()
	{
		auto d = dump({0, 5, 6});
		auto end = end_of_dump();
		d.insert(d.end(), end.begin(), end.end());
		bool done = false;
		CPPUNIT_ASSERT_EQUAL(std::string(), peer_in_dump(d, 99, &done));
		CPPUNIT_ASSERT(done);
	}

	// the caller reads until the end: an end it missed would leave it
	// waiting for a message that never comes
	void the_end_after_a_match_is_seen()
	{
		auto d = dump({0, 5, 6});
		auto end = end_of_dump();
		d.insert(d.end(), end.begin(), end.end());
		bool done = false;
		CPPUNIT_ASSERT_EQUAL(std::string("10.0.0.5:40005"), peer_in_dump(d, 5, &done));
		CPPUNIT_ASSERT(done);
	}

	void a_truncated_dump_is_no_match()
	{
		auto d = dump({5});
		d.resize(d.size() - 8); // the entry's last bytes lost
		bool done = false;
		CPPUNIT_ASSERT_EQUAL(std::string(), peer_in_dump(d, 5, &done));
		CPPUNIT_ASSERT(!done);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PeerAddrTest);

}
