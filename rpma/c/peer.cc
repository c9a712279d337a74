// SPDX-License-Identifier: BSD-3-Clause
#include "../peer.hh"
#include "api.hh"
#include "librpma_private.h"

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

// Private (librpma_private.h, version node LIBRPMA_PRIVATE). The choice is
// made when the peer is created, not set on it later: every connection of
// a peer reads it without a lock from whichever thread makes it, and one
// that changed under live connections would leave their queue pairs
// created for another set of verbs than the peer then claims.
RPMA_EXPORT int rpma_peer_new_with_native_ops(ibv_context *ibv_ctx, int native_ops,
					      rpma_peer **peer_ptr)
{
	if (!ibv_ctx || !peer_ptr || (native_ops & ~RPMA_NATIVE_OP_ALL))
		return RPMA_E_INVAL;
	const NativeOps wanted{.atomic_write = (native_ops & RPMA_NATIVE_OP_ATOMIC_WRITE) != 0,
			       .flush = (native_ops & RPMA_NATIVE_OP_FLUSH) != 0};
	return create(peer_ptr,
		      [ibv_ctx, wanted] { return std::make_unique<Peer>(ibv_ctx, wanted); });
}

RPMA_EXPORT int rpma_peer_get_native_ops(const rpma_peer *peer, int *native_ops, int *device_ops)
{
	if (!peer || !native_ops || !device_ops)
		return RPMA_E_INVAL;
	const Peer &p = *impl(peer);
	*native_ops = (p.native_atomic_write() ? RPMA_NATIVE_OP_ATOMIC_WRITE : 0) |
		      (p.native_flush() ? RPMA_NATIVE_OP_FLUSH : 0);
	*device_ops = (p.atomic_write_capable() ? RPMA_NATIVE_OP_ATOMIC_WRITE : 0) |
		      (p.flush_capable() ? RPMA_NATIVE_OP_FLUSH : 0);
	return 0;
}
