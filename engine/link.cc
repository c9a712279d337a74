// SPDX-License-Identifier: BSD-3-Clause
#include "link.hh"

namespace rpma_fio {

PortQueries LinkWatch::real_queries()
{
	// ibv_query_port is a macro around an inline function
	return {
		[](ibv_context *dev, ibv_device_attr *attr) {
			return ibv_query_device(dev, attr);
		},
		[](ibv_context *dev, uint8_t port, ibv_port_attr *attr) {
			return ibv_query_port(dev, port, attr);
		},
	};
}

void LinkWatch::watch(ibv_context *dev)
{
	ibv_device_attr attr{};
	dev_ = dev;
	ports_ = q_.device(dev, &attr) ? 0 : attr.phys_port_cnt;
}

void LinkWatch::watch_port(ibv_context *dev, uint8_t)
{
	watch(dev);
}

bool LinkWatch::down()
{
	const auto now = Clock::now();
	if (!ports_ || now < next_check_)
		return false;
	next_check_ = now + std::chrono::milliseconds(CHECK_MS);
	for (uint8_t port = 1; port <= ports_; port++) {
		ibv_port_attr attr{};
		// a failed query proves nothing: count the port as up
		if (q_.port(dev_, port, &attr) || attr.state == IBV_PORT_ACTIVE)
			return false;
	}
	return true;
}

}
