// SPDX-License-Identifier: BSD-3-Clause
// link.hh -- noticing that the network link under a connection is gone.
// With the link down, rxe (and some RoCE NICs) neither completes nor fails
// what is in flight and sends no connection event: a job waiting for either
// would wait forever. The port state tells.
#ifndef RPMA_ENGINE_LINK_HH
#define RPMA_ENGINE_LINK_HH

#include "conn_events.hh"

#include <infiniband/verbs.h>

namespace rpma_fio {

class LinkWatch {
public:
	void watch(ibv_context *dev);

	// true if no port of the device is active; asks the device at most
	// every CHECK_MS (a system call), so it may be called on idle paths
	bool down();

private:
	static constexpr int CHECK_MS = 500;
	ibv_context *dev_ = nullptr;
	uint8_t ports_ = 0;
	Clock::time_point next_check_{};
};

}

#endif
