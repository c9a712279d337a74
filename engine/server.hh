// SPDX-License-Identifier: BSD-3-Clause
// server.hh -- the part of librpma_apm_server and librpma_gpspm_server that
// does not depend on the persistency method.
//
// Each server job serves one client connection. Opening its "file" maps
// the memory, registers it, listens on serverip:port+N-1 and accepts one
// connection, describing the memory in the accept's private data (the
// workspace). The job's first I/O then serves the connection until the
// client ends it; that ends the job. A client that vanishes ends it too,
// with an error, even one that vanishes without a word (liveness_check()).
#ifndef RPMA_ENGINE_SERVER_HH
#define RPMA_ENGINE_SERVER_HH

#include "fio.hh"
#include "link.hh"
#include "server_memory.hh"

#include <infiniband/verbs.h>
#include <librpma.h>

#include <cstdint>
#include <memory>
#include <span>

namespace rpma_fio {

class Server {
public:
	virtual ~Server();

	// fio's hooks; `make` creates the APM or the GPSPM flavour.
	static int init(thread_data *td, std::unique_ptr<Server> (*make)());
	static int get_file_size(thread_data *td, fio_file *f);
	static int open_file(thread_data *td, fio_file *f);
	static int close_file(thread_data *td, fio_file *f);
	static int invalidate(thread_data *td, fio_file *f);
	static fio_q_status queue(thread_data *td, io_u *u);
	static void cleanup(thread_data *td);

protected:
	// Opens the job's "file": exposes the memory and accepts its client
	// (a server with clients=N: many_server.hh).
	virtual int open(fio_file *f) { return expose(f) || accept(); }
	// Ends the job's connection after its serving (close_file).
	virtual void goodbye();
	// Maps bytes of the job's memory into mem_: 0, or 1 after reporting.
	int map_memory(fio_file *f, size_t bytes);
	// Registers [offset, +len) of mem_ for a client's remote access: 0, or
	// 1 after reporting.
	int register_memory(size_t offset, size_t len, rpma_mr_local **mr);

	// The next connection request on ep, its queues as configure() says:
	// 0, RPMA_E_NO_EVENT if none came after all, or 1 after reporting.
	int next_request(rpma_ep *ep, rpma_conn_req **req);

	// Receives the flavour posts before accepting (max_msg_num).
	virtual uint16_t msg_slots() const { return 0; }
	// Queues of the connection; called before the connection exists.
	virtual void configure(rpma_conn_cfg *) {}
	// Before the accept: the last moment to post receives on req.
	virtual int accepting(rpma_conn_req *) { return 0; }
	// Serves the connection until the client ends the run: 0, or 1 after
	// reporting an error.
	virtual int serve() = 0;

	// What a connection event during serve() means. Returns 0 if the run
	// ended as it should (the client disconnected after end_expected),
	// else 1 after reporting.
	int connection_ended(rpma_conn_event ev, bool end_expected);

	// For serve()'s idle moments: 1 after reporting that the link under
	// the connection went down (no event would ever say so), else 0.
	int link_check();

	// For serve()'s idle moments: whether the client still answers.
	// `signs` counts what the client has sent (0 if nothing is expected);
	// after PROBE_IDLE without a new one, a zero-length RDMA write goes to
	// the client (it needs no key and leaves no trace there), which must
	// complete within PROBE_TIMEOUT. 1 after reporting that it failed or
	// did not complete, else 0.
	int liveness_check(uint64_t signs);
	// Whether wc is the probe's; probe_done() then takes it: 0, or 1
	// after reporting a failed probe. A probe fails too when the client
	// has just disconnected: that event, if it comes, is what counts
	// (connection_ended() with end_expected).
	bool is_probe(const ibv_wc &wc) const;
	int probe_done(const ibv_wc &wc, bool end_expected);
	// For a flavour that takes no completions by itself: takes the
	// probe's from cq if it has come; as probe_done().
	int poll_probe(rpma_cq *cq, bool end_expected);

	thread_data *td_ = nullptr;
	rpma_peer *peer_ = nullptr;
	rpma_conn *conn_ = nullptr;
	Memory mem_;
	bool closed_ = false;  // the client's disconnect has arrived
	unsigned iodepth_ = 1; // the job's iodepth= (fio's own is set to 1)

private:
	int expose(fio_file *f);
	int accept();
	int wait_for_client(rpma_ep *ep);
	int connect_client(rpma_ep *ep, std::span<const uint8_t> ws);

	rpma_mr_local *mr_ = nullptr;
	bool served_ = false;
	bool soft_roce_ = false; // the device is rxe (FS DAX: a warning)
	LinkWatch link_;
	// the liveness probe: signs_ as last seen and since when, and when
	// the probe in flight (if any) went out
	uint64_t signs_ = 0;
	Clock::time_point quiet_since_{};
	Clock::time_point probe_sent_{};
	bool probing_ = false;
	int client_stopped(const char *why);
};

}

#endif
