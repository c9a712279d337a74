// SPDX-License-Identifier: BSD-3-Clause
#include "inflight.hh"

namespace rpma_fio {

void InFlight::reserve(unsigned depth, Merge merge)
{
	merge_ = merge;
	depth_ = depth;
	// up to depth in flight or complete, and what the last hand_out() gave
	// fio, whose slots fio may still read
	reads_.reserve(2 * static_cast<size_t>(depth));
	writes_.reserve(2 * static_cast<size_t>(depth));
	// every write adds a flush at most
	flushes_.reserve(depth);
	next_seq_ = 1;
	posted_upto_ = 0;
}

}
