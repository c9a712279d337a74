// SPDX-License-Identifier: BSD-3-Clause
#include "mr.hh"

#include <cinttypes>
#include <cstring>

#include "config.h"
#include "error.hh"
#include "log.hh"
#include "peer.hh"
#include "soft_roce.hh"
#include "wire.hh"

namespace rpma {

namespace {

ibv_mr *reg_mr(ibv_pd *pd, void *ptr, size_t size, int access)
{
	errno = 0;
	return ibv_reg_mr(pd, ptr, size, access);
}

// docs/platforms.md, "rxe: ODP loses the offset within a page". Only a
// transfer tells a fixed kernel from a broken one, which a registration
// cannot afford, so every rxe gets the warning.
void warn_if_soft_roce(ibv_context *context)
{
	ibv_device_attr_ex attr{};
	if (ibv_query_device_ex(context, nullptr, &attr) ||
	    attr.orig_attr.vendor_id != SOFT_ROCE_VENDOR_ID)
		return;
	RPMA_LOG_WARNING("%s is Soft-RoCE, registered with On-Demand Paging: rxe's ODP "
			 "(Linux 7.2.13 at least) places reads and writes at the start of "
			 "their page, misplacing data; use a Device DAX or a fixed kernel",
			 context->device->name);
}

} // namespace

MrLocal::MrLocal(Peer &peer, void *ptr, size_t size, int usage) : usage_(usage)
{
	if (usage == 0 || (usage & ~MR_USAGE_ALL))
		throw Error(RPMA_E_INVAL);
	register_region(peer, ptr, size, peer.access_for(usage));
}

MrLocal::MrLocal(Peer &peer, void *ptr, size_t size, int usage, ForWindows)
	: usage_(usage), for_windows_(true)
{
	if (usage == 0 || (usage & ~MR_USAGE_ALL) || !(usage & window_usages()))
		throw Error(RPMA_E_INVAL);
	if (!peer.mw_type2_capable()) {
		RPMA_LOG_ERROR("%s has no type 2 memory windows", peer.context()->device->name);
		throw Error(RPMA_E_NOSUPP);
	}
	// The region's own key must open nothing: no remote right, and none of
	// the native flush rights, which are remote too. A window that grants
	// writes needs the region's local write right (IBTA C10-74).
	constexpr int remote = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_ATOMIC
#if HAVE_DECL_IBV_WR_FLUSH
			       | IBV_ACCESS_FLUSH_GLOBAL | IBV_ACCESS_FLUSH_PERSISTENT
#endif
		;
	int access = peer.access_for(usage);
	const bool windows_write = access & IBV_ACCESS_REMOTE_WRITE;
	access = (access & ~remote) | IBV_ACCESS_MW_BIND;
	if (windows_write)
		access |= IBV_ACCESS_LOCAL_WRITE;
	register_region(peer, ptr, size, access);
}

void MrLocal::register_region(Peer &peer, void *ptr, size_t size, int access)
{
	mr_ = MrOwner(reg_mr(peer.pd(), ptr, size, access));
	if (mr_)
		return;
	int err = errno_or(EIO);
#if HAVE_DECL_IBV_WR_FLUSH
	// A device grants the persistent flush only on persistent memory; on
	// any other memory it is refused like any flush of a region without it,
	// with an error completion, which is what the initiator should see.
	if (err == EINVAL && (access & IBV_ACCESS_FLUSH_PERSISTENT)) {
		RPMA_LOG_INFO(
			"not persistent memory: the region refuses native persistent flushes");
		access &= ~IBV_ACCESS_FLUSH_PERSISTENT;
		mr_ = MrOwner(reg_mr(peer.pd(), ptr, size, access));
		if (mr_)
			return;
		err = errno_or(EIO);
	}
#endif
	if (err != EOPNOTSUPP)
		throw_provider("ibv_reg_mr()", err);
	if (!peer.odp_capable()) {
		RPMA_LOG_ERROR("Peer does not support On-Demand Paging: ibv_reg_mr(): %s",
			       std::strerror(err));
		throw_logged_provider(err);
	}
	mr_ = MrOwner(reg_mr(peer.pd(), ptr, size, access | IBV_ACCESS_ON_DEMAND));
	if (!mr_)
		throw_provider("ibv_reg_mr() with On-Demand Paging (FS DAX?)", errno_or(EIO));
	on_demand_ = true;
	warn_if_soft_roce(peer.context());
}

void MrLocal::descriptor(void *desc) const noexcept
{
	wire::write_mr(desc, {address(), size(), mr_->rkey, static_cast<uint8_t>(usage_)});
}

int MrLocal::advise(size_t offset, size_t len, int advice, uint32_t flags) const noexcept
{
	// one SGE: upstream cuts a 4 GiB length to 0 and advises nothing
	if (!holds(offset, len))
		return RPMA_E_INVAL;
#if HAVE_DECL_IBV_ADVISE_MR
	// Only a region that pages on demand has pages to prefetch, and rxe
	// faults on any other (docs/platforms.md, "rxe: advising a pinned
	// region faults the kernel"), so the device is not asked.
	if (!on_demand_) {
		RPMA_LOG_ERROR("the region was not registered with On-Demand Paging: "
			       "nothing to advise");
		return RPMA_E_INVAL;
	}
	ibv_sge sge{address() + offset, static_cast<uint32_t>(len), lkey()};
	int ret = ibv_advise_mr(pd(), static_cast<ibv_advise_mr_advice>(advice), flags, &sge, 1);
	switch (ret) {
	case 0:
		return 0;
	case EOPNOTSUPP:
#if ENOTSUP != EOPNOTSUPP
	case ENOTSUP:
#endif
		RPMA_LOG_INFO("ibv_advise_mr() is not supported by the device");
		return RPMA_E_NOSUPP;
	case EFAULT:
	case EINVAL:
		RPMA_LOG_ERROR("ibv_advise_mr() rejected the range, advice or flags: %s",
			       std::strerror(ret));
		return RPMA_E_INVAL;
	default:
		return provider_error("ibv_advise_mr()", ret);
	}
#else
	(void)advice, (void)flags;
	return RPMA_E_NOSUPP;
#endif
}

MrRemote MrRemote::from_descriptor(const void *desc)
{
	const wire::MrDescriptor d = wire::read_mr(desc);
	if (d.usage == 0) {
		RPMA_LOG_ERROR("usage type of memory is not set");
		throw Error(RPMA_E_INVAL);
	}
	MrRemote mr;
	mr.address_ = d.address;
	mr.size_ = d.size;
	mr.rkey_ = d.rkey;
	mr.usage_ = d.usage;
	RPMA_LOG_DEBUG("new rpma_mr_remote(raddr=0x%" PRIx64 ", size=%" PRIu64 ", rkey=0x%" PRIx32
		       ", usage=0x%x)",
		       mr.address_, mr.size_, mr.rkey_, mr.usage_);
	return mr;
}

} // namespace rpma
