// SPDX-License-Identifier: BSD-3-Clause
// inflight_test.cc -- the client engines' bookkeeping of io_us in flight
// and of the flushes they need (engine/inflight.hh); no fio, no RDMA.
//
// The assertions of InFlight and Ring are compiled in here whatever the
// build (configure --enable-checked decides only for the engines): the
// cases whose names start with "asserts_" break a precondition in a child
// process and expect the assertion to end it.
#ifdef NDEBUG
#error "inflight_test checks the assertions: build it without NDEBUG"
#endif
#include "inflight.hh"

#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <deque>
#include <random>
#include <string>
#include <vector>

using rpma_fio::Flush;
using rpma_fio::InFlight;

namespace {

// stand-ins for fio's io_us: only their addresses matter
io_u *io(int i)
{
	static char slots[1 << 20];
	return reinterpret_cast<io_u *>(&slots[i]);
}

constexpr uint64_t K = 4096;

// Whether body() ends a child process with SIGABRT (a failed assertion
// prints its condition on stderr first).
template <typename Body> bool aborts(Body body)
{
	std::fflush(nullptr);
	const pid_t pid = fork();
	if (pid == 0) {
		const rlimit no_core{0, 0};
		setrlimit(RLIMIT_CORE, &no_core);
		body();
		_exit(0);
	}
	int status = 0;
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
	       WTERMSIG(status) == SIGABRT;
}

class InFlightTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(InFlightTest);
	CPPUNIT_TEST(writes_share_one_flush_whatever_their_ranges);
	CPPUNIT_TEST(adjacent_merge_keeps_apart_what_is_apart);
	CPPUNIT_TEST(a_flush_completes_only_what_it_covers);
	CPPUNIT_TEST(a_posted_flush_takes_no_more_writes);
	CPPUNIT_TEST(a_signaled_read_completes_the_reads_before_it);
	CPPUNIT_TEST(sync_adds_no_flush_of_its_own);
	CPPUNIT_TEST(sync_with_nothing_written_waits_for_the_writes_in_flight);
	CPPUNIT_TEST(sync_with_nothing_in_flight_is_done_at_once);
	CPPUNIT_TEST(depth_counts_every_kind);
	CPPUNIT_TEST(a_refused_io_u_leaves_no_trace);
	CPPUNIT_TEST(random_runs_keep_the_contract);
	CPPUNIT_TEST(appends_flushes_cover_the_log_in_order);
	CPPUNIT_TEST(fail_completes_everything_and_starts_afresh);
	CPPUNIT_TEST(stalled_only_while_nothing_posted_can_complete);
	CPPUNIT_TEST(fio_takes_the_complete_ones_a_few_at_a_time);
	CPPUNIT_TEST(a_read_token_beyond_the_reads_ends_only_them);
	CPPUNIT_TEST(ring_drops_and_indexes_from_the_oldest);
	CPPUNIT_TEST(ring_holds_its_capacity_not_its_slots);
	CPPUNIT_TEST(a_flush_token_beyond_the_posted_ends_only_them);
	CPPUNIT_TEST(asserts_handed_only_from_the_last_hand_out);
	CPPUNIT_TEST(asserts_a_ring_is_not_empty_when_read);
	CPPUNIT_TEST(asserts_a_flush_is_waiting_when_posted);
	CPPUNIT_TEST_SUITE_END();

	InFlight f;

	// what a completion ends, as fio gets it right after
	std::vector<io_u *> complete(uint64_t token)
	{
		f.complete(token);
		return hand_out(SIZE_MAX);
	}

	std::vector<io_u *> hand_out(size_t max)
	{
		std::vector<io_u *> out;
		const size_t n = f.hand_out(max);
		for (size_t i = 0; i < n; i++)
			out.push_back(f.handed(i));
		return out;
	}

	bool add_sync(io_u *u, bool *done)
	{
		const size_t before = f.completed();
		const bool ok = f.add_sync(u);
		*done = f.completed() > before;
		return ok;
	}

	// the token of a read is known before it is added: the client posts
	// first, then adds
	bool add_read(io_u *u, uint64_t *token)
	{
		*token = f.next_read_token();
		return f.add_read(u);
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
	// fio takes up to max at a time (iodepth_batch_complete_max): the rest
	// wait, and what completes meanwhile joins them; the reads come first
	// librpma_aof_client (aof_client.cc): fio's sequential writes, in
	// batches of any size and with syncs among them, are flushed by
	// flushes each starting where the one before ended, so that a flush's
	// end is the log's tail pointer (a server of aof_mode=gpspm refuses a
	// flush that steps back); and a flush completes only appends its end
	// covers.
	void appends_flushes_cover_the_log_in_order()
	{
		std::mt19937 rng(7);
		for (InFlight::Merge merge : {InFlight::Merge::ANY, InFlight::Merge::ADJACENT}) {
			const unsigned depth = 16;
			f = InFlight();
			f.reserve(depth, merge);
			uint64_t next = 0, tail = 0, flushes = 0;
			std::vector<std::pair<io_u *, uint64_t>> ends; // each append's end
			std::vector<Flush> out;                        // posted, not complete
			for (int round = 0; round < 2000; round++) {
				const size_t room = depth - f.size() - f.completed();
				const size_t batch = room ? rng() % (room + 1) : 0;
				for (size_t i = 0; i < batch; i++) {
					io_u *u = io(static_cast<int>(ends.size() % 64));
					// fio's fsync=N, fdatasync=N, end_fsync=1: a
					// sync among the appends covers all before it
					if (rng() % 4 == 0) {
						CPPUNIT_ASSERT(f.add_sync(u));
						ends.emplace_back(u, next);
						continue;
					}
					const uint64_t bs = 512 * (1 + rng() % 8);
					CPPUNIT_ASSERT(f.add_write(u, next, bs));
					next += bs;
					ends.emplace_back(u, next);
				}
				for (const Flush &fl : post_all()) {
					CPPUNIT_ASSERT_EQUAL(tail, fl.offset);
					tail = fl.offset + fl.length;
					out.push_back(fl);
					flushes++;
				}
				if (!out.empty() && rng() % 2) {
					const Flush done = out.front();
					out.erase(out.begin());
					f.complete(done.token);
					// every append handed out ends at or below the
					// pointer this flush wrote
					const size_t n = f.hand_out(SIZE_MAX);
					for (size_t i = 0; i < n; i++) {
						CPPUNIT_ASSERT(!ends.empty());
						CPPUNIT_ASSERT(f.handed(i) == ends.front().first);
						CPPUNIT_ASSERT(ends.front().second <=
							       done.offset + done.length);
						ends.erase(ends.begin());
					}
				}
			}
			CPPUNIT_ASSERT(flushes > 100);
		}
	}

	void fio_takes_the_complete_ones_a_few_at_a_time()
	{
		f.reserve(4, InFlight::Merge::ANY);
		uint64_t t0, t1;
		CPPUNIT_ASSERT(add_read(io(0), &t0));
		CPPUNIT_ASSERT(f.add_write(io(1), 0, K));
		CPPUNIT_ASSERT(add_read(io(2), &t1));
		std::vector<Flush> fl = post_all();
		f.complete(t1);
		f.complete(fl[0].token);
		CPPUNIT_ASSERT_EQUAL(size_t(3), f.completed());
		CPPUNIT_ASSERT_EQUAL(size_t(0), f.size());
		std::vector<io_u *> first = {io(0)};
		CPPUNIT_ASSERT(hand_out(1) == first);
		// room for depth more in flight, with those complete still here
		for (int i = 3; i < 7; i++)
			CPPUNIT_ASSERT(f.add_write(io(i), 0, K));
		CPPUNIT_ASSERT(f.full());
		std::vector<io_u *> next = {io(2), io(1)};
		CPPUNIT_ASSERT(hand_out(2) == next);
		CPPUNIT_ASSERT(hand_out(2).empty());
		fl = post_all();
		f.complete(fl[0].token);
		std::vector<io_u *> rest = {io(3), io(4), io(5), io(6)};
		CPPUNIT_ASSERT(hand_out(8) == rest);
	}

	// a token only the device or a server sends: one past the reads added
	// (a rogue GPSPM server's response) ends no read that is not there
	void a_read_token_beyond_the_reads_ends_only_them()
	{
		f.reserve(4, InFlight::Merge::ANY);
		uint64_t t0;
		CPPUNIT_ASSERT(add_read(io(0), &t0));
		std::vector<io_u *> read = {io(0)};
		CPPUNIT_ASSERT(complete(t0 + 100) == read);
		CPPUNIT_ASSERT(complete(t0 - 1).empty());
		uint64_t t1;
		CPPUNIT_ASSERT(add_read(io(1), &t1));
		CPPUNIT_ASSERT_EQUAL(size_t(1), f.size());
		CPPUNIT_ASSERT(complete(t0).empty()); // an old one: nothing more
		read = {io(1)};
		CPPUNIT_ASSERT(complete(t1) == read);
	}

	// a flush token only a server sends: beyond the newest flush posted
	// (a rogue GPSPM server's response); it ends the writes whose flushes
	// went out, none that waits for a flush not posted yet
	void a_flush_token_beyond_the_posted_ends_only_them()
	{
		f.reserve(4, InFlight::Merge::ADJACENT);
		CPPUNIT_ASSERT(f.add_write(io(0), 0, K));
		std::vector<Flush> fl = post_all();
		CPPUNIT_ASSERT(f.add_write(io(1), 8 * K, K)); // its flush waits
		std::vector<io_u *> first = {io(0)};
		CPPUNIT_ASSERT(complete(fl[0].token + 5) == first);
		CPPUNIT_ASSERT(f.flush_waiting());
		CPPUNIT_ASSERT_EQUAL(size_t(1), f.size());
		fl = post_all();
		std::vector<io_u *> second = {io(1)};
		CPPUNIT_ASSERT(complete(fl[0].token) == second);
	}

	// fio takes handed(0..n) of the last hand_out() alone
	void asserts_handed_only_from_the_last_hand_out()
	{
		f.reserve(4, InFlight::Merge::ANY);
		uint64_t t;
		CPPUNIT_ASSERT(add_read(io(0), &t));
		CPPUNIT_ASSERT(add_read(io(1), &t));
		f.complete(t);
		CPPUNIT_ASSERT_EQUAL(size_t(2), f.hand_out(SIZE_MAX));
		CPPUNIT_ASSERT(!aborts([this] { (void)f.handed(1); }));
		CPPUNIT_ASSERT(aborts([this] { (void)f.handed(2); }));
	}

	void asserts_a_ring_is_not_empty_when_read()
	{
		rpma_fio::Ring<int> r;
		r.reserve(2);
		CPPUNIT_ASSERT(aborts([&r] { (void)r.front(); }));
		CPPUNIT_ASSERT(aborts([&r] { r.pop(); }));
		CPPUNIT_ASSERT(r.push(1));
		CPPUNIT_ASSERT(!aborts([&r] { r.pop(); }));
		CPPUNIT_ASSERT(aborts([&r] { (void)r[1]; }));
	}

	// the client posts only what flush_waiting() offers
	void asserts_a_flush_is_waiting_when_posted()
	{
		f.reserve(4, InFlight::Merge::ANY);
		CPPUNIT_ASSERT(f.add_write(io(0), 0, K));
		CPPUNIT_ASSERT(!aborts([this] { f.flush_posted(); }));
		post_all();
		CPPUNIT_ASSERT(aborts([this] { f.flush_posted(); }));
	}

	// the client's completed io_us: fio takes some, more come after them
	void ring_drops_and_indexes_from_the_oldest()
	{
		rpma_fio::Ring<int> r;
		r.drop(0); // before reserve(): nothing to do, no division
		r.reserve(4);
		for (int i = 0; i < 4; i++)
			CPPUNIT_ASSERT(r.push(i));
		CPPUNIT_ASSERT(!r.push(4));
		r.drop(3);
		CPPUNIT_ASSERT_EQUAL(size_t(1), r.size());
		CPPUNIT_ASSERT_EQUAL(3, r[0]);
		CPPUNIT_ASSERT(r.push(4) && r.push(5) && r.push(6));
		for (int i = 0; i < 4; i++)
			CPPUNIT_ASSERT_EQUAL(3 + i, r[i]); // across the wrap
		r.clear();
		CPPUNIT_ASSERT(r.empty());
		CPPUNIT_ASSERT(r.push(7));
		CPPUNIT_ASSERT_EQUAL(7, r[0]);
	}

	// a capacity that is not a power of two: full at it, not at the slots
	// (a power of two) behind it, and in order across the wrap
	void ring_holds_its_capacity_not_its_slots()
	{
		rpma_fio::Ring<int> r;
		CPPUNIT_ASSERT(!r.push(0)); // before reserve(): no room
		r.reserve(3);
		for (int i = 0; i < 3; i++)
			CPPUNIT_ASSERT(r.push(i));
		CPPUNIT_ASSERT(r.full());
		CPPUNIT_ASSERT(!r.push(3));
		CPPUNIT_ASSERT_EQUAL(size_t(3), r.size());
		for (int k = 3; k < 20; k++) {
			r.pop();
			CPPUNIT_ASSERT(r.push(k));
			CPPUNIT_ASSERT(!r.push(-1));
			for (int i = 0; i < 3; i++)
				CPPUNIT_ASSERT_EQUAL(k - 2 + i, r[i]);
			CPPUNIT_ASSERT_EQUAL(k, r.back());
		}
	}

	// stalled(): no completion can come before the flushes waiting are
	// posted, so polling first would only find nothing
	void stalled_only_while_nothing_posted_can_complete()
	{
		f.reserve(16, InFlight::Merge::ANY);
		CPPUNIT_ASSERT(!f.stalled()); // nothing in flight at all
		CPPUNIT_ASSERT(f.add_write(io(0), 0, K));
		CPPUNIT_ASSERT(f.stalled());
		std::vector<Flush> first = post_all();
		CPPUNIT_ASSERT(!f.stalled()); // its flush can complete
		CPPUNIT_ASSERT(f.add_write(io(1), K, K));
		CPPUNIT_ASSERT(!f.stalled()); // the first flush still can
		complete(first[0].token);
		CPPUNIT_ASSERT(f.stalled()); // only io(1) left, unflushed
		uint64_t t;
		add_read(io(2), &t);
		CPPUNIT_ASSERT(!f.stalled()); // the read can complete
		complete(t);
		std::vector<Flush> second = post_all();
		CPPUNIT_ASSERT(!f.stalled());
		complete(second[0].token);
		CPPUNIT_ASSERT(!f.stalled());
		// a sync with nothing new to flush waits on the posted flush
		CPPUNIT_ASSERT(f.add_write(io(3), 0, K));
		std::vector<Flush> third = post_all();
		bool done;
		add_sync(io(4), &done);
		CPPUNIT_ASSERT(!f.stalled());
		// after drain() nothing is in flight, whatever was posted before
		f.fail([](io_u *) {});
		hand_out(SIZE_MAX);
		CPPUNIT_ASSERT(!f.stalled());
		CPPUNIT_ASSERT(f.add_write(io(5), 0, K));
		CPPUNIT_ASSERT(f.stalled());
	}

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
		CPPUNIT_ASSERT(f.add_write(io(0), 0, K));
		CPPUNIT_ASSERT(f.add_write(io(1), K, K)); // touches the first
		CPPUNIT_ASSERT(f.add_write(io(2), 100 * K, K));
		CPPUNIT_ASSERT(f.add_write(io(3), 99 * K, K)); // touches the third, from below
		CPPUNIT_ASSERT(f.add_write(io(4), K / 2, K));  // overlaps the first two, but
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
		CPPUNIT_ASSERT(f.add_write(io(0), 0, K));
		CPPUNIT_ASSERT(f.add_write(io(1), 50 * K, K));
		CPPUNIT_ASSERT(f.add_write(io(2), 51 * K, K));
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
		CPPUNIT_ASSERT(f.add_write(io(0), 0, K));
		std::vector<Flush> first = post_all();
		CPPUNIT_ASSERT(f.add_write(io(1), K, K));
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
		add_read(io(0), &t0);
		CPPUNIT_ASSERT(f.add_write(io(1), 0, K));
		add_read(io(2), &t1);
		add_read(io(3), &t2);
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

	// Each write's flush is posted already: the sync waits for the
	// newest, flushing nothing again.
	void sync_adds_no_flush_of_its_own()
	{
		f.reserve(16, InFlight::Merge::ADJACENT);
		CPPUNIT_ASSERT(f.add_write(io(0), 10 * K, K));
		CPPUNIT_ASSERT(f.add_write(io(1), 2 * K, K));
		std::vector<Flush> fl = post_all();
		CPPUNIT_ASSERT_EQUAL(size_t(2), fl.size());
		bool done = true;
		CPPUNIT_ASSERT(add_sync(io(2), &done));
		CPPUNIT_ASSERT(!done);
		CPPUNIT_ASSERT(!f.flush_waiting());
		std::vector<io_u *> first = {io(0)};
		CPPUNIT_ASSERT(complete(fl[0].token) == first);
		std::vector<io_u *> rest = {io(1), io(2)};
		CPPUNIT_ASSERT(complete(fl[1].token) == rest);
	}

	void sync_with_nothing_written_waits_for_the_writes_in_flight()
	{
		f.reserve(16, InFlight::Merge::ANY);
		CPPUNIT_ASSERT(f.add_write(io(0), 0, K));
		bool done;
		add_sync(io(1), &done);
		std::vector<Flush> fl = post_all();
		// the second sync sees nothing new: no flush of its own ...
		CPPUNIT_ASSERT(add_sync(io(2), &done));
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
		CPPUNIT_ASSERT(add_sync(io(0), &done));
		CPPUNIT_ASSERT(done);
		CPPUNIT_ASSERT_EQUAL(size_t(0), f.size());
		CPPUNIT_ASSERT(!f.flush_waiting());
	}

	// "at most `depth` io_us are ever in flight": reads, writes and syncs
	// together, whatever the mix
	void depth_counts_every_kind()
	{
		f.reserve(2, InFlight::Merge::ANY);
		uint64_t t0, t;
		bool done = true;
		CPPUNIT_ASSERT(add_read(io(0), &t0));
		CPPUNIT_ASSERT(f.add_write(io(1), 0, K));
		CPPUNIT_ASSERT_EQUAL(size_t(2), f.size());
		CPPUNIT_ASSERT(!f.add_write(io(2), K, K));
		CPPUNIT_ASSERT(!add_read(io(3), &t));
		CPPUNIT_ASSERT(!add_sync(io(4), &done));
		CPPUNIT_ASSERT_EQUAL(size_t(2), f.size());
		// a completion makes room again
		std::vector<io_u *> read = {io(0)};
		CPPUNIT_ASSERT(complete(t0) == read);
		CPPUNIT_ASSERT(add_read(io(5), &t));
		CPPUNIT_ASSERT(!add_read(io(6), &t));
	}

	// A refused io_u leaves no trace: it is never completed, and what is
	// in flight completes as if it had not been offered.
	void a_refused_io_u_leaves_no_trace()
	{
		f.reserve(1, InFlight::Merge::ADJACENT);
		CPPUNIT_ASSERT(f.add_write(io(0), 0, K));
		uint64_t t;
		CPPUNIT_ASSERT(!f.add_write(io(1), 8 * K, K));
		CPPUNIT_ASSERT(!add_read(io(2), &t));
		std::vector<Flush> fl = post_all();
		CPPUNIT_ASSERT_EQUAL(size_t(1), fl.size());
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), fl[0].offset);
		CPPUNIT_ASSERT_EQUAL(K, fl[0].length);
		std::vector<io_u *> want = {io(0)};
		CPPUNIT_ASSERT(complete(fl[0].token) == want);
		CPPUNIT_ASSERT_EQUAL(size_t(0), f.size());
		CPPUNIT_ASSERT(!f.flush_waiting());
	}

	void fail_completes_everything_and_starts_afresh()
	{
		f.reserve(4, InFlight::Merge::ADJACENT);
		uint64_t t;
		bool done;
		CPPUNIT_ASSERT(f.add_write(io(0), 0, K));
		add_read(io(1), &t);
		CPPUNIT_ASSERT(f.add_write(io(2), 8 * K, K));
		add_sync(io(3), &done);
		std::vector<io_u *> got;
		f.fail([&](io_u *u) { got.push_back(u); });
		std::vector<io_u *> want = {io(1), io(0), io(2), io(3)};
		CPPUNIT_ASSERT(got == want);
		CPPUNIT_ASSERT_EQUAL(size_t(0), f.size());
		// they are complete now, and fio gets them, with those given back
		// unposted after them
		CPPUNIT_ASSERT(f.add_done(io(9)));
		want.push_back(io(9));
		CPPUNIT_ASSERT(hand_out(SIZE_MAX) == want);
		CPPUNIT_ASSERT(!f.flush_waiting());
		// nothing written since: a sync now is done at once
		CPPUNIT_ASSERT(add_sync(io(4), &done));
		CPPUNIT_ASSERT(done);
		for (int i = 5; i < 9; i++)
			CPPUNIT_ASSERT(f.add_write(io(i), 0, K));
		CPPUNIT_ASSERT(f.full());
	}

	// Random runs against a model of the contract in inflight.hh, for
	// either merge and several depths; the device completes the signaled
	// operations in the order they were posted.
	void random_runs_keep_the_contract()
	{
		for (unsigned seed = 1; seed <= 300; seed++)
			for (InFlight::Merge m : {InFlight::Merge::ANY, InFlight::Merge::ADJACENT})
				Model(f, m, 1 + seed % 7, seed).run(400);
	}

	class Model {
	public:
		Model(InFlight &f, InFlight::Merge merge, unsigned depth, unsigned seed)
			: f_(f), merge_(merge), depth_(depth), rng_(seed)
		{
			f_.reserve(depth, merge);
			where_ = "seed " + std::to_string(seed) + " depth " +
				 std::to_string(depth) +
				 (merge == InFlight::Merge::ANY ? " ANY" : " ADJACENT");
		}

		void run(unsigned steps)
		{
			for (unsigned i = 0; i < steps; i++) {
				switch (pick(6)) {
				case 0:
					read();
					break;
				case 1:
				case 2:
					write();
					break;
				case 3:
					sync();
					break;
				case 4:
					post();
					break;
				default:
					device();
					break;
				}
				check(f_.size() == outstanding(), "size() is what is in flight");
			}
			// the end of a run: every flush goes out, everything completes
			post();
			while (!fifo_.empty())
				device();
			if (!reads_.empty())
				completed(&reads_, reads_.back().token);
			check(outstanding() == 0, "everything completes in the end");
			check(!f_.flush_waiting(), "no flush left");
		}

	private:
		static constexpr uint64_t REGION = 64 * K;

		struct Io {
			int id;
			uint64_t lo = 0, hi = 0; // writes
			long added;
			uint64_t token = 0; // reads
			bool sync = false;
		};
		struct Posted {
			uint64_t lo, hi, token;
			long at;
		};

		InFlight &f_;
		InFlight::Merge merge_;
		unsigned depth_;
		std::mt19937 rng_;
		std::string where_;
		long now_ = 0;
		int next_id_ = 0;
		std::deque<Io> reads_, writes_;              // writes_ holds syncs too
		std::vector<Posted> posted_;                 // every flush taken out so far
		std::deque<std::pair<bool, uint64_t>> fifo_; // signaled: flush?, token
		std::vector<bool> seen_;

		unsigned pick(unsigned n) { return rng_() % n; }
		size_t outstanding() const { return reads_.size() + writes_.size(); }
		void check(bool ok, const std::string &what)
		{
			CPPUNIT_ASSERT_MESSAGE(where_ + " step " + std::to_string(now_) + ": " +
						       what,
					       ok);
		}
		io_u *fresh()
		{
			seen_.push_back(false);
			return io(next_id_);
		}

		void refused(bool accepted, size_t before, bool waiting)
		{
			check(!accepted, "an io_u beyond depth is refused");
			check(f_.size() == before && f_.flush_waiting() == waiting,
			      "a refused io_u changes nothing");
			next_id_++; // never to be completed
		}

		void read()
		{
			now_++;
			io_u *u = fresh();
			uint64_t token;
			const size_t before = f_.size();
			const bool waiting = f_.flush_waiting();
			token = f_.next_read_token();
			const bool ok = f_.add_read(u);
			if (outstanding() == depth_)
				return refused(ok, before, waiting);
			check(ok, "a read within depth is taken");
			reads_.push_back({next_id_++, 0, 0, now_, token});
			if (pick(2)) // the last read of a run is signaled
				fifo_.push_back({false, token});
		}

		void write()
		{
			now_++;
			io_u *u = fresh();
			const uint64_t len = (1 + pick(4)) * K / 2;
			const uint64_t off = pick(REGION / K * 2 - 4) * K / 2;
			const size_t before = f_.size();
			const bool waiting = f_.flush_waiting();
			const bool ok = f_.add_write(u, off, len);
			if (outstanding() == depth_)
				return refused(ok, before, waiting);
			check(ok, "a write within depth is taken");
			writes_.push_back({next_id_++, off, off + len, now_});
		}

		void sync()
		{
			now_++;
			io_u *u = fresh();
			bool done = false;
			const size_t before = f_.size();
			const bool waiting = f_.flush_waiting();
			const size_t done_before = f_.completed();
			const bool ok = f_.add_sync(u);
			done = f_.completed() > done_before;
			if (done)
				check(f_.hand_out(SIZE_MAX) == 1 && f_.handed(0) == u,
				      "a sync done at once is handed out");
			if (writes_.empty()) {
				check(ok && done, "a sync with nothing in flight is done at once");
				seen_[next_id_++] = true;
				return;
			}
			if (outstanding() == depth_)
				return refused(ok, before, waiting);
			check(ok && !done, "a sync after writes waits for them");
			check(f_.flush_waiting() == waiting, "a sync adds no flush");
			Io s{next_id_++, 0, 0, now_};
			s.sync = true;
			writes_.push_back(s);
		}

		void post()
		{
			now_++;
			while (f_.flush_waiting()) {
				const Flush fl = f_.next_flush();
				f_.flush_posted();
				check(fl.length > 0 && fl.offset + fl.length <= REGION,
				      "a flush lies within what was written");
				posted_.push_back(
					{fl.offset, fl.offset + fl.length, fl.token, now_});
				fifo_.push_back({true, fl.token});
			}
		}

		// the device completes the oldest signaled operation
		void device()
		{
			now_++;
			if (fifo_.empty())
				return;
			auto [flush, token] = fifo_.front();
			fifo_.pop_front();
			completed(flush ? &writes_ : &reads_, token);
		}

		// A flush posted after `after`, completed by now (posted no later
		// than the one completing), whose range holds [lo, hi); with ANY
		// any flush orders what was written before it.
		bool flushed(long after, uint64_t lo, uint64_t hi, size_t upto) const
		{
			for (size_t i = 0; i <= upto; i++) {
				const Posted &p = posted_[i];
				if (p.at > after &&
				    (merge_ == InFlight::Merge::ANY || (p.lo <= lo && hi <= p.hi)))
					return true;
			}
			return false;
		}

		void completed(std::deque<Io> *q, uint64_t token)
		{
			f_.complete(token);
			std::vector<io_u *> got;
			const size_t n = f_.hand_out(SIZE_MAX);
			for (size_t i = 0; i < n; i++)
				got.push_back(f_.handed(i));
			size_t upto = posted_.size();
			if (q == &writes_) {
				while (posted_[--upto].token != token)
					;
			}
			for (io_u *u : got) {
				check(!q->empty() && u == io(q->front().id),
				      "the oldest io_u of its kind completes first");
				const Io &x = q->front();
				check(!seen_[x.id], "an io_u completes once");
				seen_[x.id] = true;
				if (q == &reads_)
					check(x.token <= token,
					      "a read completes with a read after it");
				// a sync: every write before it completed first, each
				// flushed after it was written
				else if (!x.sync)
					check(flushed(x.added, x.lo, x.hi, upto),
					      "a write completes only after a flush posted after "
					      "it");
				q->pop_front();
			}
			if (q == &reads_)
				check(q->empty() || q->front().token > token,
				      "a read completes every read before it");
		}
	};
};

CPPUNIT_TEST_SUITE_REGISTRATION(InFlightTest);

}
