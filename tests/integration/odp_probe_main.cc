// SPDX-License-Identifier: BSD-3-Clause
// odp-probe [IP]: tells the shell-driven suites (the examples and the
// engine tests on FS DAX) whether this kernel's On-Demand Paging keeps the
// offset within a page (odp_probe.hh), for the device of IP (default
// RPMA_TEST_IP). Prints one line, "odp-probe: VERDICT: DETAIL", and exits
// 0 (offsets kept), 1 (offsets lost: data cases over ODP must not run as
// if they could pass), 77 (the device has no ODP) or 2 (cannot tell).

#include <cstdio>
#include <cstdlib>

#include <librpma.h>

#include "odp_probe.hh"

int main(int argc, char *argv[])
{
	const char *ip = argc > 1 ? argv[1] : std::getenv("RPMA_TEST_IP");
	if (!ip) {
		std::fprintf(stderr, "usage: odp-probe IP (or RPMA_TEST_IP)\n");
		return 2;
	}
	ibv_context *context = nullptr;
	int ret = rpma_utils_get_ibv_context(ip, RPMA_UTIL_IBV_CONTEXT_LOCAL, &context);
	if (ret) {
		std::printf("odp-probe: cannot tell: no RDMA device for %s: %s\n", ip,
			    rpma_err_2str(ret));
		return 2;
	}
	const it::OdpProbe probe = it::probe_odp_offsets(context, ip);
	switch (probe.verdict) {
	case it::OdpProbe::KEPT:
		std::printf("odp-probe: offsets kept: %s\n", probe.detail.c_str());
		return 0;
	case it::OdpProbe::LOST:
		std::printf("odp-probe: offsets lost: %s\n", it::odp_offset_defect(probe).c_str());
		return 1;
	case it::OdpProbe::NO_ODP:
		std::printf("odp-probe: no ODP: %s\n", probe.detail.c_str());
		return 77;
	case it::OdpProbe::BROKEN:
		break;
	}
	std::printf("odp-probe: cannot tell: %s\n", probe.detail.c_str());
	return 2;
}
