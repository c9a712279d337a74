// SPDX-License-Identifier: BSD-3-Clause
// Whether the kernel's On-Demand Paging keeps the offset within a page
// (docs/platforms.md, "rxe: ODP loses the offset within a page"): where it
// does not, data is misplaced while the work completes successfully. The
// probe asks rdma-core directly, on plain anonymous DRAM registered with
// IBV_ACCESS_ON_DEMAND, so that FS DAX and librpma are out of the picture:
// one RDMA write into the region and one RDMA read out of it, each at an
// offset inside a page, between two RC queue pairs of the same device.

#ifndef RPMA_TESTS_INTEGRATION_ODP_PROBE_HH
#define RPMA_TESTS_INTEGRATION_ODP_PROBE_HH

#include <string>

#include <infiniband/verbs.h>

namespace it {

struct OdpProbe {
	enum Verdict {
		KEPT,   // both operations placed their data where asked
		LOST,   // data landed at (or came from) the start of the page
		NO_ODP, // the device reports no ODP for RC reads and writes
		BROKEN, // the probe could not tell (setup failed, garbled data)
	};
	Verdict verdict;
	std::string detail; // what was seen, for a skip or failure message
};

// Runs the probe on port 1 of `context`, whose interface has the IPv4
// address `ip` (its RoCE GID); IB devices are addressed by LID.
OdpProbe probe_odp_offsets(ibv_context *context, const char *ip);

// The reason a test gives when it skips a data case because of LOST.
std::string odp_offset_defect(const OdpProbe &probe);

} // namespace it

#endif
