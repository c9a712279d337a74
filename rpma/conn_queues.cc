// SPDX-License-Identifier: BSD-3-Clause
#include "conn_queues.hh"

#include "config.h"
#include "error.hh"
#include "peer.hh"
#include "srq.hh"

namespace rpma {

namespace {

// Upstream's queue pair shape: one SGE each way and 8 bytes of inline data,
// enough for the emulated atomic write.
constexpr uint32_t MAX_SGE = 1;
constexpr uint32_t MAX_INLINE_DATA = 8;

} // namespace

bool shares_channel_with_srq_rcq(const ConnCfg::Values &cfg) noexcept
{
	return cfg.shared_channel && cfg.srq && cfg.srq->rcq();
}

ConnQueues::ConnQueues(Peer &peer, rdma_cm_id *id, const ConnCfg::Values &cfg)
{
	if (shares_channel_with_srq_rcq(cfg))
		throw Error(RPMA_E_INVAL);
	ibv_context *context = id->verbs;
	if (cfg.shared_channel) {
		errno = 0;
		shared_channel_ = CompChannelOwner(ibv_create_comp_channel(context));
		if (!shared_channel_)
			throw_provider("ibv_create_comp_channel()", errno_or(EIO));
	}
	cq_ = std::make_unique<Cq>(context, cfg.cq_size, shared_channel_.get());

	Cq *srq_rcq = cfg.srq ? cfg.srq->rcq() : nullptr;
	if (!srq_rcq && cfg.rcq_size > 0)
		rcq_ = std::make_unique<Cq>(context, cfg.rcq_size, shared_channel_.get());

	ibv_qp_init_attr_ex attr{};
	attr.qp_type = IBV_QPT_RC;
	attr.send_cq = cq_->ibv();
	attr.recv_cq = srq_rcq ? srq_rcq->ibv() : rcq_ ? rcq_->ibv() : cq_->ibv();
	attr.srq = cfg.srq ? cfg.srq->ibv() : nullptr;
	attr.cap.max_send_wr = cfg.sq_size;
	attr.cap.max_recv_wr = cfg.rq_size;
	attr.cap.max_send_sge = MAX_SGE;
	attr.cap.max_recv_sge = MAX_SGE;
	attr.cap.max_inline_data = MAX_INLINE_DATA;
	attr.sq_sig_all = 0;
	attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr.pd = peer.pd();
	// The extended QP interface only for the native verbs: every other
	// request goes through ibv_post_send.
	uint64_t native_ops = 0;
#if HAVE_DECL_IBV_WR_ATOMIC_WRITE && HAVE_DECL_IBV_QP_EX_WITH_ATOMIC_WRITE
	if (peer.native_atomic_write())
		native_ops |= IBV_QP_EX_WITH_ATOMIC_WRITE;
#endif
#if HAVE_DECL_IBV_WR_FLUSH
	if (peer.native_flush())
		native_ops |= IBV_QP_EX_WITH_FLUSH;
#endif
	if (native_ops) {
		attr.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		attr.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				      IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND |
				      IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
				      native_ops;
	}
	if (rdma_create_qp_ex(id, &attr))
		throw_provider("rdma_create_qp_ex()", errno_or(EIO));
	qp_ = QpOwner(id);
}

int ConnQueues::release() noexcept
{
	windows_.invalidate_all();
	qp_.reset();
	int ret = rcq_ ? rcq_->release() : 0;
	if (int cq_ret = cq_ ? cq_->release() : 0; !ret)
		ret = cq_ret;
	if (int channel_ret = shared_channel_.reset(); !ret)
		ret = channel_ret;
	return ret;
}

int ConnQueues::post_failure(const char *call, int err) noexcept
{
	return provider_error(call, err);
}

} // namespace rpma
