// SPDX-License-Identifier: BSD-3-Clause
#include "api.hh"

using namespace rpma;
using namespace rpma::c;

RPMA_EXPORT int rpma_mr_reg(rpma_peer *peer, void *ptr, size_t size, int usage,
			    rpma_mr_local **mr_ptr)
{
	if (!peer || !ptr || size == 0 || !mr_ptr)
		return RPMA_E_INVAL;
	if (usage == 0 || (usage & ~mr_usage_all))
		return RPMA_E_INVAL;
	return create(mr_ptr, [&] { return std::make_unique<MrLocal>(*impl(peer), ptr, size, usage); });
}

RPMA_EXPORT int rpma_mr_dereg(rpma_mr_local **mr_ptr)
{
	return destroy(mr_ptr, [](MrLocal &mr) {
		if (int err = mr.release())
			return provider_error("ibv_dereg_mr()", err);
		return 0;
	});
}

RPMA_EXPORT int rpma_mr_get_descriptor(const rpma_mr_local *mr, void *desc)
{
	if (!mr || !desc)
		return RPMA_E_INVAL;
	impl(mr)->descriptor(desc);
	return 0;
}

RPMA_EXPORT int rpma_mr_get_descriptor_size(const rpma_mr_local *mr, size_t *desc_size)
{
	if (!mr || !desc_size)
		return RPMA_E_INVAL;
	*desc_size = MrLocal::descriptor_size;
	return 0;
}

RPMA_EXPORT int rpma_mr_get_ptr(const rpma_mr_local *mr, void **ptr)
{
	if (!mr || !ptr)
		return RPMA_E_INVAL;
	*ptr = impl(mr)->ptr();
	return 0;
}

RPMA_EXPORT int rpma_mr_get_size(const rpma_mr_local *mr, size_t *size)
{
	if (!mr || !size)
		return RPMA_E_INVAL;
	*size = impl(mr)->size();
	return 0;
}

RPMA_EXPORT int rpma_mr_remote_from_descriptor(const void *desc, size_t desc_size,
					       rpma_mr_remote **mr_ptr)
{
	if (!desc || !mr_ptr)
		return RPMA_E_INVAL;
	if (desc_size < MrLocal::descriptor_size) {
		RPMA_LOG_ERROR("incorrect size of the descriptor: %zu bytes (should be at least: %zu bytes)",
			       desc_size, MrLocal::descriptor_size);
		return RPMA_E_INVAL;
	}
	if (descriptor_usage(desc) == 0) {
		RPMA_LOG_ERROR("usage type of memory is not set");
		return RPMA_E_INVAL;
	}
	return create(mr_ptr, [desc] { return std::make_unique<MrRemote>(MrRemote::from_descriptor(desc)); });
}

RPMA_EXPORT int rpma_mr_remote_get_size(const rpma_mr_remote *mr, size_t *size)
{
	if (!mr || !size)
		return RPMA_E_INVAL;
	*size = impl(mr)->size();
	return 0;
}

RPMA_EXPORT int rpma_mr_remote_get_flush_type(const rpma_mr_remote *mr, int *flush_type)
{
	if (!mr || !flush_type)
		return RPMA_E_INVAL;
	*flush_type = impl(mr)->usage() &
		      (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	return 0;
}

RPMA_EXPORT int rpma_mr_remote_delete(rpma_mr_remote **mr_ptr)
{
	return destroy(mr_ptr);
}

RPMA_EXPORT int rpma_mr_advise(rpma_mr_local *mr, size_t offset, size_t len, int advice,
			       uint32_t flags)
{
	if (!mr)
		return RPMA_E_INVAL; // upstream dereferences it
	// one SGE: upstream cuts a 4 GiB length to 0 and advises nothing
	if (!impl(mr)->holds(offset, len))
		return RPMA_E_INVAL;
#if HAVE_DECL_IBV_ADVISE_MR
	const MrLocal &local = *impl(mr);
	// Only a region that pages on demand has pages to prefetch. rxe of
	// Linux 7.2.13 takes any region for one (rxe_ib_advise_mr() never
	// checks) and faults in the kernel, so the device is not asked.
	if (!local.on_demand()) {
		RPMA_LOG_ERROR("the region was not registered with On-Demand Paging: "
			       "nothing to advise");
		return RPMA_E_INVAL;
	}
	ibv_sge sge{local.address() + offset, static_cast<uint32_t>(len), local.lkey()};
	int ret = ibv_advise_mr(local.pd(), static_cast<ibv_advise_mr_advice>(advice), flags, &sge, 1);
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
	(void)offset, (void)len, (void)advice, (void)flags;
	return RPMA_E_NOSUPP;
#endif
}
