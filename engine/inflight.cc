// SPDX-License-Identifier: BSD-3-Clause
#include "inflight.hh"

#include <algorithm>

namespace rpma_fio {

void InFlight::reserve(unsigned depth, Merge merge)
{
	merge_ = merge;
	depth_ = depth;
	reads_.reserve(depth);
	writes_.reserve(depth);
	// every write or sync adds a flush at most
	flushes_.reserve(depth);
	next_seq_ = 1;
	dirty_lo_ = dirty_hi_ = 0;
	posted_upto_ = 0;
}

bool InFlight::add_read(io_u *u)
{
	return !full() && reads_.push({u, next_seq_++});
}

bool InFlight::add_write(io_u *u, uint64_t offset, uint64_t length)
{
	const uint64_t seq = next_seq_;
	if (full() || !writes_.push({u, seq}))
		return false;
	next_seq_++;
	const uint64_t hi = offset + length;
	if (dirty_lo_ == dirty_hi_) {
		dirty_lo_ = offset;
		dirty_hi_ = hi;
	} else {
		dirty_lo_ = std::min(dirty_lo_, offset);
		dirty_hi_ = std::max(dirty_hi_, hi);
	}
	return need_flush(offset, hi, seq);
}

bool InFlight::add_sync(io_u *u, bool *done)
{
	*done = false;
	if (dirty_lo_ == dirty_hi_) {
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
	dirty_lo_ = dirty_hi_ = 0;
	return need_flush(lo, hi, seq);
}

// Never short of room: each flush waiting has a write or sync of its own in
// flight (false if it were).
bool InFlight::need_flush(uint64_t lo, uint64_t hi, uint64_t seq)
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
