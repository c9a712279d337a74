// SPDX-License-Identifier: BSD-3-Clause
#include "../peer.hh"
#include "api.hh"

using namespace rpma;
using namespace rpma::c;

RPMA_EXPORT int rpma_peer_new(ibv_context *ibv_ctx, rpma_peer **peer_ptr)
{
	if (!ibv_ctx || !peer_ptr)
		return RPMA_E_INVAL;
	return create(peer_ptr, [ibv_ctx] { return std::make_unique<Peer>(ibv_ctx); });
}

RPMA_EXPORT int rpma_peer_delete(rpma_peer **peer_ptr)
{
	return destroy(peer_ptr, [](Peer &peer) {
		// fails while regions, queue pairs or SRQs still use the domain
		if (int err = peer.release())
			return provider_error("ibv_dealloc_pd()", err);
		return 0;
	});
}
