// SPDX-License-Identifier: BSD-3-Clause
// native_ops_test.cc -- the clients' native_ops= values (engine/native_ops.hh).
#include "native_ops.hh"

#include <librpma_private.h>

#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using rpma_fio::native_ops_option;
using rpma_fio::NATIVE_OPS_SET;
using rpma_fio::parse_native_ops;

class NativeOpsTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(NativeOpsTest);
	CPPUNIT_TEST(single_words);
	CPPUNIT_TEST(lists);
	CPPUNIT_TEST(bad_words);
	CPPUNIT_TEST(shortest_words);
	CPPUNIT_TEST_SUITE_END();

	static unsigned int parsed(const char *list)
	{
		std::string bad = "untouched";
		std::optional<unsigned int> v = parse_native_ops(list, &bad);
		CPPUNIT_ASSERT_MESSAGE(list, v.has_value());
		CPPUNIT_ASSERT_EQUAL(std::string("untouched"), bad);
		return *v;
	}

	static std::string refused(const char *list)
	{
		std::string bad = "untouched";
		CPPUNIT_ASSERT_MESSAGE(list, !parse_native_ops(list, &bad).has_value());
		return bad;
	}

public:
	void single_words()
	{
		// none is set, and differs from not given (0)
		CPPUNIT_ASSERT_EQUAL(NATIVE_OPS_SET, parsed("none"));
		CPPUNIT_ASSERT_EQUAL(NATIVE_OPS_SET | RPMA_NATIVE_OP_FLUSH, parsed("flush"));
		CPPUNIT_ASSERT_EQUAL(NATIVE_OPS_SET | RPMA_NATIVE_OP_ATOMIC_WRITE,
				     parsed("atomic_write"));
		CPPUNIT_ASSERT_EQUAL(NATIVE_OPS_SET | RPMA_NATIVE_OP_ALL, parsed("all"));
	}

	void lists()
	{
		CPPUNIT_ASSERT_EQUAL(NATIVE_OPS_SET | RPMA_NATIVE_OP_ALL,
				     parsed("flush,atomic_write"));
		CPPUNIT_ASSERT_EQUAL(NATIVE_OPS_SET | RPMA_NATIVE_OP_ALL,
				     parsed("atomic_write flush"));
		CPPUNIT_ASSERT_EQUAL(NATIVE_OPS_SET | RPMA_NATIVE_OP_FLUSH, parsed("none,flush,"));
	}

	void bad_words()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("bogus"), refused("bogus"));
		// a bad word after good ones still refuses the whole value
		CPPUNIT_ASSERT_EQUAL(std::string("bogus"), refused("flush,bogus"));
		CPPUNIT_ASSERT_EQUAL(std::string("flush:all"), refused("flush:all"));
		CPPUNIT_ASSERT_EQUAL(std::string("Flush"), refused("Flush"));
		CPPUNIT_ASSERT_EQUAL(std::string(), refused(""));
		CPPUNIT_ASSERT_EQUAL(std::string(), refused(" , "));
	}

	void shortest_words()
	{
		CPPUNIT_ASSERT_EQUAL(std::string("native_ops=none"),
				     native_ops_option(parsed("none")));
		CPPUNIT_ASSERT_EQUAL(std::string("native_ops=flush"),
				     native_ops_option(parsed("none,flush")));
		CPPUNIT_ASSERT_EQUAL(std::string("native_ops=atomic_write"),
				     native_ops_option(parsed("atomic_write")));
		CPPUNIT_ASSERT_EQUAL(std::string("native_ops=all"),
				     native_ops_option(parsed("flush,atomic_write")));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(NativeOpsTest);
