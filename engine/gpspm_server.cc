// SPDX-License-Identifier: BSD-3-Clause
#include "gpspm_server.hh"
#include "options.hh"
#include "report.hh"

#include <infiniband/verbs.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <limits>

namespace rpma_fio {

GpspmServer::~GpspmServer()
{
	close_all(); // before the SRQ, then the receives' memory
	rpma_srq_delete(&srq_);
}

uint16_t GpspmServer::slots() const
{
	return static_cast<uint16_t>(
		std::min<unsigned>(iodepth_, std::numeric_limits<uint16_t>::max()));
}

Result GpspmServer::open(fio_file *f)
{
	if (Result r = Server::open(f); r != Result::DONE)
		return r;
	const size_t n = clients();
	slots_ = slots();
	layout_ = ServerMsgLayout(slots_);
	backlog_.reserve(n);
	if (Result r = fits_device(n * slots_); r != Result::DONE)
		return r;
	rpma_srq_cfg *cfg;
	int ret = rpma_srq_cfg_new(&cfg);
	if (ret)
		return rpma_failed(td_, "rpma_srq_cfg_new", ret);
	rpma_srq_cfg_set_rq_size(cfg, static_cast<uint32_t>(n * slots_));
	rpma_srq_cfg_set_rcq_size(cfg, static_cast<uint32_t>(n * slots_));
	ret = rpma_srq_new(peer_, cfg, &srq_);
	rpma_srq_cfg_delete(&cfg);
	if (ret)
		return rpma_failed(td_, "rpma_srq_new", ret,
				   "cannot make a shared receive queue of %zu entries (clients=%zu "
				   "times iodepth=%u): the device's limit may be lower",
				   n * slots_, n, slots_);
	rpma_srq_get_rcq(srq_, &rcq_);
	rpma_cq_get_fd(rcq_, &rcq_fd_);
	return Result::DONE;
}

// The shared receive queue and its completion queue hold every client's
// receives.
Result GpspmServer::fits_device(size_t receives)
{
	ibv_device_attr attr{};
	if (ibv_query_device(dev_, &attr))
		return Result::DONE; // rpma_srq_new says what fails
	const size_t room = std::min(attr.max_srq_wr, attr.max_cqe);
	if (receives <= room)
		return Result::DONE;
	return fail(td_, EINVAL, "clients",
		    "clients=%zu times iodepth=%u is %zu receives, more than the device's shared "
		    "receive queue or its completion queue hold (%zu): lower iodepth= or clients=, "
		    "or spread the clients over more server jobs",
		    clients(), slots_, receives, room);
}

void GpspmServer::configure(rpma_conn_cfg *cfg)
{
	// one more send and completion: the liveness probe
	rpma_conn_cfg_set_sq_size(cfg, slots_ + 1);
	rpma_conn_cfg_set_cq_size(cfg, slots_ + 1);
	rpma_conn_cfg_set_srq(cfg, srq_);
}

// Every receive of a client's share is posted before its request is taken:
// it may send its first request as soon as it is connected.
Result GpspmServer::prepare(Connection &conn)
{
	ServedClient &c = client(conn);
	if (c.msg_mr) // an earlier request that did not come
		return Result::DONE;
	c.msgs.assign(layout_.bytes(), 0);
	c.waiting.reserve(slots_);
	int ret = rpma_mr_reg(peer_, c.msgs.data(), c.msgs.size(),
			      RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &c.msg_mr);
	if (ret)
		return rpma_failed(td_, "rpma_mr_reg", ret);
	for (size_t j = 0; j < slots_; j++)
		if (failed(post(c.index * slots_ + j)))
			return Result::FAILED;
	return Result::DONE;
}

Result GpspmServer::post(size_t id)
{
	// Invariant: every id names a slot of a client's share.
	assert(id < clients() * slots_);
	ServedClient &c = client(connection(id / slots_));
	int ret = rpma_srq_recv(srq_, c.msg_mr, layout_.recv_off(id % slots_), MSG_ROOM,
				reinterpret_cast<const void *>(id));
	return ret ? rpma_failed(td_, "rpma_srq_recv", ret) : Result::DONE;
}

Result GpspmServer::flavour_ready()
{
	int ret = rpma_cq_wait(rcq_); // acks the event and re-arms
	return ret && ret != RPMA_E_NO_COMPLETION ? rpma_failed(td_, "rpma_cq_wait", ret)
						  : Result::DONE;
}

// Its place may be given back (Server::give_back): the next client starts
// afresh.
void GpspmServer::dropped(Connection &conn)
{
	ServedClient &c = client(conn);
	c.waiting.clear();
	c.answers = 0;
	c.next_room = 0;
	c.requests = 0;
	c.ended = false;
}

Result GpspmServer::work()
{
	ibv_wc wc[WC_BATCH];
	int got = 0;
	int ret = rpma_cq_get_wc(rcq_, WC_BATCH, wc, &got);
	if (ret && ret != RPMA_E_NO_COMPLETION)
		return rpma_failed(td_, "rpma_cq_get_wc", ret);
	for (int i = 0; i < got; i++)
		if (failed(received(wc[i])))
			return Result::FAILED;
	if (!backlog_.empty() && failed(answer_backlog()))
		return Result::FAILED;
	// fewer than asked for: the queue was drained, and it is armed (or
	// its event waits to be taken) since before this poll
	return got == WC_BATCH ? Result::DONE : Result::RETRY;
}

Result GpspmServer::received(const ibv_wc &wc)
{
	const size_t id = wc.wr_id;
	Connection *conn = connection_of_qp(wc.qp_num, id / slots_);
	const bool message = wc.status == IBV_WC_SUCCESS && holds_message(wc);
	std::optional<FlushRequest> req;
	if (message)
		req = unpack_request(
			&client(connection(id / slots_)).msgs[layout_.recv_off(id % slots_)],
			wc.byte_len);
	if (failed(post(id)))
		return Result::FAILED;
	if (!conn || !conn->live())
		return Result::DONE; // what is left of a client gone
	ServedClient &c = client(*conn);
	if (wc.status != IBV_WC_SUCCESS) {
		lose(c, EIO, "had a message fail: %s", ibv_wc_status_str(wc.status));
		return Result::DONE;
	}
	if (!message) {
		lose(c, EPROTO, "%s", why_no_message(wc).c_str());
		return Result::DONE;
	}
	if (!req) {
		lose(c, EPROTO,
		     "sent %u bytes that are no flush request (cannot unpack a flush request "
		     "from them)",
		     wc.byte_len);
		return Result::DONE;
	}
	c.requests++;
	// The end-of-run request gets no answer: it waits for no send room
	if (ends_run(*req)) {
		c.ended = true;
		return run_ended(*req);
	}
	// in the client's order: none may overtake one that waits
	if (c.waiting.empty()) {
		const Result r = answer(c, *req);
		if (r != Result::RETRY)
			return r;
	}
	if (!c.live())
		return Result::DONE;
	if (!c.waiting.push(*req)) {
		lose(c, EOVERFLOW, "sent more than %u flush requests at once", slots_);
		return Result::DONE;
	}
	if (!c.queued) {
		c.queued = true;
		backlog_.push_back(c.index);
	}
	watch_completions(c, true);
	return Result::DONE;
}

Result GpspmServer::answer_backlog()
{
	size_t kept = 0;
	// kept never passes the one read: the list shrinks in place
	for (const size_t k : backlog_) {
		ServedClient &c = client(connection(k));
		Result r = Result::DONE;
		while (c.live() && !c.waiting.empty() &&
		       (r = answer(c, c.waiting.front())) == Result::DONE)
			c.waiting.pop();
		if (failed(r))
			return r;
		if (c.live() && !c.waiting.empty()) {
			backlog_[kept++] = k;
		} else {
			c.queued = false;
			watch_completions(c, false);
		}
	}
	backlog_.resize(kept);
	return Result::DONE;
}

Result GpspmServer::answer(ServedClient &c, const FlushRequest &req)
{
	if (c.answers == slots_ && failed(take_completions(c)))
		return Result::FAILED;
	if (!c.live() || c.answers == slots_)
		return Result::RETRY;
	const size_t size = td_->o.size;
	if (req.offset > size || req.length > size - req.offset) {
		lose(c, EINVAL,
		     "sent a flush request for [%llu, +%llu), past its %zu bytes: refusing to "
		     "flush it",
		     (unsigned long long)req.offset, (unsigned long long)req.length, size);
		return Result::RETRY;
	}
	mem_.persist(c.index * size + req.offset, req.length);
	if (Result p = persisted(req); p != Result::DONE)
		return p;
	const uint32_t room = c.next_room;
	size_t len = pack_response(req.op_context, &c.msgs[layout_.send_off(room)],
				   layout_.send_room());
	int ret = rpma_send(c.conn, c.msg_mr, layout_.send_off(room), len, RPMA_F_COMPLETION_ALWAYS,
			    reinterpret_cast<const void *>(static_cast<uintptr_t>(room)));
	if (ret) {
		lose(c, EIO, "could not be answered (%s)", rpma_err_2str(ret));
		return Result::RETRY;
	}
	c.next_room = room + 1 == slots_ ? 0 : room + 1;
	c.answers++;
	// Invariant: no more answers in flight than send rooms.
	assert(c.answers <= slots_);
	return Result::DONE;
}

// Answers complete in the order they went out, so rooms free in order.
Result GpspmServer::completion(Connection &conn, const ibv_wc &wc)
{
	// iWARP ends a connection at once, flushing what it had not sent: its
	// event says how the connection ended
	if (wc.status == IBV_WC_WR_FLUSH_ERR)
		return Result::DONE;
	if (wc.status != IBV_WC_SUCCESS) {
		lose(conn, EIO, "had an answer to it fail: %s", ibv_wc_status_str(wc.status));
		return Result::DONE;
	}
	ServedClient &c = client(conn);
	// Invariant: a completion only of an answer that went out.
	assert(c.answers > 0);
	c.answers--;
	return Result::DONE;
}

}
