// SPDX-License-Identifier: BSD-3-Clause
// inflight.hh -- which of a client's io_us wait for which completion, and
// the flushes its writes still need.
//
// Every posted io_u gets a sequence number. Completions on one connection
// arrive in the order their work requests were posted, so a completion
// finishes a whole prefix: a signaled read every read up to it, a flush
// every write and sync up to the newest one it covers.
//
// A write only records its range; the flushes are taken out when the
// client has to wait, shared as docs/engines.md ("Writes share their
// flushes") explains.
#ifndef RPMA_ENGINE_INFLIGHT_HH
#define RPMA_ENGINE_INFLIGHT_HH

#include "ring.hh"

#include <algorithm>

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
	// writes and syncs together).
	bool full() const { return size() >= depth_; }
	// The op_context for the next read added, if it is signaled.
	uint64_t next_read_token() const { return next_seq_; }
	[[nodiscard]] bool add_read(io_u *u);
	[[nodiscard]] bool add_write(io_u *u, uint64_t offset, uint64_t length);
	// A sync completes once everything written before it is flushed (and
	// flushes again what was written since the previous sync). *done: u
	// is complete already, nothing being written.
	[[nodiscard]] bool add_sync(io_u *u, bool *done);

	// The flushes to post, oldest first.
	bool flush_waiting() const { return !flushes_.empty(); }
	const Flush &next_flush() { return flushes_.front(); }
	void flush_posted()
	{
		posted_upto_ = flushes_.front().token & ~FLUSH_BIT;
		flushes_.pop();
	}
	// Nothing posted can complete before the flushes waiting are posted:
	// no read in flight, and every write waits for a flush not posted
	// yet. Polling then can only come back empty.
	bool stalled() const
	{
		return reads_.empty() && !writes_.empty() && writes_.front().seq > posted_upto_;
	}

	// The io_us a completion carrying `token` completes, passed to
	// done(io_u *) in the order they were posted.
	template <typename F> void complete(uint64_t token, F &&done)
	{
		Ring<Entry> &q = (token & FLUSH_BIT) ? writes_ : reads_;
		const uint64_t upto = token & ~FLUSH_BIT;
		while (!q.empty() && q.front().seq <= upto) {
			done(q.front().u);
			q.pop();
		}
	}

	size_t size() const { return reads_.size() + writes_.size(); }

	// Gives up: passes every io_u in flight to done(io_u *), the reads
	// first, each kind in the order posted, and forgets the flushes not
	// posted yet; as after reserve().
	template <typename F> void drain(F &&done)
	{
		for (Ring<Entry> *q : {&reads_, &writes_})
			for (; !q->empty(); q->pop())
				done(q->front().u);
		while (flush_waiting())
			flushes_.pop();
		dirty_lo_ = NOTHING_DIRTY;
		dirty_hi_ = 0;
	}

private:
	static constexpr uint64_t FLUSH_BIT = uint64_t(1) << 63;

	struct Entry {
		io_u *u;
		uint64_t seq;
	};

	// a flush of [lo, hi) completes the writes and syncs up to `seq`
	[[nodiscard]] bool need_flush(uint64_t lo, uint64_t hi, uint64_t seq);

	Merge merge_ = Merge::ANY;
	size_t depth_ = 0;
	uint64_t next_seq_ = 1;
	Ring<Entry> reads_, writes_; // writes_ holds syncs too
	Ring<Flush> flushes_;        // not posted yet
	// written since the last sync; empty when lo >= hi, so that a write
	// widens it without a branch
	static constexpr uint64_t NOTHING_DIRTY = UINT64_MAX;
	uint64_t dirty_lo_ = NOTHING_DIRTY, dirty_hi_ = 0;
	uint64_t posted_upto_ = 0; // what the newest flush posted completes
};

// Inline: they run for every I/O, and a call costs as much as they do.
inline bool InFlight::add_read(io_u *u)
{
	return !full() && reads_.push({u, next_seq_++});
}

inline bool InFlight::add_write(io_u *u, uint64_t offset, uint64_t length)
{
	const uint64_t seq = next_seq_;
	if (full() || !writes_.push({u, seq}))
		return false;
	next_seq_++;
	const uint64_t hi = offset + length;
	dirty_lo_ = std::min(dirty_lo_, offset);
	dirty_hi_ = std::max(dirty_hi_, hi);
	return need_flush(offset, hi, seq);
}

inline bool InFlight::add_sync(io_u *u, bool *done)
{
	*done = false;
	if (dirty_lo_ >= dirty_hi_) {
		// nothing written since the last sync: done once the io_us before
		// it are, with the flush that finishes the newest of them
		if (writes_.empty()) {
			*done = true;
			return true;
		}
		return !full() && writes_.push({u, writes_.back().seq});
	}
	const uint64_t seq = next_seq_;
	if (full() || !writes_.push({u, seq}))
		return false;
	next_seq_++;
	const uint64_t lo = dirty_lo_, hi = dirty_hi_;
	dirty_lo_ = NOTHING_DIRTY;
	dirty_hi_ = 0;
	return need_flush(lo, hi, seq);
}

// Never short of room: each flush waiting has a write or sync of its own in
// flight (false if it were).
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
