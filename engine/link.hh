// SPDX-License-Identifier: BSD-3-Clause
// link.hh -- noticing that the network link under a connection is gone.
// With the link down, rxe (and some RoCE NICs) neither completes nor fails
// what is in flight and sends no connection event (docs/platforms.md, "rxe:
// a lost link ends nothing"): a job waiting for either would wait forever.
// The port state tells.
#ifndef RPMA_ENGINE_LINK_HH
#define RPMA_ENGINE_LINK_HH

#include "conn_events.hh"

#include <infiniband/verbs.h>
#include <sys/types.h>

#include <span>

namespace rpma_fio {

// What LinkWatch asks the device; tests replace it.
struct PortQueries {
	int (*device)(ibv_context *, ibv_device_attr *);
	int (*port)(ibv_context *, uint8_t, ibv_port_attr *);
	// the valid entries of every port's GID table (ibv_query_gid_table)
	ssize_t (*gids)(ibv_context *, ibv_gid_entry *, size_t);
};

class LinkWatch {
public:
	explicit LinkWatch(PortQueries q = real_queries()) : q_(q) {}

	// Watches the port of dev through which addr is reached: the local
	// address a server listens on (local), or a client's server. A device
	// may have more than one port; another port's link says nothing about
	// the connection's.
	void watch(ibv_context *dev, const char *addr, bool local);
	// watches port `port` of dev; 0: every port (down when none is active)
	void watch_port(ibv_context *dev, uint8_t port);

	// true if the watched port is not active; asks the device at most
	// every CHECK_MS (a system call), so it may be called on idle paths
	bool down();

	static PortQueries real_queries();
	// The port of dev through which addr is reached (see watch()): the
	// one whose GID table holds the local address (addr itself, or the
	// address from which this host reaches addr), as RoCE lists it, or
	// the IPoIB interface's GID that holds it; 0 if none or more than one
	// port does. It makes no RDMA-CM id (docs/thread-safety.md).
	uint8_t port_for(ibv_context *dev, const char *addr, bool local) const;
	// the port of dev whose GID table holds one of gids; 0 if none or more
	// than one port does
	uint8_t port_listing(ibv_context *dev, std::span<const ibv_gid> gids) const;

private:
	static constexpr int CHECK_MS = 500;
	PortQueries q_;
	ibv_context *dev_ = nullptr;
	uint8_t first_ = 0, last_ = 0; // the ports watched, none if 0
	Clock::time_point next_check_{};
};

}

#endif
