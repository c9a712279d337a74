// SPDX-License-Identifier: BSD-3-Clause
#include "../srq_cfg.hh"
#include "cfg.hh"

using namespace rpma;
using namespace rpma::c;

RPMA_EXPORT int rpma_srq_cfg_new(rpma_srq_cfg **cfg_ptr)
{
	if (!cfg_ptr)
		return RPMA_E_INVAL;
	return create(cfg_ptr, [] { return std::make_unique<SrqCfg>(); });
}

RPMA_EXPORT int rpma_srq_cfg_delete(rpma_srq_cfg **cfg_ptr)
{
	return destroy(cfg_ptr);
}

RPMA_EXPORT int rpma_srq_cfg_set_rq_size(rpma_srq_cfg *cfg, uint32_t rq_size)
{
	return set_field(cfg, &SrqCfg::rq_size, rq_size);
}

RPMA_EXPORT int rpma_srq_cfg_get_rq_size(const rpma_srq_cfg *cfg, uint32_t *rq_size)
{
	return get_field(cfg, &SrqCfg::rq_size, rq_size);
}

RPMA_EXPORT int rpma_srq_cfg_set_rcq_size(rpma_srq_cfg *cfg, uint32_t rcq_size)
{
	return set_field(cfg, &SrqCfg::rcq_size, rcq_size);
}

RPMA_EXPORT int rpma_srq_cfg_get_rcq_size(const rpma_srq_cfg *cfg, uint32_t *rcq_size)
{
	return get_field(cfg, &SrqCfg::rcq_size, rcq_size);
}
