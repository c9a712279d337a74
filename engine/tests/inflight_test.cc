// SPDX-License-Identifier: BSD-3-Clause
// inflight_test.cc -- the client engines' bookkeeping of io_us in flight
// and of the flushes they need (engine/inflight.hh); no fio, no RDMA.
#include "inflight.hh"

#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

#include <vector>

using rpma_fio::Flush;
using rpma_fio::InFlight;

namespace {

// stand-ins for fio's io_us: only their addresses matter
io_u *io(int i)
{
	static char slots[64];
	return reinterpret_cast<io_u *>(&slots[i]);
}

constexpr uint64_t K = 4096;

class InFlightTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(InFlightTest);
	CPPUNIT_TEST(writes_share_one_flush_whatever_their_ranges);
	CPPUNIT_TEST(adjacent_merge_keeps_apart_what_is_apart);
	CPPUNIT_TEST(a_flush_completes_only_what_it_covers);
	CPPUNIT_TEST(a_posted_flush_takes_no_more_writes);
	CPPUNIT_TEST(a_signaled_read_completes_the_reads_before_it);
	CPPUNIT_TEST(sync_flushes_what_was_written_since_the_last);
	CPPUNIT_TEST(sync_with_nothing_written_waits_for_the_writes_in_flight);
	CPPUNIT_TEST(sync_with_nothing_in_flight_is_done_at_once);
	CPPUNIT_TEST(more_than_depth_is_refused);
	CPPUNIT_TEST_SUITE_END();

	InFlight f;

	std::vector<io_u *> complete(uint64_t token)
	{
		std::vector<io_u *> done;
		f.complete(token, [&](io_u *u) { done.push_back(u); });
		return done;
	}

	// every flush waiting, taken out as the client posts them
	std::vector<Flush> post_all()
	{
		std::vector<Flush> posted;
		while (f.flush_waiting()) {
			posted.push_back(f.next_flush());
			f.flush_posted();
		}
		return posted;
	}

public:
	void writes_share_one_flush_whatever_their_ranges()
	{
		f.reserve(16, InFlight::Merge::ANY);
		CPPUNIT_ASSERT(f.add_write(io(0), 8 * K, K));
		CPPUNIT_ASSERT(f.add_write(io(1), 0, K));
		CPPUNIT_ASSERT(f.add_write(io(2), 20 * K, 2 * K));
		std::vector<Flush> fl = post_all();
		CPPUNIT_ASSERT_EQUAL(size_t(1), fl.size());
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), fl[0].offset);
		CPPUNIT_ASSERT_EQUAL(22 * K, fl[0].length);
		CPPUNIT_ASSERT_EQUAL(size_t(3), f.size());
		std::vector<io_u *> want = {io(0), io(1), io(2)};
		CPPUNIT_ASSERT(complete(fl[0].token) == want);
		CPPUNIT_ASSERT_EQUAL(size_t(0), f.size());
	}

	void adjacent_merge_keeps_apart_what_is_apart()
	{
		f.reserve(16, InFlight::Merge::ADJACENT);
		f.add_write(io(0), 0, K);
		f.add_write(io(1), K, K);	// touches the first
		f.add_write(io(2), 100 * K, K);
		f.add_write(io(3), 99 * K, K);	// touches the third, from below
		f.add_write(io(4), K / 2, K);	// overlaps the first two, but
						// the newest flush is the third
		std::vector<Flush> fl = post_all();
		CPPUNIT_ASSERT_EQUAL(size_t(3), fl.size());
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), fl[0].offset);
		CPPUNIT_ASSERT_EQUAL(2 * K, fl[0].length);
		CPPUNIT_ASSERT_EQUAL(99 * K, fl[1].offset);
		CPPUNIT_ASSERT_EQUAL(2 * K, fl[1].length);
		CPPUNIT_ASSERT_EQUAL(K / 2, fl[2].offset);
		CPPUNIT_ASSERT_EQUAL(K, fl[2].length);
	}

	void a_flush_completes_only_what_it_covers()
	{
		f.reserve(16, InFlight::Merge::ADJACENT);
		f.add_write(io(0), 0, K);
		f.add_write(io(1), 50 * K, K);
		f.add_write(io(2), 51 * K, K);
		std::vector<Flush> fl = post_all();
		CPPUNIT_ASSERT_EQUAL(size_t(2), fl.size());
		std::vector<io_u *> first = {io(0)}, second = {io(1), io(2)};
		CPPUNIT_ASSERT(complete(fl[0].token) == first);
		CPPUNIT_ASSERT_EQUAL(size_t(2), f.size());
		CPPUNIT_ASSERT(complete(fl[1].token) == second);
	}

	void a_posted_flush_takes_no_more_writes()
	{
		f.reserve(16, InFlight::Merge::ANY);
		f.add_write(io(0), 0, K);
		std::vector<Flush> first = post_all();
		f.add_write(io(1), K, K);
		std::vector<Flush> second = post_all();
		CPPUNIT_ASSERT_EQUAL(size_t(1), second.size());
		CPPUNIT_ASSERT(first[0].token != second[0].token);
		std::vector<io_u *> want0 = {io(0)}, want1 = {io(1)};
		CPPUNIT_ASSERT(complete(first[0].token) == want0);
		CPPUNIT_ASSERT(complete(second[0].token) == want1);
	}

	void a_signaled_read_completes_the_reads_before_it()
	{
		f.reserve(16, InFlight::Merge::ANY);
		uint64_t t0, t1, t2;
		f.add_read(io(0), &t0);
		f.add_write(io(1), 0, K);
		f.add_read(io(2), &t1);
		f.add_read(io(3), &t2);
		std::vector<io_u *> reads = {io(0), io(2)};
		CPPUNIT_ASSERT(complete(t1) == reads);
		// the write waits for its flush, not for any read
		CPPUNIT_ASSERT_EQUAL(size_t(2), f.size());
		std::vector<Flush> fl = post_all();
		std::vector<io_u *> write = {io(1)};
		CPPUNIT_ASSERT(complete(fl[0].token) == write);
		std::vector<io_u *> last = {io(3)};
		CPPUNIT_ASSERT(complete(t2) == last);
	}

	void sync_flushes_what_was_written_since_the_last()
	{
		f.reserve(16, InFlight::Merge::ADJACENT);
		f.add_write(io(0), 10 * K, K);
		f.add_write(io(1), 2 * K, K);
		post_all();
		bool done = true;
		CPPUNIT_ASSERT(f.add_sync(io(2), &done));
		CPPUNIT_ASSERT(!done);
		std::vector<Flush> fl = post_all();
		CPPUNIT_ASSERT_EQUAL(size_t(1), fl.size());
		CPPUNIT_ASSERT_EQUAL(2 * K, fl[0].offset);
		CPPUNIT_ASSERT_EQUAL(9 * K, fl[0].length);
	}

	void sync_with_nothing_written_waits_for_the_writes_in_flight()
	{
		f.reserve(16, InFlight::Merge::ANY);
		f.add_write(io(0), 0, K);
		bool done;
		f.add_sync(io(1), &done);
		std::vector<Flush> fl = post_all();
		// the second sync sees nothing new: no flush of its own ...
		CPPUNIT_ASSERT(f.add_sync(io(2), &done));
		CPPUNIT_ASSERT(!done);
		CPPUNIT_ASSERT(!f.flush_waiting());
		// ... and completes with the flush of what came before it
		std::vector<io_u *> want = {io(0), io(1), io(2)};
		CPPUNIT_ASSERT(complete(fl.back().token) == want);
	}

	void sync_with_nothing_in_flight_is_done_at_once()
	{
		f.reserve(16, InFlight::Merge::ANY);
		bool done = false;
		CPPUNIT_ASSERT(f.add_sync(io(0), &done));
		CPPUNIT_ASSERT(done);
		CPPUNIT_ASSERT_EQUAL(size_t(0), f.size());
		CPPUNIT_ASSERT(!f.flush_waiting());
	}

	void more_than_depth_is_refused()
	{
		f.reserve(2, InFlight::Merge::ANY);
		uint64_t t;
		CPPUNIT_ASSERT(f.add_write(io(0), 0, K));
		CPPUNIT_ASSERT(f.add_write(io(1), K, K));
		CPPUNIT_ASSERT(!f.add_write(io(2), 2 * K, K));
		CPPUNIT_ASSERT(f.add_read(io(3), &t));
		CPPUNIT_ASSERT(f.add_read(io(4), &t));
		CPPUNIT_ASSERT(!f.add_read(io(5), &t));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(InFlightTest);

}
