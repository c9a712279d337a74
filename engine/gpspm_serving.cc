// SPDX-License-Identifier: BSD-3-Clause
#include "gpspm_serving.hh"
#include "conn_events.hh"
#include "options.hh"
#include "report.hh"

#include <infiniband/verbs.h>
#include <poll.h>

#include <cerrno>
#include <limits>

namespace rpma_fio {

GpspmServer::~GpspmServer()
{
	close_connection(&conn_); // before the receives' memory
	rpma_mr_dereg(&msg_mr_);
}

uint16_t GpspmServer::msg_slots() const
{
	return static_cast<uint16_t>(
		std::min<unsigned>(iodepth_, std::numeric_limits<uint16_t>::max()));
}

void GpspmServer::configure(rpma_conn_cfg *cfg)
{
	slots_ = msg_slots();
	// one more send and completion: the liveness probe
	rpma_conn_cfg_set_sq_size(cfg, slots_ + 1);
	rpma_conn_cfg_set_rq_size(cfg, slots_);
	rpma_conn_cfg_set_cq_size(cfg, 2 * slots_ + 1);
}

// Every receive is posted before the accept: the client may send its
// first request as soon as it is connected.
Result GpspmServer::accepting(rpma_conn_req *req)
{
	layout_ = ServerMsgLayout(slots_);
	msgs_.assign(layout_.bytes(), 0);
	send_busy_.assign(slots_, false);
	received_.reserve(slots_);
	int ret = rpma_mr_reg(peer_, msgs_.data(), msgs_.size(),
			      RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &msg_mr_);
	if (ret)
		return rpma_failed(td_, "rpma_mr_reg", ret);
	for (size_t k = 0; k < slots_; k++)
		if ((ret = rpma_conn_req_recv(req, msg_mr_, layout_.recv_off(k), MSG_ROOM,
					      reinterpret_cast<const void *>(k))))
			return rpma_failed(td_, "rpma_conn_req_recv", ret);
	return Result::DONE;
}

bool GpspmServer::busy_polling() const
{
	return options_of(td_).busy_wait_polling;
}

Result GpspmServer::serve()
{
	int ret = rpma_conn_get_cq(conn_, &cq_);
	if (ret)
		return rpma_failed(td_, "rpma_conn_get_cq", ret);
	rpma_cq_get_fd(cq_, &cq_fd_);
	rpma_conn_get_event_fd(conn_, &event_fd_);
	const bool busy = busy_polling();
	unsigned idle = 0, wakes = 0;
	while (!ended_ && !td_->terminate) {
		const Result polled = poll_cq();
		if (polled == Result::DONE) {
			if (failed(handle_requests()))
				return Result::FAILED;
			idle = 0;
			continue;
		}
		if (failed(polled))
			return polled;
		if (busy && ++idle % EVENT_CHECK_INTERVAL)
			continue;
		bool quiet;
		if (failed(wait(busy ? 0 : POLL_MS, &quiet)))
			return Result::FAILED;
		// Sleeping, the server wakes twice per request (its receive,
		// then its answer's send): the checks, which cost more than
		// the request, run when nothing came (a dead client or link
		// sends nothing) and now and then.
		if ((quiet || ++wakes % EVENT_CHECK_INTERVAL == 0) &&
		    (failed(link_check()) || failed(liveness_check(requests_))))
			return Result::FAILED;
	}
	return Result::DONE;
}

Result GpspmServer::poll_cq()
{
	ibv_wc wc[WC_BATCH];
	int got = 0;
	int ret = rpma_cq_get_wc(cq_, WC_BATCH, wc, &got);
	if (ret == RPMA_E_NO_COMPLETION)
		return Result::RETRY;
	if (ret)
		return rpma_failed(td_, "rpma_cq_get_wc", ret);
	for (int i = 0; i < got; i++) {
		if (is_probe(wc[i])) {
			if (Result r = probe_done(wc[i], ended_); r != Result::DONE)
				return r;
			continue;
		}
		// iWARP ends a connection at once: its receives are flushed
		// before the connection's event comes, maybe in the batch with
		// the end-of-run notice. What came is served; the event says how
		// the connection ended (connection_event).
		if (wc[i].status == IBV_WC_WR_FLUSH_ERR) {
			if (failed(handle_requests()))
				return Result::FAILED;
			return ended_ ? Result::DONE : Result::RETRY;
		}
		if (wc[i].status != IBV_WC_SUCCESS) {
			report(td_, "a message from or to the client failed: %s",
			       ibv_wc_status_str(wc[i].status));
			return job_failed(td_, EIO, "completion");
		}
		if (wc[i].opcode == IBV_WC_SEND) {
			send_busy_[wc[i].wr_id] = false;
		} else if (!holds_message(wc[i])) {
			return client_misbehaved(why_no_message(wc[i]));
		} else if (!received_.push({wc[i].wr_id, wc[i].byte_len}))
			return job_failed(td_, EOVERFLOW, "receive");
		else
			requests_++;
	}
	return Result::DONE;
}

Result GpspmServer::handle_requests()
{
	while (!received_.empty()) {
		const Received r = received_.front();
		std::optional<FlushRequest> req = unpack_request(&msgs_[layout_.recv_off(r.slot)],
								 r.len);
		if (!req) {
			report(td_, "cannot unpack a flush request (%u bytes)", r.len);
			return job_failed(td_, EPROTO, "flush request");
		}
		if (ends_run(*req)) {
			received_.pop();
			ended_ = true;
			return run_ended(*req);
		}
		if (send_busy_[r.slot])
			return Result::DONE; // unpacked again once its send buffer is free
		received_.pop();
		if (Result a = answer(*req, r.slot); a != Result::DONE)
			return a;
	}
	return Result::DONE;
}

Result GpspmServer::answer(const FlushRequest &req, size_t k)
{
	if (req.offset > mem_.size() || req.length > mem_.size() - req.offset) {
		report(td_,
		       "refusing to flush [%llu, +%llu): the memory has "
		       "%zu bytes",
		       (unsigned long long)req.offset, (unsigned long long)req.length, mem_.size());
		return job_failed(td_, EINVAL, "flush request");
	}
	mem_.persist(req.offset, req.length);
	if (Result p = persisted(req); p != Result::DONE)
		return p;
	// re-posted before answering: the answer lets the client send again
	int ret = rpma_recv(conn_, msg_mr_, layout_.recv_off(k), MSG_ROOM,
			    reinterpret_cast<const void *>(k));
	if (ret)
		return rpma_failed(td_, "rpma_recv", ret);
	size_t len = pack_response(req.op_context, &msgs_[layout_.send_off(k)],
				   layout_.send_room());
	ret = rpma_send(conn_, msg_mr_, layout_.send_off(k), len, RPMA_F_COMPLETION_ALWAYS,
			reinterpret_cast<const void *>(k));
	if (ret)
		return rpma_failed(td_, "rpma_send", ret);
	send_busy_[k] = true;
	return Result::DONE;
}

Result GpspmServer::wait(int timeout_ms, bool *quiet)
{
	pollfd fds[2] = {{event_fd_, POLLIN, 0}, {cq_fd_, POLLIN, 0}};
	*quiet = poll(fds, timeout_ms ? 2 : 1, timeout_ms) <= 0;
	if (*quiet)
		return Result::DONE;
	if (fds[0].revents)
		return connection_event();
	int ret = rpma_cq_wait(cq_); // acks the event and re-arms
	if (ret && ret != RPMA_E_NO_COMPLETION)
		return rpma_failed(td_, "rpma_cq_wait", ret);
	return Result::DONE;
}

Result GpspmServer::connection_event()
{
	rpma_conn_event ev;
	int ret = rpma_conn_next_event(conn_, &ev);
	if (ret)
		return rpma_failed(td_, "rpma_conn_next_event", ret);
	// The end-of-run request may still wait in the queue, behind any
	// number of completions (a server descheduled while its client took
	// the last answers and ended): all of them first. The client is
	// gone: the queue does not fill again.
	Result polled;
	while ((polled = poll_cq()) == Result::DONE)
		if (failed(handle_requests()))
			return Result::FAILED;
	if (failed(polled))
		return Result::FAILED;
	return connection_ended(ev, ended_);
}

}
