// SPDX-License-Identifier: BSD-3-Clause
// quorum_test.cc -- which appends of a replicated log a write quorum holds
// (engine/quorum.hh); no fio, no RDMA.
#ifdef NDEBUG
#error "quorum_test checks the assertions: build it without NDEBUG"
#endif
#include "quorum.hh"

#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <array>
#include <random>
#include <vector>

using rpma_fio::Quorum;

namespace {

constexpr uint64_t K = 4096;

// op i: token 100 + i, the log K * (i + 1) long, i + 1 writes
Quorum::Op op(uint64_t i)
{
	return {100 + i, K * (i + 1), i + 1};
}

class QuorumTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(QuorumTest);
	CPPUNIT_TEST(one_replica_releases_each_ack);
	CPPUNIT_TEST(all_three_needed_by_default);
	CPPUNIT_TEST(two_of_three_any_two);
	CPPUNIT_TEST(first_replica_alone_releases_nothing);
	CPPUNIT_TEST(an_ack_covers_the_ops_before_it);
	CPPUNIT_TEST(a_lost_replica_keeps_what_it_held);
	CPPUNIT_TEST(losing_a_laggard_releases);
	CPPUNIT_TEST(a_laggard_holds_back_past_the_lag);
	CPPUNIT_TEST(unreachable_below_the_quorum);
	CPPUNIT_TEST(bogus_acks_change_nothing);
	CPPUNIT_TEST(full_until_every_live_replica_acked);
	CPPUNIT_TEST(random_acks_release_only_what_the_quorum_holds);
	CPPUNIT_TEST_SUITE_END();

public:
	void one_replica_releases_each_ack()
	{
		Quorum q;
		q.reserve(1, 1, 1, 4);
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.post(op(0)));
		CPPUNIT_ASSERT_EQUAL(uint64_t(100), q.ack(0, 0));
		CPPUNIT_ASSERT_EQUAL(K, q.released());
		CPPUNIT_ASSERT(q.drained());
	}

	void all_three_needed_by_default()
	{
		Quorum q;
		q.reserve(3, 3, 4, 8);
		q.post(op(0));
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.ack(2, 0));
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.ack(0, 0));
		CPPUNIT_ASSERT_EQUAL(uint64_t(100), q.ack(1, 0));
	}

	void two_of_three_any_two()
	{
		for (unsigned skip = 0; skip < 3; skip++) {
			Quorum q;
			q.reserve(3, 2, 4, 8);
			q.post(op(0));
			unsigned acks = 0;
			for (unsigned r = 0; r < 3; r++) {
				if (r == skip)
					continue;
				const uint64_t token = q.ack(r, 0);
				CPPUNIT_ASSERT_EQUAL(acks++ == 0 ? uint64_t(0) : uint64_t(100),
						     token);
			}
			CPPUNIT_ASSERT(!q.drained()); // the third still owes it
			CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.ack(skip, 0));
			CPPUNIT_ASSERT(q.drained());
		}
	}

	// the defect the crash test of the issue plants: acknowledging at the
	// first replica
	void first_replica_alone_releases_nothing()
	{
		Quorum q;
		q.reserve(3, 2, 16, 8);
		for (uint64_t i = 0; i < 4; i++)
			q.post(op(i));
		for (uint64_t i = 0; i < 4; i++)
			CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.ack(0, i));
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.released());
		CPPUNIT_ASSERT_EQUAL(4 * K, q.durable(0));
	}

	void an_ack_covers_the_ops_before_it()
	{
		Quorum q;
		q.reserve(2, 2, 8, 8);
		for (uint64_t i = 0; i < 3; i++)
			q.post(op(i));
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.ack(0, 2));
		CPPUNIT_ASSERT_EQUAL(uint64_t(100), q.ack(1, 0));
		CPPUNIT_ASSERT_EQUAL(uint64_t(102), q.ack(1, 2));
		CPPUNIT_ASSERT_EQUAL(3 * K, q.released());
	}

	void a_lost_replica_keeps_what_it_held()
	{
		Quorum q;
		q.reserve(3, 2, 8, 8);
		q.post(op(0));
		q.post(op(1));
		q.ack(2, 1);
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.lose(2));
		CPPUNIT_ASSERT_EQUAL(2 * K, q.durable(2));
		// replica 2 held both before it went: one more makes two
		CPPUNIT_ASSERT_EQUAL(uint64_t(101), q.ack(0, 1));
		CPPUNIT_ASSERT(q.reachable());
	}

	void losing_a_laggard_releases()
	{
		Quorum q;
		q.reserve(3, 2, 1, 8);
		for (uint64_t i = 0; i < 4; i++)
			q.post(op(i));
		q.ack(0, 3);
		// held by two, but replica 2 lags 4 writes (lag 1): op 1 at most
		CPPUNIT_ASSERT_EQUAL(uint64_t(100), q.ack(1, 3));
		CPPUNIT_ASSERT_EQUAL(K, q.released());
		CPPUNIT_ASSERT_EQUAL(uint64_t(103), q.lose(2));
		CPPUNIT_ASSERT_EQUAL(4 * K, q.released());
		CPPUNIT_ASSERT(q.drained());
	}

	void a_laggard_holds_back_past_the_lag()
	{
		Quorum q;
		q.reserve(3, 2, 2, 8);
		for (uint64_t i = 0; i < 5; i++)
			q.post(op(i));
		q.ack(0, 4);
		CPPUNIT_ASSERT_EQUAL(uint64_t(101), q.ack(1, 4)); // 2 writes ahead of replica 2
		CPPUNIT_ASSERT_EQUAL(uint64_t(103), q.ack(2, 1)); // now 2 ahead of its 2
		CPPUNIT_ASSERT_EQUAL(uint64_t(104), q.ack(2, 2));
	}

	void unreachable_below_the_quorum()
	{
		Quorum q;
		q.reserve(3, 2, 4, 8);
		q.post(op(0));
		q.lose(1);
		CPPUNIT_ASSERT(q.reachable());
		q.lose(2);
		CPPUNIT_ASSERT(!q.reachable());
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.ack(0, 0));
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.released());
		CPPUNIT_ASSERT_EQUAL(1u, q.live());
	}

	void bogus_acks_change_nothing()
	{
		Quorum q;
		q.reserve(2, 1, 4, 8);
		q.post(op(0));
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.ack(0, 7)); // never posted
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.ack(5, 0)); // no such replica
		CPPUNIT_ASSERT_EQUAL(uint64_t(100), q.ack(0, 0));
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.ack(0, 0)); // again
		q.lose(1);
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), q.ack(1, 0)); // lost
		CPPUNIT_ASSERT_EQUAL(0 * K, q.durable(1));
	}

	void full_until_every_live_replica_acked()
	{
		Quorum q;
		q.reserve(2, 1, 8, 2);
		q.post(op(0));
		q.post(op(1));
		CPPUNIT_ASSERT(q.full());
		q.ack(0, 1);
		CPPUNIT_ASSERT(q.full()); // replica 1 still owes them
		CPPUNIT_ASSERT(!q.owes(0) && q.owes(1));
		q.ack(1, 0);
		CPPUNIT_ASSERT(!q.full());
		CPPUNIT_ASSERT(q.owes(1));
		q.lose(1);
		CPPUNIT_ASSERT(!q.owes(1));
		q.post(op(2));
		CPPUNIT_ASSERT_EQUAL(3 * K, q.posted_end());
	}

	// Against a model: each replica acks its ops in order, at random
	// moments, some are lost; whatever is released was held by `needed`
	// replicas, and the releases only go forward.
	void random_acks_release_only_what_the_quorum_holds()
	{
		std::mt19937 rng(47);
		for (int round = 0; round < 2000; round++) {
			const unsigned n = 1 + rng() % 3, needed = 1 + rng() % n;
			const uint64_t lag = 1 + rng() % 4;
			Quorum q;
			q.reserve(n, needed, lag, 16);
			std::array<uint64_t, 3> acked{};
			std::array<bool, 3> lost{};
			uint64_t posted = 0, released = 0;
			for (int step = 0; step < 60; step++) {
				const unsigned r = rng() % n;
				uint64_t token = 0;
				if (rng() % 3 == 0 && !q.full()) {
					q.post(op(posted++));
				} else if (rng() % 40 == 0 && !lost[r]) {
					lost[r] = true;
					token = q.lose(r);
				} else if (!lost[r] && acked[r] < posted) {
					acked[r] += 1 + rng() % (posted - acked[r]);
					token = q.ack(r, acked[r] - 1);
				}
				if (!token)
					continue;
				const uint64_t i = token - 100;
				CPPUNIT_ASSERT(i + 1 > released);
				released = i + 1;
				unsigned holders = 0;
				for (unsigned k = 0; k < n; k++)
					holders += acked[k] > i;
				CPPUNIT_ASSERT(holders >= needed);
				CPPUNIT_ASSERT_EQUAL(K * (i + 1), q.released());
			}
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(QuorumTest);

}
