// SPDX-License-Identifier: BSD-3-Clause
// gpspm_server.hh -- a server that takes its clients' messages: flush
// requests, each persisted and answered in its client's order, and the
// end-of-run notice (librpma_gpspm_server; librpma_aof_server, whose hooks
// below add the log's tail pointer).
//
// The receives of every connection come from one shared receive queue
// (SRQ) and complete on its one receive completion queue, in each
// connection's order, so one poll (or one wait) finds the requests of every
// client; each connection keeps its own queue for the answers (and the
// liveness probe), polled only when its answers' rooms are all taken or
// when the thread waits.
//
// Messages: client k's share is registered and posted to the SRQ before its
// connection request is taken: `slots` receives of MSG_ROOM bytes (slots:
// the job's iodepth=, each workspace's max_msg_num) and as many send rooms
// for its answers (ServerMsgLayout). Any receive may carry any client's
// request; it is unpacked and posted again at once, and the request waits
// in its client's queue until a send room of that client is free.
#ifndef RPMA_ENGINE_GPSPM_SERVER_HH
#define RPMA_ENGINE_GPSPM_SERVER_HH

#include "wire_format.hh"
#include "ring.hh"
#include "server.hh"

#include <cstdint>
#include <memory>
#include <vector>

namespace rpma_fio {

class GpspmServer : public Server {
public:
	~GpspmServer() override;

protected:
	Result open(fio_file *f) override;

	uint16_t receives(const Connection &) const override
	{
		return static_cast<uint16_t>(slots_);
	}

	// The hooks of librpma_aof_server:
	// Requests a client may have outstanding: iodepth= of the server job,
	// as with the old engine.
	virtual uint16_t slots() const;
	// Whether serve() may spin on the queues (busy_wait_polling=).
	bool may_spin() const override { return true; }
	// Whether req is the end-of-run notice (GPSPM: all zero).
	virtual bool ends_run(const FlushRequest &req) const { return req.ends_run(); }
	// The end-of-run notice came: DONE, or FAILED (reported).
	virtual Result run_ended(const FlushRequest &) { return Result::DONE; }
	// The range of req is persistent, the answer not sent yet: DONE, or
	// FAILED (reported), which sends none.
	virtual Result persisted(const FlushRequest &) { return Result::DONE; }

private:
	// A client's messages and where its requests stand.
	struct ServedClient : Connection {
		// The SRQ may hold receives into msgs after the connection
		// closed: it goes first (~GpspmServer).
		~ServedClient() override
		{
			close_connection(&conn);
			rpma_mr_dereg(&msg_mr);
		}

		std::vector<char> msgs; // receives, then send rooms
		rpma_mr_local *msg_mr = nullptr;
		Ring<FlushRequest> waiting; // requests not answered yet
		uint32_t answers = 0;       // answers in flight
		uint32_t next_room = 0;
		uint64_t requests = 0; // received: signs of a live client
		bool ended = false;    // its end-of-run request came
		bool queued = false;   // in backlog_
	};
	static ServedClient &client(Connection &c) { return static_cast<ServedClient &>(c); }
	static const ServedClient &client(const Connection &c)
	{
		return static_cast<const ServedClient &>(c);
	}

	std::unique_ptr<Connection> new_connection() const override
	{
		return std::make_unique<ServedClient>();
	}
	void configure(rpma_conn_cfg *cfg) override;
	Result prepare(Connection &c) override;
	Result work() override;
	Result completion(Connection &c, const ibv_wc &wc) override;
	bool ended_run(Connection &c) override { return client(c).ended; }
	bool said_end(const Connection &c) const override { return client(c).ended; }
	uint64_t signs_of(const Connection &c) const override { return client(c).requests; }
	void dropped(Connection &c) override;
	int flavour_fd() const override { return rcq_fd_; }
	// An answer's completion only frees its send room: the thread wakes
	// for it only while a client's requests wait for one (backlog_).
	bool completions_wake() const override { return false; }
	Result flavour_ready() override;

	// DONE if the device's queues hold `receives`, else FAILED (reported).
	Result fits_device(size_t receives);
	// Posts receive `id`: slot id % slots_ of client id / slots_.
	Result post(size_t id);
	// One receive completion: its request goes to its client's queue, its
	// receive is posted again at once.
	Result received(const ibv_wc &wc);
	// Answers what waits, in each client's order, as far as rooms allow.
	Result answer_backlog();
	// DONE if answered; RETRY if no send room is free (the request must
	// wait) or c was lost (a failure answering one client fails only it);
	// FAILED (the whole job).
	Result answer(ServedClient &c, const FlushRequest &req);

	std::vector<size_t> backlog_; // clients whose requests wait
	rpma_srq *srq_ = nullptr;
	rpma_cq *rcq_ = nullptr;
	int rcq_fd_ = -1;
	uint32_t slots_ = 0;
	ServerMsgLayout layout_{0};
};

}

#endif
