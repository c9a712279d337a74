// SPDX-License-Identifier: BSD-3-Clause
// The queues of one connection: CQ, optional receive CQ, optional shared
// completion channel and the RC queue pair. They are made with the request,
// before the connection exists, so that receives can be posted early, and
// are handed over to the connection when it is made.
#ifndef RPMA_CONN_QUEUES_HH
#define RPMA_CONN_QUEUES_HH

#include <memory>

#include "conn_cfg.hh"
#include "cq.hh"
#include "mw.hh"
#include "verbs.hh"

namespace rpma {

class Peer;

class ConnQueues {
public:
	// Creates the queues on the device `id` was resolved or bound to;
	// RPMA_E_INVAL for shares_channel_with_srq_rcq(cfg).
	ConnQueues(Peer &peer, rdma_cm_id *id, const ConnCfg::Values &cfg);
	// Unwinding paths that never called release() still end the bindings.
	~ConnQueues() { windows_.invalidate_all(); }
	ConnQueues(const ConnQueues &) = delete;
	ConnQueues &operator=(const ConnQueues &) = delete;

	ibv_qp *qp() const noexcept { return qp_->qp; }
	Cq *cq() const noexcept { return cq_.get(); }
	// The connection's own receive CQ, if it has one (not the SRQ's).
	Cq *rcq() const noexcept { return rcq_.get(); }
	ibv_comp_channel *shared_channel() const noexcept { return shared_channel_.get(); }

	int recv(ibv_recv_wr &wr) noexcept
	{
		ibv_recv_wr *bad = nullptr;
		if (int ret = ibv_post_recv(qp(), &wr, &bad)) [[unlikely]]
			return post_failure("ibv_post_recv()", ret);
		return 0;
	}

	int send(ibv_send_wr &wr) noexcept
	{
		ibv_send_wr *bad = nullptr;
		if (int ret = ibv_post_send(qp(), &wr, &bad)) [[unlikely]]
			return post_failure("ibv_post_send()", ret);
		return 0;
	}

	// The windows bound, or reserved for a binding, on the QP (under
	// lock_windows()).
	WindowSet &windows() noexcept { return windows_; }

	// Ends the bindings of the windows on the QP, then destroys the QP,
	// the CQs and the shared channel, in that order; 0 or the first
	// provider errno.
	int release() noexcept;

	static int post_failure(const char *call, int err) noexcept;

private:
	// Declared in creation order: destroyed in reverse.
	CompChannelOwner shared_channel_;
	std::unique_ptr<Cq> cq_;
	std::unique_ptr<Cq> rcq_;
	QpOwner qp_;
	WindowSet windows_;
};

// A combination that cannot work: the SRQ's receive CQ has a channel of its
// own, so one shared channel could not report receives.
bool shares_channel_with_srq_rcq(const ConnCfg::Values &cfg) noexcept;

} // namespace rpma

#endif
