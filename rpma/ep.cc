// SPDX-License-Identifier: BSD-3-Clause
#include "ep.hh"

#include <fcntl.h>

#include <new>

#include "addr_info.hh"
#include "conn_req.hh"
#include "error.hh"
#include "log.hh"

namespace rpma {

Ep::Ep(Peer &peer, const char *addr, const char *port) : peer_(peer)
{
	events_ = create_event_channel();
	id_ = create_cm_id(events_.get());
	const AddrInfoOwner info = resolve_address(addr, port, AddressRole::passive);
	if (rdma_bind_addr(id_.get(), info->ai_src_addr))
		throw_provider("rdma_bind_addr()", errno_or(EIO));
	if (rdma_listen(id_.get(), 0))
		throw_provider("rdma_listen()", errno_or(EIO));
	RPMA_LOG_NOTICE("Waiting for incoming connection on %s:%s", addr, port);
}

int Ep::next_conn_req(const ConnCfg::Values &cfg, std::unique_ptr<ConnReq> &req, bool &dropped)
{
	dropped = false;
	// refused before the request is taken: it stays for another call
	if (shares_channel_with_srq_rcq(cfg))
		return RPMA_E_INVAL;
	CmEvent event;
	for (unsigned refused = 0;;) {
		if (int ret = next_listening_event(events_.get(), event))
			return ret;
		if (event->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
			RPMA_LOG_ERROR("Unexpected event received: %s",
				       rdma_event_str(event->event));
			if (int err = event.ack())
				return provider_error("rdma_ack_cm_event()", err);
			return RPMA_E_INVAL;
		}
		if (!filter_ || filter_(rdma_get_peer_addr(event->id), filter_arg_))
			break;
		// Refused before any queue is made for it: the stranger costs
		// this thread a reject and an id, nothing more. Acknowledged
		// first: the id cannot be destroyed while its event is out.
		rdma_cm_id *id = event->id;
		const int err = event.ack();
		rdma_reject(id, nullptr, 0);
		destroy_cm_id(id);
		if (err) {
			dropped = true;
			return provider_error("rdma_ack_cm_event()", err);
		}
		if (++refused == REFUSED_PER_CALL && non_blocking())
			return RPMA_E_NO_EVENT;
	}
	rdma_cm_id *id = event->id;
	PrivateData private_data;
	try {
		private_data = PrivateData(event->param.conn.private_data,
					   event->param.conn.private_data_len);
	} catch (const std::bad_alloc &) {
		event.ack();
		rdma_reject(id, nullptr, 0);
		destroy_cm_id(id);
		return RPMA_E_NOMEM;
	}
	// Acknowledged before the request is made: the new id can be neither
	// migrated nor destroyed while its event is outstanding.
	if (int err = event.ack()) {
		// as upstream: the request is dropped (rejected), and not leaked
		rdma_reject(id, nullptr, 0);
		destroy_cm_id(id);
		dropped = true;
		return provider_error("rdma_ack_cm_event()", err);
	}
	req = ConnReq::incoming(peer_, CmIdOwner(id), std::move(private_data), cfg);
	return 0;
}

bool Ep::non_blocking() const noexcept
{
	const int flags = fcntl(events_->fd, F_GETFL);
	return flags < 0 || (flags & O_NONBLOCK);
}

int Ep::release() noexcept
{
	int ret = id_.reset();
	if (int channel_ret = events_.reset(); !ret)
		ret = channel_ret;
	return ret ? provider_error("rdma_destroy_id()", ret) : 0;
}

} // namespace rpma
