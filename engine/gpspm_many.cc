// SPDX-License-Identifier: BSD-3-Clause
// gpspm_many.cc -- librpma_gpspm_server with clients=N: one thread serves
// the flush requests of all N connections. Their receives come from one
// shared receive queue (SRQ) and complete on its one receive completion
// queue, in each connection's order, so one poll (or one wait) finds the
// requests of every client; each connection keeps its own queue for the
// answers (and the liveness probe), polled only when its answers' rooms
// are all taken or when idle.
//
// Messages: client k's share is registered when its connection request
// comes, `slots` (the job's iodepth=, the max_msg_num of every workspace)
// receives of MSG_ROOM bytes, posted to the SRQ, and as many send rooms
// for its answers. Any receive may carry any client's request; it is
// unpacked and posted again at once, the request waits in its client's
// queue until a send room of that client is free.
#include "wire_format.hh"
#include "many_server.hh"
#include "options.hh"
#include "report.hh"
#include "ring.hh"

#include <cassert>
#include <cerrno>
#include <limits>
#include <vector>

namespace rpma_fio {
namespace {

class GpspmMany final : public ManyServer {
public:
	~GpspmMany() override
	{
		close_all(); // before the SRQ and the receives' memory
		rpma_srq_delete(&srq_);
		for (Client &c : c_)
			rpma_mr_dereg(&c.mr);
	}

private:
	struct Client {
		std::vector<char> msgs; // receives, then send rooms
		rpma_mr_local *mr = nullptr;
		Ring<FlushRequest> waiting; // requests not answered yet
		uint32_t answers = 0;       // answers in flight
		uint32_t next_room = 0;
		uint64_t requests = 0; // received: signs of a live client
		bool ended = false;    // its end-of-run request came
		bool queued = false;   // in backlog_
	};

	std::vector<Client> c_;
	std::vector<size_t> backlog_; // clients whose requests wait
	rpma_srq *srq_ = nullptr;
	rpma_cq *rcq_ = nullptr;
	int rcq_fd_ = -1;
	uint32_t slots_ = 0;
	ServerMsgLayout layout_{0};

	uint16_t msg_slots() const override
	{
		return static_cast<uint16_t>(
			std::min<unsigned>(iodepth_, std::numeric_limits<uint16_t>::max()));
	}

	void configure(rpma_conn_cfg *cfg) override
	{
		// one more send and completion: the liveness probe
		rpma_conn_cfg_set_sq_size(cfg, slots_ + 1);
		rpma_conn_cfg_set_cq_size(cfg, slots_ + 1);
		rpma_conn_cfg_set_srq(cfg, srq_);
	}

	Result before_accept(size_t k) override
	{
		if (!srq_ && failed(make_srq()))
			return Result::FAILED;
		Client &c = c_[k];
		if (c.mr) // an earlier request that did not come
			return Result::DONE;
		c.msgs.assign(layout_.bytes(), 0);
		c.waiting.reserve(slots_);
		int ret = rpma_mr_reg(peer_, c.msgs.data(), c.msgs.size(),
				      RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &c.mr);
		if (ret)
			return rpma_failed(td_, "rpma_mr_reg", ret);
		for (size_t j = 0; j < slots_; j++)
			if (failed(post(k * slots_ + j)))
				return Result::FAILED;
		return Result::DONE;
	}

	Result make_srq()
	{
		const size_t n = clients();
		slots_ = msg_slots();
		layout_ = ServerMsgLayout(slots_);
		c_.resize(n);
		backlog_.reserve(n);
		rpma_srq_cfg *cfg;
		int ret = rpma_srq_cfg_new(&cfg);
		if (ret)
			return rpma_failed(td_, "rpma_srq_cfg_new", ret);
		rpma_srq_cfg_set_rq_size(cfg, static_cast<uint32_t>(n * slots_));
		rpma_srq_cfg_set_rcq_size(cfg, static_cast<uint32_t>(n * slots_));
		ret = rpma_srq_new(peer_, cfg, &srq_);
		rpma_srq_cfg_delete(&cfg);
		if (ret) {
			report(td_, "cannot make a shared receive queue of %zu entries",
			       n * slots_);
			return rpma_failed(td_, "rpma_srq_new", ret);
		}
		rpma_srq_get_rcq(srq_, &rcq_);
		rpma_cq_get_fd(rcq_, &rcq_fd_);
		return Result::DONE;
	}

	// Posts receive `id`: slot id % slots_ of client id / slots_.
	Result post(size_t id)
	{
		// Invariant: every id names a slot of a client's share.
		assert(id < c_.size() * slots_);
		Client &c = c_[id / slots_];
		int ret = rpma_srq_recv(srq_, c.mr, layout_.recv_off(id % slots_), MSG_ROOM,
					reinterpret_cast<const void *>(id));
		return ret ? rpma_failed(td_, "rpma_srq_recv", ret) : Result::DONE;
	}

	bool may_spin() const override { return true; }
	int extra_fd() const override { return rcq_fd_; }
	Result extra_ready() override
	{
		int ret = rpma_cq_wait(rcq_); // acks the event and re-arms
		return ret && ret != RPMA_E_NO_COMPLETION ? rpma_failed(td_, "rpma_cq_wait", ret)
							  : Result::DONE;
	}

	bool ended_run(Peer &p) override { return c_[index_of(p)].ended; }
	uint64_t signs_of(const Peer &p) const override { return c_[index_of(p)].requests; }

	void dropped(Peer &p) override
	{
		if (c_.empty())
			return;
		Client &c = c_[index_of(p)];
		c.waiting.clear();
		c.answers = 0;
	}

	Result work() override
	{
		if (!rcq_)
			return Result::RETRY;
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
		return got ? Result::DONE : Result::RETRY;
	}

	// One receive completion: its request goes to its client's queue, its
	// receive is posted again at once.
	Result received(const ibv_wc &wc)
	{
		const size_t id = wc.wr_id;
		Peer *p = peer_of_qp(wc.qp_num);
		const bool message = wc.status == IBV_WC_SUCCESS && holds_message(wc);
		std::optional<FlushRequest> req;
		if (message)
			req = unpack_request(&c_[id / slots_].msgs[layout_.recv_off(id % slots_)],
					     wc.byte_len);
		if (failed(post(id)))
			return Result::FAILED;
		if (!p || !p->live())
			return Result::DONE; // what is left of a client gone
		Client &c = c_[index_of(*p)];
		if (wc.status != IBV_WC_SUCCESS) {
			lose(*p, EIO, "a message from it failed: %s", ibv_wc_status_str(wc.status));
			return Result::DONE;
		}
		if (!message) {
			lose(*p, EPROTO, "it %s", why_no_message(wc).c_str());
			return Result::DONE;
		}
		if (!req) {
			lose(*p, EPROTO, "it sent something that is no flush request (%u bytes)",
			     wc.byte_len);
			return Result::DONE;
		}
		c.requests++;
		// The end-of-run request gets no answer: it waits for no send room
		if (req->ends_run()) {
			c.ended = true;
			return Result::DONE;
		}
		// in the client's order: none may overtake one that waits
		if (c.waiting.empty()) {
			const Result r = answer(*p, c, *req);
			if (r != Result::RETRY)
				return r;
		}
		if (!p->live())
			return Result::DONE;
		if (!c.waiting.push(*req)) {
			lose(*p, EOVERFLOW, "it sent more than %u flush requests at once", slots_);
			return Result::DONE;
		}
		if (!c.queued) {
			c.queued = true;
			backlog_.push_back(index_of(*p));
		}
		return Result::DONE;
	}

	// Answers what waits, in each client's order, as far as rooms allow.
	Result answer_backlog()
	{
		size_t kept = 0;
		// kept never passes the one read: the list shrinks in place
		for (const size_t k : backlog_) {
			Peer &p = peer(k);
			Client &c = c_[k];
			Result r = Result::DONE;
			while (p.live() && !c.waiting.empty() &&
			       (r = answer(p, c, c.waiting.front())) == Result::DONE)
				c.waiting.pop();
			if (failed(r))
				return r;
			if (p.live() && !c.waiting.empty())
				backlog_[kept++] = k;
			else
				c.queued = false;
		}
		backlog_.resize(kept);
		return Result::DONE;
	}

	// DONE if answered; RETRY if no send room is free (the request must
	// wait) or p was lost (a failure answering one client fails only it);
	// FAILED (the whole job).
	Result answer(Peer &p, Client &c, const FlushRequest &req)
	{
		if (c.answers == slots_ && failed(take_completions(p)))
			return Result::FAILED;
		if (!p.live() || c.answers == slots_)
			return Result::RETRY;
		const size_t size = td_->o.size;
		if (req.offset > size || req.length > size - req.offset) {
			lose(p, EINVAL, "refusing to flush [%llu, +%llu): its memory has %zu bytes",
			     (unsigned long long)req.offset, (unsigned long long)req.length, size);
			return Result::RETRY;
		}
		mem_.persist(index_of(p) * size + req.offset, req.length);
		const uint32_t room = c.next_room;
		size_t len = pack_response(req.op_context, &c.msgs[layout_.send_off(room)],
					   layout_.send_room());
		int ret = rpma_send(p.conn, c.mr, layout_.send_off(room), len,
				    RPMA_F_COMPLETION_ALWAYS,
				    reinterpret_cast<const void *>(static_cast<uintptr_t>(room)));
		if (ret) {
			lose(p, EIO, "answering it failed (%s)", rpma_err_2str(ret));
			return Result::RETRY;
		}
		c.next_room = room + 1 == slots_ ? 0 : room + 1;
		c.answers++;
		// Invariant: no more answers in flight than send rooms.
		assert(c.answers <= slots_);
		return Result::DONE;
	}

	// Answers complete in the order they went out, so rooms free in order.
	Result sent(Peer &p, const ibv_wc &wc) override
	{
		if (wc.status != IBV_WC_SUCCESS) {
			lose(p, EIO, "an answer to it failed: %s", ibv_wc_status_str(wc.status));
			return Result::DONE;
		}
		Client &c = c_[index_of(p)];
		// Invariant: a completion only of an answer that went out.
		assert(c.answers > 0);
		c.answers--;
		return Result::DONE;
	}
};

}

std::unique_ptr<Server> make_gpspm_many()
{
	return std::make_unique<GpspmMany>();
}

}
