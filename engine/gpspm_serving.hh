// SPDX-License-Identifier: BSD-3-Clause
// gpspm_serving.hh -- a server that takes its client's messages: flush
// requests, each persisted and answered, and the end-of-run notice
// (librpma_gpspm_server; librpma_aof_server, whose hooks below add the
// log's tail pointer).
#ifndef RPMA_ENGINE_GPSPM_SERVING_HH
#define RPMA_ENGINE_GPSPM_SERVING_HH

#include "compiler.hh"
#include "wire_format.hh"
#include "ring.hh"
#include "server.hh"

#include <cstdint>
#include <vector>

namespace rpma_fio {

// Message slot k: a receive and a send buffer (ServerMsgLayout).
class GpspmServer : public Server {
public:
	~GpspmServer() override;

protected:
	// The client may have this many requests outstanding: iodepth= of
	// the server job, as with the old engine.
	uint16_t msg_slots() const override;
	void configure(rpma_conn_cfg *cfg) override;
	Result accepting(rpma_conn_req *req) override;
	Result serve() override;

	// Whether serve() spins on the completion queue (busy_wait_polling=).
	virtual bool busy_polling() const;
	// Whether req is the end-of-run notice (GPSPM: all zero).
	virtual bool ends_run(const FlushRequest &req) const { return req.ends_run(); }
	// The end-of-run notice came: DONE, or FAILED (reported).
	virtual Result run_ended(const FlushRequest &) { return Result::DONE; }
	// The range of req is persistent, the answer not sent yet: DONE, or
	// FAILED (reported), which sends none.
	virtual Result persisted(const FlushRequest &) { return Result::DONE; }

private:
	struct Received {
		size_t slot;
		uint32_t len;
	};

	// DONE if there were completions, RETRY if not
	Result poll_cq();
	// Answers the requests received, in order, as far as send buffers
	// allow. The end-of-run request gets no answer: it needs no send
	// buffer, and ends the run even while the last answer sent from its
	// slot has not completed.
	Result handle_requests();
	Result answer(const FlushRequest &req, size_t k);
	// Sleeps until a completion or a connection event (the completion
	// channel is watched only when not busy polling); *quiet: neither came.
	RPMA_INLINE Result wait(int timeout_ms, bool *quiet);
	// The connection's event came: the requests still queued, then the
	// event's verdict (out of wait(), which runs twice per request).
	Result connection_event();

	std::vector<char> msgs_;
	rpma_mr_local *msg_mr_ = nullptr;
	uint16_t slots_ = 0;
	ServerMsgLayout layout_{0};
	std::vector<bool> send_busy_;
	Ring<Received> received_; // requests not handled yet
	rpma_cq *cq_ = nullptr;
	int cq_fd_ = -1, event_fd_ = -1; // fixed for the connection's life
	bool ended_ = false;             // the end-of-run request came
	uint64_t requests_ = 0;          // received: signs of a live client
};

}

#endif
