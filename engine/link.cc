// SPDX-License-Identifier: BSD-3-Clause
#include "link.hh"

#include <rdma/rdma_cma.h>

#include <cstring>

namespace rpma_fio {

namespace {

constexpr int RESOLVE_TIMEOUT_MS = 2000;

}

// librpma keeps its connection's cm id to itself, so a cm id of our own
// resolves the address the same way rdma-cm does for it.
uint8_t LinkWatch::port_for(ibv_context *dev, const char *addr, bool local) const
{
	rdma_addrinfo hints{}, *info;
	hints.ai_flags = local ? RAI_PASSIVE : 0;
	hints.ai_port_space = RDMA_PS_TCP;
	if (rdma_getaddrinfo(addr, nullptr, &hints, &info))
		return 0;
	uint8_t port = 0;
	rdma_cm_id *id;
	// without an event channel, bind and resolve return when done
	if (!rdma_create_id(nullptr, &id, nullptr, RDMA_PS_TCP)) {
		int ret = local ? rdma_bind_addr(id, info->ai_src_addr)
				: rdma_resolve_addr(id, nullptr, info->ai_dst_addr,
						    RESOLVE_TIMEOUT_MS);
		if (!ret && id->verbs && !std::strcmp(id->verbs->device->name, dev->device->name))
			port = id->port_num;
		rdma_destroy_id(id);
	}
	rdma_freeaddrinfo(info);
	return port;
}

PortQueries LinkWatch::real_queries()
{
	// ibv_query_port is a macro around an inline function
	return {
		[](ibv_context *dev, ibv_device_attr *attr) { return ibv_query_device(dev, attr); },
		[](ibv_context *dev, uint8_t port, ibv_port_attr *attr) {
			return ibv_query_port(dev, port, attr);
		},
	};
}

void LinkWatch::watch(ibv_context *dev, const char *addr, bool local)
{
	watch_port(dev, port_for(dev, addr, local));
}

void LinkWatch::watch_port(ibv_context *dev, uint8_t port)
{
	dev_ = dev;
	if (port) {
		first_ = last_ = port;
		return;
	}
	ibv_device_attr attr{};
	first_ = 1;
	last_ = q_.device(dev, &attr) ? 0 : attr.phys_port_cnt;
}

bool LinkWatch::down()
{
	const auto now = Clock::now();
	if (!last_ || now < next_check_)
		return false;
	next_check_ = now + std::chrono::milliseconds(CHECK_MS);
	for (uint8_t port = first_; port <= last_; port++) {
		ibv_port_attr attr{};
		// a failed query proves nothing: count the port as up
		if (q_.port(dev_, port, &attr) || attr.state == IBV_PORT_ACTIVE)
			return false;
	}
	return true;
}

}
