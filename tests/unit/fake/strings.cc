// SPDX-License-Identifier: BSD-3-Clause
// The names rdma-core gives CM events and work completion statuses, used by
// the library in log messages.
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <iterator>

extern "C" const char *rdma_event_str(rdma_cm_event_type event)
{
	static const char *const names[] = {
		"RDMA_CM_EVENT_ADDR_RESOLVED",   "RDMA_CM_EVENT_ADDR_ERROR",
		"RDMA_CM_EVENT_ROUTE_RESOLVED",  "RDMA_CM_EVENT_ROUTE_ERROR",
		"RDMA_CM_EVENT_CONNECT_REQUEST", "RDMA_CM_EVENT_CONNECT_RESPONSE",
		"RDMA_CM_EVENT_CONNECT_ERROR",   "RDMA_CM_EVENT_UNREACHABLE",
		"RDMA_CM_EVENT_REJECTED",        "RDMA_CM_EVENT_ESTABLISHED",
		"RDMA_CM_EVENT_DISCONNECTED",    "RDMA_CM_EVENT_DEVICE_REMOVAL",
		"RDMA_CM_EVENT_MULTICAST_JOIN",  "RDMA_CM_EVENT_MULTICAST_ERROR",
		"RDMA_CM_EVENT_ADDR_CHANGE",     "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};
	// a negative value wraps to a large index
	const auto index = static_cast<size_t>(event);
	return index < std::size(names) ? names[index] : "UNKNOWN EVENT";
}

extern "C" const char *ibv_wc_status_str(ibv_wc_status status)
{
	return status == IBV_WC_SUCCESS ? "success" : "fake error status";
}
