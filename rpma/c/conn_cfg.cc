// SPDX-License-Identifier: BSD-3-Clause
#include "../conn_cfg.hh"
#include "cfg.hh"

using namespace rpma;
using namespace rpma::c;

RPMA_EXPORT int rpma_conn_cfg_new(rpma_conn_cfg **cfg_ptr)
{
	if (!cfg_ptr)
		return RPMA_E_INVAL;
	return create(cfg_ptr, [] { return std::make_unique<ConnCfg>(); });
}

RPMA_EXPORT int rpma_conn_cfg_delete(rpma_conn_cfg **cfg_ptr)
{
	return destroy(cfg_ptr);
}

RPMA_EXPORT int rpma_conn_cfg_set_timeout(rpma_conn_cfg *cfg, int timeout_ms)
{
	if (timeout_ms < 0)
		return RPMA_E_INVAL;
	return set_field(cfg, &ConnCfg::timeout_ms, timeout_ms);
}

RPMA_EXPORT int rpma_conn_cfg_get_timeout(const rpma_conn_cfg *cfg, int *timeout_ms)
{
	return get_field(cfg, &ConnCfg::timeout_ms, timeout_ms);
}

RPMA_EXPORT int rpma_conn_cfg_set_cq_size(rpma_conn_cfg *cfg, uint32_t cq_size)
{
	return set_field(cfg, &ConnCfg::cq_size, cq_size);
}

RPMA_EXPORT int rpma_conn_cfg_get_cq_size(const rpma_conn_cfg *cfg, uint32_t *cq_size)
{
	return get_field(cfg, &ConnCfg::cq_size, cq_size);
}

RPMA_EXPORT int rpma_conn_cfg_set_rcq_size(rpma_conn_cfg *cfg, uint32_t rcq_size)
{
	return set_field(cfg, &ConnCfg::rcq_size, rcq_size);
}

RPMA_EXPORT int rpma_conn_cfg_get_rcq_size(const rpma_conn_cfg *cfg, uint32_t *rcq_size)
{
	return get_field(cfg, &ConnCfg::rcq_size, rcq_size);
}

RPMA_EXPORT int rpma_conn_cfg_set_sq_size(rpma_conn_cfg *cfg, uint32_t sq_size)
{
	return set_field(cfg, &ConnCfg::sq_size, sq_size);
}

RPMA_EXPORT int rpma_conn_cfg_get_sq_size(const rpma_conn_cfg *cfg, uint32_t *sq_size)
{
	return get_field(cfg, &ConnCfg::sq_size, sq_size);
}

RPMA_EXPORT int rpma_conn_cfg_set_rq_size(rpma_conn_cfg *cfg, uint32_t rq_size)
{
	return set_field(cfg, &ConnCfg::rq_size, rq_size);
}

RPMA_EXPORT int rpma_conn_cfg_get_rq_size(const rpma_conn_cfg *cfg, uint32_t *rq_size)
{
	return get_field(cfg, &ConnCfg::rq_size, rq_size);
}

RPMA_EXPORT int rpma_conn_cfg_set_compl_channel(rpma_conn_cfg *cfg, bool shared)
{
	return set_field(cfg, &ConnCfg::shared_channel, shared);
}

RPMA_EXPORT int rpma_conn_cfg_get_compl_channel(const rpma_conn_cfg *cfg, bool *shared)
{
	return get_field(cfg, &ConnCfg::shared_channel, shared);
}

// A NULL srq is refused, as upstream does: a configuration cannot be
// detached from its SRQ.
RPMA_EXPORT int rpma_conn_cfg_set_srq(rpma_conn_cfg *cfg, rpma_srq *srq)
{
	if (!srq)
		return RPMA_E_INVAL;
	return set_field(cfg, &ConnCfg::srq, impl(srq));
}

RPMA_EXPORT int rpma_conn_cfg_get_srq(const rpma_conn_cfg *cfg, rpma_srq **srq_ptr)
{
	if (!cfg || !srq_ptr)
		return RPMA_E_INVAL;
	*srq_ptr = handle<rpma_srq>(impl(cfg)->srq.load());
	return 0;
}
