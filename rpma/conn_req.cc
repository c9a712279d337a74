// SPDX-License-Identifier: BSD-3-Clause
#include "conn_req.hh"

#include "addr_info.hh"
#include "conn.hh"
#include "error.hh"
#include "log.hh"
#include "mr.hh"

namespace rpma {

ConnReq::ConnReq(Peer &peer, CmIdOwner id, bool incoming, PrivateData private_data)
	: peer_(peer), incoming_(incoming), id_(std::move(id)),
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

	std::unique_ptr<ConnReq> req(new ConnReq(peer, std::move(id), false, PrivateData()));
	req->queues_ = std::make_unique<ConnQueues>(peer, req->id_.get(), cfg);
	RPMA_LOG_NOTICE("Requesting a connection to %s:%s", addr, port);
	return req;
}

std::unique_ptr<ConnReq> ConnReq::incoming(Peer &peer, CmIdOwner id, PrivateData private_data,
					   const ConnCfg::Values &cfg)
{
	std::unique_ptr<ConnReq> req(
		new ConnReq(peer, std::move(id), true, std::move(private_data)));
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

std::unique_ptr<Conn> ConnReq::connect(const rpma_conn_private_data *pdata)
{
	auto conn = std::make_unique<Conn>(peer_, std::move(id_), std::move(queues_),
					   std::move(private_data_));
	conn->establish(incoming_, pdata);
	return conn;
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
