// SPDX-License-Identifier: BSD-3-Clause
#include "../conn_cfg.hh"
#include "../conn_req.hh"
#include "../ep.hh"
#include "api.hh"
#include "librpma_private.h"

using namespace rpma;
using namespace rpma::c;

RPMA_EXPORT int rpma_ep_listen(rpma_peer *peer, const char *addr, const char *port,
			       rpma_ep **ep_ptr)
{
	if (!peer || !addr || !port || !ep_ptr)
		return RPMA_E_INVAL;
	return create(ep_ptr, [&] { return std::make_unique<Ep>(*impl(peer), addr, port); });
}

RPMA_EXPORT int rpma_ep_shutdown(rpma_ep **ep_ptr)
{
	return destroy(ep_ptr, [](Ep &ep) { return ep.release(); });
}

RPMA_EXPORT int rpma_ep_get_fd(const rpma_ep *ep, int *fd)
{
	if (!ep || !fd)
		return RPMA_E_INVAL;
	*fd = impl(ep)->fd();
	return 0;
}

RPMA_EXPORT int rpma_ep_next_conn_req(rpma_ep *ep, const rpma_conn_cfg *cfg,
				      rpma_conn_req **req_ptr)
{
	if (!ep || !req_ptr)
		return RPMA_E_INVAL;
	const ConnCfg::Values values = cfg ? impl(cfg)->values() : ConnCfg::defaults();
	return guarded([&] {
		std::unique_ptr<ConnReq> req;
		bool dropped = false;
		if (int ret = impl(ep)->next_conn_req(values, req, dropped)) {
			if (dropped)
				*req_ptr = nullptr;
			return ret;
		}
		*req_ptr = handle<rpma_conn_req>(req.release());
		return 0;
	});
}

RPMA_EXPORT int rpma_ep_set_peer_filter(rpma_ep *ep, rpma_ep_peer_filter_fn fn, void *arg)
{
	if (!ep)
		return RPMA_E_INVAL;
	impl(ep)->set_peer_filter(fn, arg);
	return 0;
}
