// SPDX-License-Identifier: BSD-3-Clause
// allow_test.cc -- a server's allow= list (engine/allow.hh): what it
// parses, what it refuses and why, and which sources it lets in.
#include "allow.hh"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

#include <cstring>

using rpma_fio::address_text;
using rpma_fio::AllowList;

namespace {

// A request's source, as RDMA-CM gives it.
struct Source {
	sockaddr_storage ss{};

	explicit Source(const char *ip)
	{
		auto *in = reinterpret_cast<sockaddr_in *>(&ss);
		auto *in6 = reinterpret_cast<sockaddr_in6 *>(&ss);
		if (inet_pton(AF_INET, ip, &in->sin_addr) == 1) {
			in->sin_family = AF_INET;
		} else {
			CPPUNIT_ASSERT_MESSAGE(ip, inet_pton(AF_INET6, ip, &in6->sin6_addr) == 1);
			in6->sin6_family = AF_INET6;
		}
	}
	const sockaddr *addr() const { return reinterpret_cast<const sockaddr *>(&ss); }
};

AllowList parsed(const char *text)
{
	std::string why = "untouched";
	std::optional<AllowList> list = AllowList::parse(text, &why);
	CPPUNIT_ASSERT_MESSAGE(text, list.has_value());
	CPPUNIT_ASSERT_EQUAL(std::string("untouched"), why);
	return *list;
}

std::string refused(const char *text)
{
	std::string why;
	CPPUNIT_ASSERT_MESSAGE(text, !AllowList::parse(text, &why).has_value());
	CPPUNIT_ASSERT_MESSAGE(text, !why.empty());
	return why;
}

bool allows(const AllowList &list, const char *ip)
{
	return list.allows(Source(ip).addr());
}

}

class AllowTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(AllowTest);
	CPPUNIT_TEST(canonical_words);
	CPPUNIT_TEST(single_addresses);
	CPPUNIT_TEST(ipv4_networks);
	CPPUNIT_TEST(ipv6_networks);
	CPPUNIT_TEST(ipv4_mapped_sources);
	CPPUNIT_TEST(no_address_is_allowed_nothing);
	CPPUNIT_TEST(empty_lists_and_entries);
	CPPUNIT_TEST(bad_addresses);
	CPPUNIT_TEST(bad_prefixes);
	CPPUNIT_TEST(source_text);
	CPPUNIT_TEST_SUITE_END();

public:
	void canonical_words()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.1/32"), parsed("192.0.2.1").str());
		CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.0/24,2001:db8::/32,::1/128"),
				     parsed(" 192.0.2.77/24 ,2001:db8:1::5/32, ::1").str());
		CPPUNIT_ASSERT_EQUAL(std::string("0.0.0.0/0"), parsed("10.1.2.3/0").str());
		CPPUNIT_ASSERT_EQUAL(std::string("10.0.0.0/9"), parsed("10.127.0.1/9").str());
	}

	void single_addresses()
	{
		const AllowList l = parsed("192.0.2.1,2001:db8::7");
		CPPUNIT_ASSERT(allows(l, "192.0.2.1"));
		CPPUNIT_ASSERT(!allows(l, "192.0.2.2"));
		CPPUNIT_ASSERT(!allows(l, "192.0.2.0"));
		CPPUNIT_ASSERT(allows(l, "2001:db8::7"));
		CPPUNIT_ASSERT(!allows(l, "2001:db8::8"));
	}

	void ipv4_networks()
	{
		const AllowList l = parsed("10.128.0.0/9,192.0.2.128/25");
		CPPUNIT_ASSERT(allows(l, "10.128.0.1"));
		CPPUNIT_ASSERT(allows(l, "10.255.255.255"));
		CPPUNIT_ASSERT(!allows(l, "10.127.255.255"));
		CPPUNIT_ASSERT(allows(l, "192.0.2.128"));
		CPPUNIT_ASSERT(allows(l, "192.0.2.255"));
		CPPUNIT_ASSERT(!allows(l, "192.0.2.127"));
		// an IPv4 network holds no IPv6 address
		CPPUNIT_ASSERT(!allows(l, "::a80:1"));
		CPPUNIT_ASSERT(allows(parsed("0.0.0.0/0"), "203.0.113.9"));
		CPPUNIT_ASSERT(!allows(parsed("0.0.0.0/0"), "2001:db8::1"));
	}

	void ipv6_networks()
	{
		const AllowList l = parsed("2001:db8:aa00::/40");
		CPPUNIT_ASSERT(allows(l, "2001:db8:aa00::1"));
		CPPUNIT_ASSERT(allows(l, "2001:db8:aaff:ffff::1"));
		CPPUNIT_ASSERT(!allows(l, "2001:db8:ab00::1"));
		CPPUNIT_ASSERT(!allows(l, "192.0.2.1"));
		CPPUNIT_ASSERT(allows(parsed("fe80::/10"), "febf::1"));
		CPPUNIT_ASSERT(!allows(parsed("fe80::/10"), "fec0::1"));
		CPPUNIT_ASSERT(allows(parsed("::/0"), "2001:db8::1"));
	}

	// a listener on an IPv6 address sees an IPv4 client as ::ffff:a.b.c.d
	void ipv4_mapped_sources()
	{
		CPPUNIT_ASSERT(allows(parsed("192.0.2.0/24"), "::ffff:192.0.2.9"));
		CPPUNIT_ASSERT(!allows(parsed("192.0.2.0/24"), "::ffff:192.0.3.9"));
	}

	void no_address_is_allowed_nothing()
	{
		const AllowList l = parsed("0.0.0.0/0,::/0");
		sockaddr_storage ss{};
		ss.ss_family = AF_UNSPEC;
		CPPUNIT_ASSERT(!l.allows(reinterpret_cast<const sockaddr *>(&ss)));
		CPPUNIT_ASSERT(!l.allows(nullptr));
	}

	void empty_lists_and_entries()
	{
		CPPUNIT_ASSERT(refused("").find("lists no address") != std::string::npos);
		CPPUNIT_ASSERT(refused("  ").find("lists no address") != std::string::npos);
		for (const char *text :
		     {",", "192.0.2.1,", ",192.0.2.1", "192.0.2.1,,::1", "192.0.2.1, ,::1"})
			CPPUNIT_ASSERT_MESSAGE(text, refused(text).find("an empty entry") !=
							     std::string::npos);
	}

	void bad_addresses()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("'host.example' is not an IPv4 or IPv6 address"),
				     refused("192.0.2.1,host.example"));
		for (const char *text : {"192.0.2", "192.0.2.256", "192.0.2.1.1", "2001:db8:::1",
					 "/24", "192.0.2.1 ::1", "0x7f000001"})
			CPPUNIT_ASSERT_MESSAGE(text, refused(text).find("is not an IPv4 or IPv6") !=
							     std::string::npos);
	}

	void bad_prefixes()
	{
		CPPUNIT_ASSERT_EQUAL(
			std::string(
				"'192.0.2.0/33': the prefix of an IPv4 address is 0 to 32 bits"),
			refused("192.0.2.0/33"));
		CPPUNIT_ASSERT_EQUAL(
			std::string(
				"'2001:db8::/129': the prefix of an IPv6 address is 0 to 128 bits"),
			refused("2001:db8::/129"));
		for (const char *text :
		     {"192.0.2.0/", "192.0.2.0/-1", "192.0.2.0/+8", "192.0.2.0/2x", "192.0.2.0/8/8",
		      "192.0.2.0/ 8", "192.0.2.0/99999999999999999999"})
			CPPUNIT_ASSERT_MESSAGE(text, refused(text).find("the prefix of an IPv4") !=
							     std::string::npos);
	}

	void source_text()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.9"),
				     address_text(Source("192.0.2.9").addr()));
		CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.9"),
				     address_text(Source("::ffff:192.0.2.9").addr()));
		CPPUNIT_ASSERT_EQUAL(std::string("2001:db8::9"),
				     address_text(Source("2001:db8::9").addr()));
		CPPUNIT_ASSERT_EQUAL(std::string(""), address_text(nullptr));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(AllowTest);
