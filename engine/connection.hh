// SPDX-License-Identifier: BSD-3-Clause
// connection.hh -- one client's connection to a server job (server.hh):
// its queues, its region of the job's memory, its probe, where it stands.
// A flavour keeps its per-client state in a class derived from it, named
// ServedClient in each (not rpma_fio::Client, the client engines' class).
#ifndef RPMA_ENGINE_CONNECTION_HH
#define RPMA_ENGINE_CONNECTION_HH

#include "conn_events.hh"
#include "probe.hh"

#include <infiniband/verbs.h>
#include <librpma.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace rpma_fio {

// A memory window, deleted with its owner.
struct WindowDelete {
	void operator()(rpma_mw *mw) const { rpma_mw_delete(&mw); }
};
using Window = std::unique_ptr<rpma_mw, WindowDelete>;

struct Connection {
	// Waiting: no request taken for it yet; Connecting: accepted, not
	// established; Serving; then Ended (its run ended as it should) or
	// Failed (reported, err set).
	enum class State { Waiting, Connecting, Serving, Ended, Failed };

	Connection() = default;
	Connection(const Connection &) = delete;
	Connection &operator=(const Connection &) = delete;
	// The queue pair goes before the window and the region: the device
	// then writes into none of it.
	virtual ~Connection()
	{
		close_connection(&conn);
		window.reset();
		rpma_mr_dereg(&mr);
	}

	bool live() const { return state == State::Connecting || state == State::Serving; }

	size_t index = 0;            // in accepting order: its region is the index-th
	rpma_mr_local *mr = nullptr; // its region of the job's memory
	// isolation=window: the window that opens mr to this connection alone,
	// made for each connection request taken and gone with its connection
	// (a place taken again gets a new one, with a new key)
	Window window;
	rpma_conn *conn = nullptr;
	rpma_cq *cq = nullptr;
	int event_fd = -1, cq_fd = -1; // event_fd in the server's wait set while conn is
	bool cq_watched = false;       // cq_fd in it (Server::watch_completions)
	uint32_t qp = 0;
	State state = State::Waiting;
	std::string name;          // for messages: "the client", "client K of N at ..."
	int err = 0;               // why it failed (errno)
	Clock::time_point since{}; // Connecting since; a failed probe: since when
	Probe probe;
	ibv_wc_status probe_failed = IBV_WC_SUCCESS;
};

}

#endif
