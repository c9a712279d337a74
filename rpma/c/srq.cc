// SPDX-License-Identifier: BSD-3-Clause
#include "../srq.hh"
#include "../srq_cfg.hh"
#include "api.hh"

using namespace rpma;
using namespace rpma::c;

RPMA_EXPORT int rpma_srq_new(rpma_peer *peer, rpma_srq_cfg *cfg, rpma_srq **srq_ptr)
{
	if (!peer || !srq_ptr)
		return RPMA_E_INVAL;
	const SrqCfg::Values sizes = cfg ? impl(cfg)->values() : SrqCfg().values();
	return create(srq_ptr, [&] {
		return std::make_unique<Srq>(*impl(peer), sizes.rq_size, sizes.rcq_size);
	});
}

RPMA_EXPORT int rpma_srq_delete(rpma_srq **srq_ptr)
{
	return destroy(srq_ptr, [](Srq &srq) {
		if (int err = srq.release())
			return provider_error("destroying the shared RQ", err);
		return 0;
	});
}

RPMA_EXPORT int rpma_srq_recv(rpma_srq *srq, rpma_mr_local *dst, size_t offset, size_t len,
			      const void *op_context)
{
	if (!srq || (dst ? !impl(dst)->holds(offset, len) : offset || len))
		return RPMA_E_INVAL;
	return impl(srq)->recv(impl(dst), offset, len, op_context);
}

RPMA_EXPORT int rpma_srq_get_rcq(const rpma_srq *srq, rpma_cq **rcq_ptr)
{
	if (!srq || !rcq_ptr)
		return RPMA_E_INVAL;
	*rcq_ptr = handle<rpma_cq>(impl(srq)->rcq());
	return 0;
}
