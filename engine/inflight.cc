// SPDX-License-Identifier: BSD-3-Clause
#include "inflight.hh"

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
	dirty_lo_ = NOTHING_DIRTY;
	dirty_hi_ = 0;
	posted_upto_ = 0;
}

}
