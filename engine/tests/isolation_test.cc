// SPDX-License-Identifier: BSD-3-Clause
// isolation_test.cc -- a server's isolation= (engine/isolation.hh): the
// values it takes, what it refuses and why, and what a job does with each
// on a device with and without type 2 memory windows.
#include "isolation.hh"

#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

#include <string>

using rpma_fio::choose_isolation;
using rpma_fio::Isolation;
using rpma_fio::IsolationChoice;
using rpma_fio::parse_isolation;

namespace {

bool mentions(const std::string &text, const char *what)
{
	return text.find(what) != std::string::npos;
}

class IsolationTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(IsolationTest);
	CPPUNIT_TEST(values);
	CPPUNIT_TEST(bad_values);
	CPPUNIT_TEST(default_follows_the_device);
	CPPUNIT_TEST(window_asked_is_refused_without_windows);
	CPPUNIT_TEST(none_asked_is_none);
	CPPUNIT_TEST_SUITE_END();

public:
	void values()
	{
		std::string why = "untouched";
		CPPUNIT_ASSERT(parse_isolation(nullptr, &why) == Isolation::Default);
		CPPUNIT_ASSERT(parse_isolation("", &why) == Isolation::Default);
		CPPUNIT_ASSERT(parse_isolation("window", &why) == Isolation::Window);
		CPPUNIT_ASSERT(parse_isolation("none", &why) == Isolation::None);
		CPPUNIT_ASSERT_EQUAL(std::string("untouched"), why);
	}

	void bad_values()
	{
		for (const char *bad :
		     {"windows", "Window", "yes", "0", " none", "none ", "window,none"}) {
			std::string why;
			CPPUNIT_ASSERT_MESSAGE(bad, !parse_isolation(bad, &why).has_value());
			CPPUNIT_ASSERT_MESSAGE(bad,
					       mentions(why, "window") && mentions(why, "none"));
		}
	}

	void default_follows_the_device()
	{
		const IsolationChoice with = choose_isolation(Isolation::Default, true, "rxe0");
		CPPUNIT_ASSERT(with.windows && !with.refused);
		CPPUNIT_ASSERT(mentions(with.why, "isolation=window") &&
			       mentions(with.why, "rxe0"));
		const IsolationChoice without = choose_isolation(Isolation::Default, false, "siw0");
		CPPUNIT_ASSERT(!without.windows && !without.refused);
		CPPUNIT_ASSERT(mentions(without.why, "isolation=none") &&
			       mentions(without.why, "siw0"));
	}

	void window_asked_is_refused_without_windows()
	{
		const IsolationChoice with = choose_isolation(Isolation::Window, true, "rxe0");
		CPPUNIT_ASSERT(with.windows && !with.refused);
		const IsolationChoice without = choose_isolation(Isolation::Window, false, "siw0");
		CPPUNIT_ASSERT(!without.windows && without.refused);
		// hostile.sh tells a SKIP from a failure by this word
		CPPUNIT_ASSERT(mentions(without.why, "isolation") && mentions(without.why, "siw0"));
	}

	void none_asked_is_none()
	{
		for (bool capable : {true, false}) {
			const IsolationChoice c = choose_isolation(Isolation::None, capable, "dev");
			CPPUNIT_ASSERT(!c.windows && !c.refused);
			CPPUNIT_ASSERT(mentions(c.why, "isolation=none"));
		}
	}
};

}

CPPUNIT_TEST_SUITE_REGISTRATION(IsolationTest);
