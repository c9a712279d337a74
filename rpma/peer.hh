// SPDX-License-Identifier: BSD-3-Clause
// A peer: one RDMA device context and the protection domain every region,
// queue pair and shared receive queue of the application lives in.
#ifndef RPMA_PEER_HH
#define RPMA_PEER_HH

#include <infiniband/verbs.h>

#include "verbs.hh"

namespace rpma {

class Peer {
public:
	// Probes the device's capabilities, then allocates the protection domain.
	explicit Peer(ibv_context *context);

	ibv_context *context() const noexcept { return context_; }
	ibv_pd *pd() const noexcept { return pd_.get(); }
	bool odp_capable() const noexcept { return odp_capable_; }
	// Whether connections post the native verbs. Each needs the verb in
	// the rdma-core this library was built with, the local device's
	// capability and the application's word that the responders execute
	// it (RPMA_NATIVE_OPS): no descriptor says so, and a responder without
	// it fails the request and the connection. Otherwise they are emulated.
	bool native_atomic_write() const noexcept { return native_atomic_write_; }
	bool native_flush() const noexcept { return native_flush_; }

	// The ibv access flags that give a region the RPMA_MR_USAGE_* usages.
	// Flush usages grant RDMA reads (for emulating initiators) and, where
	// the device executes flushes, the native flush of that type.
	int access_for(int usage) const noexcept;

	// Releases the protection domain; 0 or the provider's errno.
	int release() noexcept { return pd_.reset(); }

private:
	ibv_context *context_;
	bool odp_capable_ = false;
	bool native_atomic_write_ = false;
	bool native_flush_ = false;
	bool flush_responder_ = false; // the device executes incoming flushes
	PdOwner pd_;
};

// Whether the device supports On-Demand Paging for RC reads and writes;
// throws rpma::Error(RPMA_E_PROVIDER) when it cannot be queried.
bool is_odp_capable_device(ibv_context *context);

} // namespace rpma

#endif
