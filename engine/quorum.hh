// SPDX-License-Identifier: BSD-3-Clause
// quorum.hh -- which operations of a replicated append-only log a write
// quorum holds (librpma_aof_client with several replicas; docs/engines.md,
// "Replicas").
//
// Each operation (a group of appends made persistent together, the log's
// start) is posted to every live replica at once, numbered in post order.
// A connection completes its operations in the order they were posted, so
// a replica's acknowledgements are a count: it holds the first acked(r)
// operations persistently. An operation is released (its I/Os complete in
// fio) once `needed` replicas hold it; a replica lost later still holds
// what it acknowledged, so it still counts for what it did. A live replica
// may lag at most `lag` writes behind what is released: beyond that the
// released point waits for it, which bounds what is outstanding on each
// connection (its queue sizes) whatever its speed.
//
// Checked builds (configure --enable-checked) assert the invariants.
#ifndef RPMA_ENGINE_QUORUM_HH
#define RPMA_ENGINE_QUORUM_HH

#include "ring.hh"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <utility>

namespace rpma_fio {

class Quorum {
public:
	static constexpr unsigned MAX_REPLICAS = 3;

	// What an operation is: the token its I/Os complete with, the log's
	// length once it is persistent, the writes posted up to it (counted
	// from the job's start).
	struct Op {
		uint64_t token, end, writes;
	};

	// Takes all the memory: at most `ops` operations are outstanding (not
	// acknowledged by every live replica).
	void reserve(unsigned replicas, unsigned needed, uint64_t lag, size_t ops)
	{
		assert(needed >= 1 && needed <= replicas && replicas <= MAX_REPLICAS);
		replicas_ = live_ = replicas;
		needed_ = needed;
		lag_ = lag;
		ops_.reserve(ops);
		acked_.fill({});
		lost_.fill(false);
		released_ = {};
		nreleased_ = 0;
	}

	// No room for one more operation: the caller waits for completions.
	bool full() const { return ops_.full(); }
	// Precondition: !full(). Returns its number.
	uint64_t post(const Op &op)
	{
		const uint64_t n = ops_.pushed();
		const bool pushed = ops_.push(op);
		assert(pushed);
		(void)pushed;
		return n;
	}

	// Replica r acknowledged operation n (and so every one before it): the
	// token of the newest operation released by it, or 0. A number never
	// posted, or one acknowledged already, changes nothing.
	uint64_t ack(unsigned r, uint64_t n)
	{
		// (MAX_REPLICAS first: the compiler then sees the bound)
		if (r >= MAX_REPLICAS || r >= replicas_ || lost_[r] || n >= ops_.pushed() ||
		    n < acked_[r].count)
			return 0;
		const Op &op = ops_.at(n);
		acked_[r] = {n + 1, op.end, op.writes};
		return release();
	}

	// Replica r is gone: its acknowledgements still count. Returns what its
	// loss releases (it may have held the others back), or 0.
	uint64_t lose(unsigned r)
	{
		if (r >= MAX_REPLICAS || r >= replicas_ || lost_[r])
			return 0;
		lost_[r] = true;
		live_--;
		return live_ ? release() : 0;
	}

	unsigned live() const { return live_; }
	// Operations posted from now on can still reach `needed` replicas.
	bool reachable() const { return live_ >= needed_; }
	// The log's length replica r acknowledged as persistent.
	uint64_t durable(unsigned r) const { return acked_[r].end; }
	// The log's length the quorum holds, as released.
	uint64_t released() const { return released_.end; }
	// The log's length with every operation posted.
	uint64_t posted_end() const { return ops_.pushed() ? ops_.at(ops_.pushed() - 1).end : 0; }
	// Live replica r has operations posted it has not acknowledged.
	bool owes(unsigned r) const { return !lost_[r] && acked_[r].count < ops_.pushed(); }
	// Every live replica acknowledged every operation posted.
	bool drained() const { return ops_.empty(); }

private:
	struct Acked {
		uint64_t count = 0, end = 0, writes = 0;
	};

	// The newest operation that `needed` replicas hold and no live replica
	// lags too far behind, if newer than the last released: its token.
	uint64_t release()
	{
		std::array<uint64_t, MAX_REPLICAS> counts{};
		uint64_t slowest = UINT64_MAX, oldest = UINT64_MAX;
		for (unsigned r = 0; r < replicas_; r++) {
			counts[r] = acked_[r].count;
			if (!lost_[r]) {
				slowest = std::min(slowest, acked_[r].writes);
				oldest = std::min(oldest, acked_[r].count);
			}
		}
		// the needed-th largest count: that many replicas hold the first
		// `held` operations
		for (unsigned i = 1; i < replicas_; i++) // at most 3: by hand
			for (unsigned j = i; j > 0 && counts[j - 1] < counts[j]; j--)
				std::swap(counts[j - 1], counts[j]);
		uint64_t held = counts[needed_ - 1];
		while (held > nreleased_ && ops_.at(held - 1).writes > slowest + lag_)
			held--;
		uint64_t token = 0;
		if (held > nreleased_) {
			const Op &op = ops_.at(held - 1);
			released_ = {held, op.end, op.writes};
			nreleased_ = held;
			token = op.token;
		}
		// what every live replica acknowledged is needed no more; the
		// released ones are read above, before they go
		while (ops_.popped() < std::min(oldest, nreleased_))
			ops_.pop();
		check();
		return token;
	}

	void check() const
	{
		// Invariant: what is released is held by `needed` replicas, and
		// was posted.
		assert(nreleased_ <= ops_.pushed());
		// Invariant: an operation leaves only once released and held by
		// every live replica.
		assert(ops_.popped() <= nreleased_);
	}

	unsigned replicas_ = 0, live_ = 0, needed_ = 1;
	uint64_t lag_ = 0;
	Ring<Op> ops_;
	std::array<Acked, MAX_REPLICAS> acked_{};
	std::array<bool, MAX_REPLICAS> lost_{};
	Acked released_{};
	uint64_t nreleased_ = 0;
};

}

#endif
