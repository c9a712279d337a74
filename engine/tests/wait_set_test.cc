// SPDX-License-Identifier: BSD-3-Clause
// wait_set_test.cc -- WaitSet (engine/wait_set.hh), a server's one wait:
// descriptors come back with their tags while they are readable and not
// once removed, and the tick comes within its period whatever else is
// ready, and again only once taken. Pipes stand in for the queues.
#include "wait_set.hh"

#include <unistd.h>

#include <chrono>
#include <set>

#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

using rpma_fio::WaitSet;
using namespace std::chrono_literals;

namespace {

struct Pipe {
	int fd[2] = {-1, -1};
	Pipe() { CPPUNIT_ASSERT_EQUAL(0, pipe(fd)); }
	~Pipe()
	{
		close(fd[0]);
		close(fd[1]);
	}
	void fill() const { CPPUNIT_ASSERT_EQUAL(ssize_t{1}, write(fd[1], "x", 1)); }
	int in() const { return fd[0]; }
};

// the tags of what one wait returns
std::set<uint64_t> ready(WaitSet &w, int timeout_ms)
{
	const int n = w.wait(timeout_ms);
	CPPUNIT_ASSERT(n >= 0);
	std::set<uint64_t> tags;
	for (int i = 0; i < n; i++)
		tags.insert(w.tag(i));
	return tags;
}

}

class WaitSetTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(WaitSetTest);
	CPPUNIT_TEST(ready_descriptors_come_with_their_tags);
	CPPUNIT_TEST(a_removed_descriptor_never_comes);
	CPPUNIT_TEST(the_tick_comes_within_its_period);
	CPPUNIT_TEST(the_tick_comes_beside_busy_descriptors);
	CPPUNIT_TEST_SUITE_END();

public:
	void ready_descriptors_come_with_their_tags()
	{
		WaitSet w;
		CPPUNIT_ASSERT_EQUAL(0, w.open(10s));
		Pipe a, b, c;
		CPPUNIT_ASSERT_EQUAL(0, w.add(a.in(), 7 << 2 | 3));
		CPPUNIT_ASSERT_EQUAL(0, w.add(b.in(), 1));
		CPPUNIT_ASSERT_EQUAL(0, w.add(c.in(), 2));
		CPPUNIT_ASSERT(ready(w, 0).empty());
		a.fill();
		c.fill();
		const std::set<uint64_t> want{7 << 2 | 3, 2};
		CPPUNIT_ASSERT(ready(w, 1000) == want);
		// level-triggered: what is not read stays ready
		CPPUNIT_ASSERT(ready(w, 0) == want);
	}

	void a_removed_descriptor_never_comes()
	{
		WaitSet w;
		CPPUNIT_ASSERT_EQUAL(0, w.open(10s));
		Pipe a, b;
		CPPUNIT_ASSERT_EQUAL(0, w.add(a.in(), 1));
		CPPUNIT_ASSERT_EQUAL(0, w.add(b.in(), 2));
		a.fill();
		b.fill();
		w.remove(a.in());
		CPPUNIT_ASSERT(ready(w, 1000) == std::set<uint64_t>{2});
	}

	void the_tick_comes_within_its_period()
	{
		WaitSet w;
		CPPUNIT_ASSERT_EQUAL(0, w.open(50ms));
		const auto start = std::chrono::steady_clock::now();
		CPPUNIT_ASSERT(ready(w, -1) == std::set<uint64_t>{WaitSet::TICK});
		const auto took = std::chrono::steady_clock::now() - start;
		CPPUNIT_ASSERT(took >= 40ms && took < 2s);
		// taken, it waits for the next period
		w.take_tick();
		CPPUNIT_ASSERT(ready(w, 0).empty());
		CPPUNIT_ASSERT(ready(w, -1) == std::set<uint64_t>{WaitSet::TICK});
	}

	void the_tick_comes_beside_busy_descriptors()
	{
		WaitSet w;
		CPPUNIT_ASSERT_EQUAL(0, w.open(50ms));
		Pipe busy;
		CPPUNIT_ASSERT_EQUAL(0, w.add(busy.in(), 1));
		busy.fill(); // never read: ready on every wait
		const auto end = std::chrono::steady_clock::now() + 2s;
		bool ticked = false;
		while (!ticked && std::chrono::steady_clock::now() < end)
			ticked = ready(w, 0).count(WaitSet::TICK) > 0;
		CPPUNIT_ASSERT(ticked);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(WaitSetTest);
