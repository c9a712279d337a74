// SPDX-License-Identifier: BSD-3-Clause
#include "../peer_cfg.hh"
#include "api.hh"

using namespace rpma;
using namespace rpma::c;

RPMA_EXPORT int rpma_peer_cfg_new(rpma_peer_cfg **pcfg_ptr)
{
	if (!pcfg_ptr)
		return RPMA_E_INVAL;
	return create(pcfg_ptr, [] { return std::make_unique<PeerCfg>(); });
}

RPMA_EXPORT int rpma_peer_cfg_delete(rpma_peer_cfg **pcfg_ptr)
{
	return destroy(pcfg_ptr);
}

RPMA_EXPORT int rpma_peer_cfg_set_direct_write_to_pmem(rpma_peer_cfg *pcfg, bool supported)
{
	if (!pcfg)
		return RPMA_E_INVAL;
	impl(pcfg)->set_direct_write_to_pmem(supported);
	return 0;
}

RPMA_EXPORT int rpma_peer_cfg_get_direct_write_to_pmem(const rpma_peer_cfg *pcfg, bool *supported)
{
	if (!pcfg || !supported)
		return RPMA_E_INVAL;
	*supported = impl(pcfg)->direct_write_to_pmem();
	return 0;
}

RPMA_EXPORT int rpma_peer_cfg_get_descriptor(const rpma_peer_cfg *pcfg, void *desc)
{
	if (!pcfg || !desc)
		return RPMA_E_INVAL;
	impl(pcfg)->descriptor(desc);
	return 0;
}

RPMA_EXPORT int rpma_peer_cfg_get_descriptor_size(const rpma_peer_cfg *pcfg, size_t *desc_size)
{
	if (!pcfg || !desc_size)
		return RPMA_E_INVAL;
	*desc_size = PeerCfg::DESCRIPTOR_SIZE;
	return 0;
}

RPMA_EXPORT int rpma_peer_cfg_from_descriptor(const void *desc, size_t desc_size,
					      rpma_peer_cfg **pcfg_ptr)
{
	if (!desc || !pcfg_ptr)
		return RPMA_E_INVAL;
	if (desc_size < PeerCfg::DESCRIPTOR_SIZE) {
		RPMA_LOG_ERROR("incorrect size of the descriptor: %zu bytes (should be at least "
			       "%zu bytes)",
			       desc_size, PeerCfg::DESCRIPTOR_SIZE);
		return RPMA_E_INVAL;
	}
	int ret = create(pcfg_ptr, [desc] {
		return std::make_unique<PeerCfg>(
			PeerCfg::from_descriptor(desc).direct_write_to_pmem());
	});
	if (ret == 0)
		RPMA_LOG_INFO("Direct Write To PMem is %s", impl(*pcfg_ptr)->direct_write_to_pmem()
								    ? "supported"
								    : "unsupported");
	return ret;
}
