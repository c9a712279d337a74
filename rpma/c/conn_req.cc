// SPDX-License-Identifier: BSD-3-Clause
#include "../conn.hh"
#include "../conn_cfg.hh"
#include "../conn_req.hh"
#include "../mr.hh"
#include "api.hh"

using namespace rpma;
using namespace rpma::c;

RPMA_EXPORT int rpma_conn_req_new(rpma_peer *peer, const char *addr, const char *port,
				  const rpma_conn_cfg *cfg, rpma_conn_req **req_ptr)
{
	if (!peer || !addr || !port || !req_ptr)
		return RPMA_E_INVAL;
	const ConnCfg::Values values = cfg ? impl(cfg)->values() : ConnCfg::defaults();
	return create(req_ptr, [&] { return ConnReq::outgoing(*impl(peer), addr, port, values); });
}

RPMA_EXPORT int rpma_conn_req_delete(rpma_conn_req **req_ptr)
{
	return destroy(req_ptr, [](ConnReq &req) { return req.release(); });
}

RPMA_EXPORT int rpma_conn_req_connect(rpma_conn_req **req_ptr, const rpma_conn_private_data *pdata,
				      rpma_conn **conn_ptr)
{
	if (!req_ptr || !*req_ptr)
		return RPMA_E_INVAL;
	// From here on the request is consumed, whatever the outcome.
	std::unique_ptr<ConnReq> req(impl(*req_ptr));
	*req_ptr = nullptr;
	if (!conn_ptr || (pdata && (!pdata->ptr || pdata->len == 0)))
		return RPMA_E_INVAL;
	const int ret = create(conn_ptr, [&] { return req->connect(pdata); });
	// a request that failed is rejected and freed now, keeping the
	// provider's errno of the failure
	const int err = errno;
	req.reset();
	errno = err;
	return ret;
}

RPMA_EXPORT int rpma_conn_req_recv(rpma_conn_req *req, rpma_mr_local *dst, size_t offset,
				   size_t len, const void *op_context)
{
	if (!req || !dst || !impl(dst)->holds(offset, len))
		return RPMA_E_INVAL;
	return impl(req)->recv(*impl(dst), offset, len, op_context);
}

RPMA_EXPORT int rpma_conn_req_get_private_data(const rpma_conn_req *req,
					       rpma_conn_private_data *pdata)
{
	if (!req || !pdata)
		return RPMA_E_INVAL;
	*pdata = impl(req)->private_data();
	return 0;
}
