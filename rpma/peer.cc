// SPDX-License-Identifier: BSD-3-Clause
#include "peer.hh"

#include "config.h"
#include "error.hh"
#include "log.hh"

namespace rpma {

namespace {

ibv_device_attr_ex query_device(ibv_context *context)
{
	ibv_device_attr_ex attr{};
	int ret = ibv_query_device_ex(context, nullptr, &attr);
	if (ret)
		throw_provider("ibv_query_device_ex()", ret);
	return attr;
}

bool supports_rc_odp(const ibv_device_attr_ex &attr)
{
	constexpr uint32_t rc_needed = IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ;
	return (attr.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
	       (attr.odp_caps.per_transport_caps.rc_odp_caps & rc_needed) == rc_needed;
}

bool atomic_write_capable([[maybe_unused]] const ibv_device_attr_ex &attr)
{
#if HAVE_DECL_IBV_WR_ATOMIC_WRITE
	// The kernel's IB_UVERBS_DEVICE_ATOMIC_WRITE; rdma-core 44 can post the
	// verb but its headers do not name the capability bit.
	constexpr uint64_t device_atomic_write = 1ULL << 40;
	return attr.device_cap_flags_ex & device_atomic_write;
#else
	return false;
#endif
}

} // namespace

bool is_odp_capable_device(ibv_context *context)
{
	return supports_rc_odp(query_device(context));
}

Peer::Peer(ibv_context *context) : context_(context)
{
	const ibv_device_attr_ex attr = query_device(context);
	odp_capable_ = supports_rc_odp(attr);
	native_atomic_write_ = atomic_write_capable(attr);
	if (!native_atomic_write_)
		RPMA_LOG_INFO("Native atomic write is not supported - an inline, fenced RDMA write will be used instead");

	errno = 0;
	pd_ = PdOwner(ibv_alloc_pd(context));
	if (!pd_) {
		int err = errno;
		if (err == ENOMEM)
			throw Error(RPMA_E_NOMEM);
		if (err == 0) {
			RPMA_LOG_ERROR("ibv_alloc_pd() failed without an errno");
			throw Error(RPMA_E_UNKNOWN);
		}
		throw_provider("ibv_alloc_pd()", err);
	}
}

int Peer::access_for(int usage) const noexcept
{
	int access = 0;
	if (usage & RPMA_MR_USAGE_READ_SRC)
		access |= IBV_ACCESS_REMOTE_READ;
	if (usage & RPMA_MR_USAGE_READ_DST) {
		access |= IBV_ACCESS_LOCAL_WRITE;
		// an iWARP read response lands as a tagged write
		if (context_->device && context_->device->transport_type == IBV_TRANSPORT_IWARP)
			access |= IBV_ACCESS_REMOTE_WRITE;
	}
	if (usage & (RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_RECV))
		access |= IBV_ACCESS_LOCAL_WRITE;
	if (usage & RPMA_MR_USAGE_WRITE_DST)
		access |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
	// Flushes are always emulated by an RDMA read (a peer's support for the
	// native flush verb cannot be known), so the region must be readable.
	if (usage & (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT))
		access |= IBV_ACCESS_REMOTE_READ;
	return access;
}

} // namespace rpma
