// SPDX-License-Identifier: BSD-3-Clause
// A listening endpoint: incoming connection requests arrive on its event
// channel.
#ifndef RPMA_EP_HH
#define RPMA_EP_HH

#include <memory>

#include "conn_cfg.hh"
#include "verbs.hh"

namespace rpma {

class ConnReq;
class Peer;

class Ep {
public:
	Ep(Peer &peer, const char *addr, const char *port);

	int fd() const noexcept { return events_->fd; }

	// Takes the next CM event, which must be a connection request, and makes
	// it an rpma request with queues shaped by cfg. Returns 0 and sets req,
	// or an RPMA_E_* code; `dropped` tells that a request arrived but was
	// dropped (the caller's handle is then cleared, as upstream does).
	// RPMA_E_INVAL, leaving the request queued, for
	// shares_channel_with_srq_rcq(cfg).
	int next_conn_req(const ConnCfg::Values &cfg, std::unique_ptr<ConnReq> &req, bool &dropped);

	// Stops listening; 0 or the provider's errno.
	int release() noexcept;

private:
	Peer &peer_;
	EventChannelOwner events_;
	CmIdOwner id_;
};

} // namespace rpma

#endif
