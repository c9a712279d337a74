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
		dirty_lo_ = dirty_hi_ = 0;
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
	Ring<Entry> reads_, writes_;           // writes_ holds syncs too
	Ring<Flush> flushes_;                  // not posted yet
	uint64_t dirty_lo_ = 0, dirty_hi_ = 0; // written since the last sync
	uint64_t posted_upto_ = 0;             // what the newest flush posted completes
};

}

#endif
