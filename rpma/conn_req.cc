// SPDX-License-Identifier: BSD-3-Clause
#include "conn_req.hh"

#include <poll.h>

#include <algorithm>
#include <ctime>

#include "addr_info.hh"
#include "conn.hh"
#include "error.hh"
#include "log.hh"
#include "mr.hh"
#include "mw.hh"
#include "peer.hh"

namespace rpma {

namespace {

// The wr_id of the bind requests connect() posts: their completions are the
// library's own, taken before the application sees the connection.
constexpr uint64_t BIND_WR_ID = 0;

// Attribute mask bits 21-23, which old kernels used for RoCE addresses and
// librdmacm masks off on InfiniBand ports; no kernel that rpma supports
// returns them, and ibv_modify_qp refuses them: never passed on.
constexpr int STALE_ROCE_MASK_BITS = 0xe00000;

int64_t now_ns() noexcept
{
	timespec ts{};
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// One transition as librdmacm makes it: the attributes from the kernel's CM
// (rdma_init_qp_attr), adjusted, then ibv_modify_qp.
template <typename Adjust> void modify_qp(rdma_cm_id *id, ibv_qp_state state, Adjust adjust)
{
	ibv_qp_attr attr{};
	attr.qp_state = state;
	int mask = 0;
	if (rdma_init_qp_attr(id, &attr, &mask))
		throw_provider("rdma_init_qp_attr()", errno_or(EIO));
	adjust(attr, mask);
	if (int ret = ibv_modify_qp(id->qp, &attr, mask))
		throw_provider("ibv_modify_qp()", ret);
}

} // namespace

ConnReq::ConnReq(Peer &peer, CmIdOwner id, bool incoming, PrivateData private_data, int timeout_ms)
	: peer_(peer), incoming_(incoming), timeout_ms_(timeout_ms), id_(std::move(id)),
	  private_data_(std::move(private_data))
{
}

std::unique_ptr<ConnReq> ConnReq::outgoing(Peer &peer, const char *addr, const char *port,
					   const ConnCfg::Values &cfg)
{
	// refused before the address is resolved, as upstream does
	if (shares_channel_with_srq_rcq(cfg))
		throw Error(RPMA_E_INVAL);
	const AddrInfoOwner info = resolve_address(addr, port, AddressRole::active);
	// no event channel: the resolution below runs synchronously
	CmIdOwner id = create_cm_id(nullptr);
	if (rdma_resolve_addr(id.get(), info->ai_src_addr, info->ai_dst_addr, cfg.timeout_ms))
		throw_provider("rdma_resolve_addr()", errno_or(EIO));
	if (rdma_resolve_route(id.get(), cfg.timeout_ms))
		throw_provider("rdma_resolve_route()", errno_or(EIO));

	std::unique_ptr<ConnReq> req(
		new ConnReq(peer, std::move(id), false, PrivateData(), cfg.timeout_ms));
	req->queues_ = std::make_unique<ConnQueues>(peer, req->id_.get(), cfg);
	RPMA_LOG_NOTICE("Requesting a connection to %s:%s", addr, port);
	return req;
}

std::unique_ptr<ConnReq> ConnReq::incoming(Peer &peer, CmIdOwner id, PrivateData private_data,
					   const ConnCfg::Values &cfg)
{
	std::unique_ptr<ConnReq> req(
		new ConnReq(peer, std::move(id), true, std::move(private_data), cfg.timeout_ms));
	req->queues_ = std::make_unique<ConnQueues>(peer, req->id_.get(), cfg);
	return req;
}

int ConnReq::recv(const MrLocal &dst, size_t offset, size_t len, const void *op_context) noexcept
{
	ibv_sge sge{dst.address() + offset, static_cast<uint32_t>(len), dst.lkey()};
	ibv_recv_wr wr{};
	wr.wr_id = reinterpret_cast<uintptr_t>(op_context);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return queues_->recv(wr);
}

int ConnReq::bind_mw(Mw &mw, const MrLocal &mr, size_t offset, size_t len, int usage) noexcept
{
	if (!incoming_) {
		RPMA_LOG_ERROR("windows are bound before the connection only on incoming requests");
		return RPMA_E_INVAL;
	}
	const auto lock = lock_windows();
	return mw.reserve(*queues_, mr, offset, len, usage);
}

std::unique_ptr<Conn> ConnReq::connect(const rpma_conn_private_data *pdata)
{
	bool qp_ready = false;
	if (incoming_) {
		const auto lock = lock_windows();
		qp_ready = std::any_of(queues_->windows().windows().begin(),
				       queues_->windows().windows().end(),
				       [](const Mw *mw) { return mw->reserved(); });
	}
	if (qp_ready)
		bind_reserved_windows();
	auto conn = std::make_unique<Conn>(peer_, std::move(id_), std::move(queues_),
					   std::move(private_data_));
	conn->establish(incoming_, pdata, qp_ready);
	return conn;
}

void ConnReq::move_to_rts()
{
	rdma_cm_id *id = id_.get();
	// librdmacm first refreshes INIT's attributes from the CM's
	modify_qp(id, IBV_QPS_INIT, [](ibv_qp_attr &, int &) {});
	// and clamps what the peer asked for to the device's limits, as
	// rdma_accept() does with RDMA_MAX_RESP_RES and RDMA_MAX_INIT_DEPTH
	modify_qp(id, IBV_QPS_RTR, [this](ibv_qp_attr &attr, int &mask) {
		mask &= ~STALE_ROCE_MASK_BITS;
		attr.max_dest_rd_atomic = std::min(attr.max_dest_rd_atomic,
						   peer_.max_responder_resources());
	});
	modify_qp(id, IBV_QPS_RTS, [this](ibv_qp_attr &attr, int &) {
		attr.max_rd_atomic = std::min(attr.max_rd_atomic, peer_.max_initiator_depth());
	});
}

void ConnReq::bind_reserved_windows()
{
	if (!peer_.mw_type2_capable()) {
		RPMA_LOG_ERROR("the device has no type 2 memory windows");
		throw Error(RPMA_E_NOSUPP);
	}
	move_to_rts();
	const int64_t deadline = now_ns() + static_cast<int64_t>(timeout_ms_) * 1000000;
	// One at a time: the send queue and the CQ may be as short as one entry.
	for (;;) {
		{
			const auto lock = lock_windows();
			const auto &windows = queues_->windows().windows();
			auto next = std::find_if(windows.begin(), windows.end(),
						 [](const Mw *mw) { return mw->reserved(); });
			if (next == windows.end())
				break;
			ibv_send_wr wr;
			(*next)->bind_request(wr, IBV_SEND_SIGNALED, BIND_WR_ID);
			if (int ret = queues_->send(wr))
				throw Error(ret);
			(*next)->posted();
		}
		wait_for_bind(deadline);
	}
	queues_->cq()->take_internal_event(10);
}

void ConnReq::wait_for_bind(int64_t deadline_ns)
{
	Cq *cq = queues_->cq();
	ibv_wc wc{};
	for (;;) {
		const int got = ibv_poll_cq(cq->ibv(), 1, &wc);
		if (got < 0)
			throw_provider("ibv_poll_cq()", -got);
		if (got == 1)
			break;
		const int64_t left_ns = deadline_ns - now_ns();
		if (left_ns <= 0) {
			RPMA_LOG_ERROR("binding a memory window: no completion within %d ms",
				       timeout_ms_);
			throw_logged_provider(ETIMEDOUT);
		}
		// sleeps until the completion's event, at most a millisecond
		pollfd pfd{cq->fd(), POLLIN, 0};
		(void)poll(&pfd, 1, 1);
	}
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_BIND_MW) {
		RPMA_LOG_ERROR("binding a memory window failed: %s (opcode %d)",
			       ibv_wc_status_str(wc.status), static_cast<int>(wc.opcode));
		throw_logged_provider(EIO);
	}
}

int ConnReq::release() noexcept
{
	int ret = queues_ ? queues_->release() : 0;
	queues_.reset();
	if (incoming_ && id_ && rdma_reject(id_.get(), nullptr, 0) && !ret)
		ret = errno_or(EIO);
	// upstream leaves an incoming id behind; nothing can use it any more
	if (int id_ret = id_.reset(); !ret)
		ret = id_ret;
	private_data_.clear();
	return ret ? provider_error("releasing the connection request", ret) : 0;
}

} // namespace rpma
