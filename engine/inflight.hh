// SPDX-License-Identifier: BSD-3-Clause
// inflight.hh -- which of a client's io_us wait for which completion, and
// the flushes its writes still need.
//
// Completions on one connection arrive in the order their work requests
// were posted, so a completion finishes a whole prefix: a signaled read
// every read up to it, a flush every write and sync up to the newest one
// it covers. So the complete io_us of each kind are the oldest ones, and
// fio gets them straight from where they wait (hand_out), without a copy.
//
// A write only records its range; the flushes are taken out when the
// client has to wait, shared as docs/engines.md ("Writes share their
// flushes") explains.
//
// Each invariant is stated once, where it is checked (check()); checked
// builds (configure --enable-checked) assert them after every change.
#ifndef RPMA_ENGINE_INFLIGHT_HH
#define RPMA_ENGINE_INFLIGHT_HH

#include "ring.hh"

#include <algorithm>
#include <cassert>
#include <cstdint>

struct io_u;

namespace rpma_fio {

// A flush of [offset, offset + length) of the server's region, and the
// token it carries as op_context.
struct Flush {
	uint64_t offset, length, token;
};

class InFlight {
public:
	// Which writes may share a flush: ANY (APM) or only ADJACENT ranges
	// (GPSPM); docs/engines.md says why.
	enum class Merge { ANY, ADJACENT };

	// Takes all the memory: at most `depth` io_us are ever in flight.
	void reserve(unsigned depth, Merge merge);

	// The io_us are added once their work request is posted, so that a
	// failed post leaves nothing to undo. Each add returns false, and
	// records nothing, when `depth` io_us are in flight already (reads,
	// writes and syncs together), or when fio left more complete io_us
	// with the engine than it could have (an engine bug).
	bool full() const { return size() >= depth_; }
	// The op_context for the next read added, if it is signaled.
	uint64_t next_read_token() const { return reads_.added() + 1; }
	[[nodiscard]] bool add_read(io_u *u)
	{
		const bool added = !full() && reads_.push(u);
		check();
		return added;
	}
	[[nodiscard]] bool add_write(io_u *u, uint64_t offset, uint64_t length);
	// A sync completes once everything written before it is flushed: with
	// the flush of the newest write before it, at once when nothing is
	// being written. It adds no flush of its own: every write has one
	// waiting or posted already (add_write), and flushing a range again
	// would step back in an append-only log, whose server (aof_mode=gpspm)
	// takes a flush only at the log's end.
	[[nodiscard]] bool add_sync(io_u *u);
	// An io_u complete already (given back unposted): only while no write
	// or sync is in flight, which it would overtake.
	[[nodiscard]] bool add_done(io_u *u)
	{
		if (writes_.in_flight() != 0 || !writes_.push({u, 0}))
			return false;
		writes_.done++;
		check();
		return true;
	}

	// The flushes to post, oldest first.
	bool flush_waiting() const { return !flushes_.empty(); }
	const Flush &next_flush() { return flushes_.front(); }
	void flush_posted()
	{
		posted_upto_ = flushes_.front().token & ~FLUSH_BIT;
		flushes_.pop();
		check();
	}
	// Nothing posted can complete before the flushes waiting are posted:
	// no read in flight, and every write waits for a flush not posted
	// yet. Polling then can only come back empty.
	bool stalled() const
	{
		return reads_.in_flight() == 0 && writes_.in_flight() != 0 &&
		       writes_.at(writes_.done).seq > posted_upto_;
	}

	// A completion carrying `token` arrived: the io_us it ends become
	// complete. A read's token is the count of reads added with it, so a
	// signaled read ends every read up to it at once; a token that matches
	// nothing in flight ends nothing beyond what is, and nothing a flush
	// not posted yet waits for.
	void complete(uint64_t token)
	{
		if (token & FLUSH_BIT) {
			const uint64_t upto = std::min(token & ~FLUSH_BIT, posted_upto_);
			while (writes_.in_flight() != 0 && writes_.at(writes_.done).seq <= upto)
				writes_.done++;
		} else {
			reads_.done = std::max(reads_.done, std::min(token, reads_.added()));
		}
		check();
	}

	// In flight: added, not complete.
	size_t size() const { return reads_.in_flight() + writes_.in_flight(); }
	size_t reads_in_flight() const { return reads_.in_flight(); }
	// The writes a flush's token covers, counted from the job's start.
	static uint64_t writes_upto(uint64_t flush_token) { return flush_token & ~FLUSH_BIT; }
	// Complete and not handed out yet.
	size_t completed() const { return reads_.complete() + writes_.complete(); }

	// Hands out up to `max` of the complete io_us (fio takes them with
	// handed(0..n) right after, before anything is added: their slots stay
	// as they are until then): returns n. They are fio's from then on.
	size_t hand_out(size_t max)
	{
		const size_t r = reads_.hand_out(max);
		const size_t n = r + writes_.hand_out(max - r, r);
		check();
		return n;
	}
	io_u *handed(size_t i) const
	{
		// Precondition: one of the last hand_out(), which has not been
		// given a slot again since (nothing added).
		assert(i < reads_.out + writes_.out);
		return i < reads_.out ? reads_.at(reads_.first + i)
				      : writes_.at(writes_.first + i).u;
	}

	// Gives up: every io_u in flight is passed to failed(io_u *), the reads
	// first, each kind in the order posted, and becomes complete; the
	// flushes not posted yet are forgotten.
	template <typename F> void fail(F &&failed)
	{
		for (; reads_.in_flight() != 0; reads_.done++)
			failed(reads_.at(reads_.done));
		for (; writes_.in_flight() != 0; writes_.done++)
			failed(writes_.at(writes_.done).u);
		flushes_.clear();
		check();
	}

private:
	static constexpr uint64_t FLUSH_BIT = uint64_t(1) << 63;

	struct Entry {
		io_u *u;
		uint64_t seq;
	};

	// The io_us of one kind in the order added, counted: the first
	// `gone` (popped) went to fio, the first `done` are complete, `added`
	// (pushed) were added.
	template <typename T> struct Lane : Ring<T> {
		uint64_t done = 0;
		// the last hand_out(): `out` io_us; handed(i) is at(first + i)
		uint64_t first = 0, out = 0;

		void reserve(size_t n)
		{
			Ring<T>::reserve(n);
			done = first = out = 0;
		}
		uint64_t added() const { return this->pushed(); }
		uint64_t gone() const { return this->popped(); }
		size_t in_flight() const { return added() - done; }
		size_t complete() const { return done - gone(); }
		// hands out up to max, after `before` handed out by another lane
		size_t hand_out(size_t max, size_t before = 0)
		{
			out = std::min<uint64_t>(complete(), max);
			first = gone() - before;
			this->drop(out);
			return out;
		}
		void check() const
		{
			// Invariant: what went to fio was complete, and what is
			// complete was added.
			assert(gone() <= done && done <= added());
		}
	};

	// a flush of [lo, hi) completes the writes and syncs up to `seq`
	[[nodiscard]] bool need_flush(uint64_t lo, uint64_t hi, uint64_t seq);

	Merge merge_ = Merge::ANY;
	size_t depth_ = 0;
	uint64_t next_seq_ = 1; // of the writes and syncs
	Lane<io_u *> reads_;
	Lane<Entry> writes_;       // syncs too
	Ring<Flush> flushes_;      // not posted yet
	uint64_t posted_upto_ = 0; // what the newest flush posted completes

	void check() const
	{
		reads_.check();
		writes_.check();
		// Invariant: at most depth io_us in flight, of every kind together.
		assert(size() <= depth_);
		// Invariant: each flush waiting has a write of its own in
		// flight, and carries a sequence number already given out.
		assert(flushes_.size() <= writes_.in_flight());
		assert(flushes_.empty() || (flushes_.popped() < flushes_.pushed() &&
					    (last_flush_token() & ~FLUSH_BIT) < next_seq_));
		// Invariant: no flush posted covers a write not added yet.
		assert(posted_upto_ < next_seq_);
	}
	uint64_t last_flush_token() const { return flushes_.at(flushes_.pushed() - 1).token; }
};

// Inline: they run for every I/O, and a call costs as much as they do.
inline bool InFlight::add_write(io_u *u, uint64_t offset, uint64_t length)
{
	const uint64_t seq = next_seq_;
	if (full() || !writes_.push({u, seq}))
		return false;
	next_seq_++;
	const bool flush_taken = need_flush(offset, offset + length, seq);
	check();
	return flush_taken;
}

inline bool InFlight::add_sync(io_u *u)
{
	if (writes_.in_flight() == 0)
		return add_done(u);
	const bool added = !full() && writes_.push({u, writes_.at(writes_.added() - 1).seq});
	check();
	return added;
}

// Never short of room: each flush waiting has a write of its own in flight
// (false if it were).
inline bool InFlight::need_flush(uint64_t lo, uint64_t hi, uint64_t seq)
{
	if (!flushes_.empty()) {
		Flush &last = flushes_.back();
		const uint64_t last_hi = last.offset + last.length;
		if (merge_ == Merge::ANY || (lo <= last_hi && hi >= last.offset)) {
			last.offset = std::min(last.offset, lo);
			last.length = std::max(last_hi, hi) - last.offset;
			last.token = seq | FLUSH_BIT;
			return true;
		}
	}
	return flushes_.push({lo, hi - lo, seq | FLUSH_BIT});
}

}

#endif
