// SPDX-License-Identifier: BSD-3-Clause
// server.hh -- the part of librpma_apm_server and librpma_gpspm_server that
// does not depend on the persistency method.
//
// Each server job serves one client connection (a job of clients=N serves
// N: many_server.hh). Opening its "file" maps
// the memory, registers it, listens on serverip:port+N-1 and accepts one
// connection, describing the memory in the accept's private data (the
// workspace). The job's first I/O then serves the connection until the
// client ends it; that ends the job. A client that vanishes ends it too,
// with an error, even one that vanishes without a word (liveness_check()).
#ifndef RPMA_ENGINE_SERVER_HH
#define RPMA_ENGINE_SERVER_HH

#include "conn_events.hh"
#include "fio.hh"
#include "link.hh"
#include "result.hh"
#include "server_memory.hh"
#include "wire_format.hh"

#include <infiniband/verbs.h>
#include <librpma.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rpma_fio {

// The liveness probe of one client, for the idle moments of its serving:
// after PROBE_IDLE without a new sign of life (what the client has sent), a
// zero-length RDMA write goes to the client (it needs no key and leaves no
// trace there), which must complete within OPERATION_TIMEOUT.
class Probe {
public:
	enum class Due {
		NOTHING, // the client gave a sign lately, or the probe is on its way
		SEND,    // send a probe now, then sent()
		LATE,    // the probe did not complete in time
	};
	// What is due at `now`, the client having given `signs` so far (0 if
	// it sends nothing).
	Due due(uint64_t signs, Clock::time_point now);
	void sent(Clock::time_point now)
	{
		in_flight_ = true;
		sent_ = now;
	}
	// Its completion came (whatever its status).
	void completed(Clock::time_point now)
	{
		in_flight_ = false;
		quiet_since_ = now;
	}
	bool in_flight() const { return in_flight_; }
	// Why a LATE probe means the client is gone, for messages.
	static std::string late_why();

private:
	uint64_t signs_ = 0;
	Clock::time_point quiet_since_{};
	Clock::time_point sent_{};
	bool in_flight_ = false;
};

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
	virtual Result open(fio_file *f);
	// Ends the job's connection after its serving (close_file).
	virtual void goodbye();
	// Maps bytes of the job's memory into mem_.
	Result map_memory(fio_file *f, size_t bytes);
	// Registers [offset, +len) of mem_ for a client's remote access.
	Result register_memory(size_t offset, size_t len, rpma_mr_local **mr);
	// The workspace that describes mr to a client (the accept's private
	// data), with max_msg_num receives posted for it.
	virtual Result workspace_of(rpma_mr_local *mr, uint16_t max_msg_num,
				    std::vector<uint8_t> *ws);
	// mr's descriptor, for a workspace
	static std::vector<uint8_t> descriptor_of(rpma_mr_local *mr);
	// Listens on serverip:port, saying why it cannot.
	Result listen(const std::string &port, rpma_ep **ep);
	// The next connection request on ep, its queues as configure() says:
	// DONE, RETRY if none came after all, or FAILED.
	Result next_request(rpma_ep *ep, rpma_conn_req **req);

	// Receives the flavour posts before accepting (max_msg_num); for a
	// request it promises so, once accepting() has taken the request.
	virtual uint16_t msg_slots() const { return 0; }
	// Queues of the connection; called before the connection exists.
	virtual void configure(rpma_conn_cfg *) {}
	// Before the accept: the last moment to post receives on req.
	virtual Result accepting(rpma_conn_req *) { return Result::DONE; }
	// Serves the connection until the client ends the run: DONE, or
	// FAILED.
	virtual Result serve() = 0;

	// What a connection event during serve() means: DONE if the run ended
	// as it should (the client disconnected after end_expected), else
	// FAILED.
	Result connection_ended(rpma_conn_event ev, bool end_expected);

	// For serve()'s idle moments: FAILED after reporting that the link
	// under the connection went down (no event would ever say so), else
	// DONE.
	Result link_check();

	// For serve()'s idle moments: whether the client still answers
	// (Probe). `signs` counts what the client has sent (0 if nothing is
	// expected). FAILED after reporting that the probe failed or did not
	// complete, else DONE.
	Result liveness_check(uint64_t signs);
	// Whether wc is the probe's; probe_done() then takes it: DONE, or
	// FAILED after reporting a failed probe. A probe fails too when the client
	// has just disconnected: that event, if it comes, is what counts
	// (connection_ended() with end_expected).
	bool is_probe(const ibv_wc &wc) const;
	// FAILED, after reporting that the client did `what` (a protocol
	// breach, e.g. why_no_message()).
	Result client_misbehaved(const std::string &what);
	Result probe_done(const ibv_wc &wc, bool end_expected);

	thread_data *td_ = nullptr;
	rpma_peer *peer_ = nullptr;
	rpma_conn *conn_ = nullptr;
	Memory mem_;
	bool closed_ = false;  // the client's disconnect has arrived
	unsigned iodepth_ = 1; // the job's iodepth= (fio's own is set to 1)

	// a probe failed by the client's disconnect precedes that event by little
	static constexpr int DISCONNECT_GRACE_MS = 1000;

private:
	Result accept();
	Result wait_for_client(rpma_ep *ep);
	Result connect_client(rpma_ep *ep);

	rpma_mr_local *mr_ = nullptr;
	bool served_ = false;
	bool soft_roce_ = false; // the device is rxe (FS DAX: a warning)
	LinkWatch link_;
	Probe probe_;
	Result client_stopped(const char *why);
};

}

#endif
