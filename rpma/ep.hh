// SPDX-License-Identifier: BSD-3-Clause
// A listening endpoint: incoming connection requests arrive on its event
// channel.
#ifndef RPMA_EP_HH
#define RPMA_EP_HH

#include <memory>

#include <sys/socket.h>

#include "conn_cfg.hh"
#include "librpma_private.h"
#include "verbs.hh"

namespace rpma {

class ConnReq;
class Peer;

class Ep {
public:
	Ep(Peer &peer, const char *addr, const char *port);

	int fd() const noexcept { return events_->fd; }

	// Whom the endpoint takes requests from: fn(source, arg) nonzero
	// accepts (librpma_private.h, rpma_ep_set_peer_filter); fn nullptr:
	// anyone, as upstream.
	using PeerFilter = rpma_ep_peer_filter_fn;
	void set_peer_filter(PeerFilter fn, void *arg) noexcept
	{
		filter_ = fn;
		filter_arg_ = arg;
	}

	// Takes the next CM event, which must be a connection request, and makes
	// it an rpma request with queues shaped by cfg. Returns 0 and sets req,
	// or an RPMA_E_* code; `dropped` tells that a request arrived but was
	// dropped (the caller's handle is then cleared, as upstream does).
	// RPMA_E_INVAL, leaving the request queued, for
	// shares_channel_with_srq_rcq(cfg). A request the filter refuses is
	// rejected before anything is made for it, and the next one taken: on
	// a non-blocking channel RPMA_E_NO_EVENT once none waits, or after
	// REFUSED_PER_CALL refusals (the fd then stays readable).
	int next_conn_req(const ConnCfg::Values &cfg, std::unique_ptr<ConnReq> &req, bool &dropped);

	// A stranger may send requests without end: a non-blocking caller gets
	// its thread back after this many refusals in one call.
	static constexpr unsigned REFUSED_PER_CALL = RPMA_EP_REFUSED_PER_CALL;

	// Stops listening; 0 or the provider's errno.
	int release() noexcept;

private:
	// Whether the channel is non-blocking; a failure to tell counts as
	// non-blocking (the caller is given its thread back).
	bool non_blocking() const noexcept;

	Peer &peer_;
	PeerFilter filter_ = nullptr;
	void *filter_arg_ = nullptr;
	EventChannelOwner events_;
	CmIdOwner id_;
};

} // namespace rpma

#endif
