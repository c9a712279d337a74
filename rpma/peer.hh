// SPDX-License-Identifier: BSD-3-Clause
// A peer: one RDMA device context and the protection domain every region,
// queue pair and shared receive queue of the application lives in.
#ifndef RPMA_PEER_HH
#define RPMA_PEER_HH

#include <infiniband/verbs.h>

#include "verbs.hh"

namespace rpma {

// The native operations an application says its responders execute.
struct NativeOps {
	bool atomic_write = false;
	bool flush = false;
};

class Peer {
public:
	// Probes the device's capabilities, then allocates the protection
	// domain; RPMA_NATIVE_OPS says which native operations to use.
	explicit Peer(ibv_context *context);
	// The same with the caller's word instead of the environment's, for
	// programs that run peers of different choices in one process (the
	// fio engines' native_ops=, docs/persistence.md, "Choosing per peer").
	Peer(ibv_context *context, NativeOps wanted);

	ibv_context *context() const noexcept { return context_; }
	ibv_pd *pd() const noexcept { return pd_.get(); }
	bool odp_capable() const noexcept { return odp_capable_; }
	// Whether connections post the native verbs. Each needs the verb in
	// the rdma-core this library was built with, the local device's
	// capability and the application's word that the responders execute
	// it (RPMA_NATIVE_OPS or the constructor's argument): no descriptor
	// says so, and a responder without it fails the request and the
	// connection. Otherwise they are emulated. Fixed for the peer's life:
	// connections of any thread read it without a lock.
	bool native_atomic_write() const noexcept { return native_atomic_write_; }
	bool native_flush() const noexcept { return native_flush_; }
	// Whether the local device and this build could post the native verb.
	bool atomic_write_capable() const noexcept { return atomic_write_capable_; }
	bool flush_capable() const noexcept { return flush_responder_; }
	// Whether the device binds type 2 memory windows (2A or 2B).
	bool mw_type2_capable() const noexcept { return mw_type2_capable_; }
	// What librdmacm clamps a passive side's responder resources and
	// initiator depth to (the device's limits), for a connection whose
	// queue pair rpma moves to RTS itself (ConnReq::connect).
	uint8_t max_responder_resources() const noexcept { return max_responder_resources_; }
	uint8_t max_initiator_depth() const noexcept { return max_initiator_depth_; }

	// The ibv access flags that give a region the RPMA_MR_USAGE_* usages.
	// Flush usages grant RDMA reads (for emulating initiators) and, where
	// the device executes flushes, the native flush of that type.
	int access_for(int usage) const noexcept;

	// Releases the protection domain; 0 or the provider's errno.
	int release() noexcept { return pd_.reset(); }

private:
	Peer(ibv_context *context, NativeOps wanted, const char *wanted_by);

	ibv_context *context_;
	bool odp_capable_ = false;
	bool atomic_write_capable_ = false;
	bool native_atomic_write_ = false;
	bool native_flush_ = false;
	bool flush_responder_ = false; // the device executes incoming flushes
	bool mw_type2_capable_ = false;
	uint8_t max_responder_resources_ = 0;
	uint8_t max_initiator_depth_ = 0;
	PdOwner pd_;
};

// Whether the device supports On-Demand Paging for RC reads and writes;
// throws rpma::Error(RPMA_E_PROVIDER) when it cannot be queried.
bool is_odp_capable_device(ibv_context *context);

// Whether the device binds type 2 memory windows; throws like
// is_odp_capable_device().
bool is_mw_type2_capable_device(ibv_context *context);

} // namespace rpma

#endif
