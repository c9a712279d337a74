// SPDX-License-Identifier: BSD-3-Clause
#include "../mr.hh"
#include "api.hh"

using namespace rpma;
using namespace rpma::c;

RPMA_EXPORT int rpma_mr_reg(rpma_peer *peer, void *ptr, size_t size, int usage,
			    rpma_mr_local **mr_ptr)
{
	if (!peer || !ptr || size == 0 || !mr_ptr)
		return RPMA_E_INVAL;
	return create(mr_ptr,
		      [&] { return std::make_unique<MrLocal>(*impl(peer), ptr, size, usage); });
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
	*desc_size = MrLocal::DESCRIPTOR_SIZE;
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
	if (desc_size < MrLocal::DESCRIPTOR_SIZE) {
		RPMA_LOG_ERROR("incorrect size of the descriptor: %zu bytes (should be at least: "
			       "%zu bytes)",
			       desc_size, MrLocal::DESCRIPTOR_SIZE);
		return RPMA_E_INVAL;
	}
	return create(mr_ptr, [desc] {
		return std::make_unique<MrRemote>(MrRemote::from_descriptor(desc));
	});
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
	return impl(mr)->advise(offset, len, advice, flags);
}
