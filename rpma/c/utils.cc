// SPDX-License-Identifier: BSD-3-Clause
#include "../addr_info.hh"
#include "../conn.hh"
#include "../peer.hh"
#include "api.hh"

using namespace rpma;
using namespace rpma::c;

RPMA_EXPORT int rpma_utils_get_ibv_context(const char *addr, rpma_util_ibv_context_type type,
					   ibv_context **ibv_ctx_ptr)
{
	if (!addr || !ibv_ctx_ptr)
		return RPMA_E_INVAL;
	if (type != RPMA_UTIL_IBV_CONTEXT_LOCAL && type != RPMA_UTIL_IBV_CONTEXT_REMOTE)
		return RPMA_E_INVAL;
	return guarded([&] {
		*ibv_ctx_ptr = device_for_address(addr, type == RPMA_UTIL_IBV_CONTEXT_LOCAL
								? AddressRole::passive
								: AddressRole::active);
		return 0;
	});
}

RPMA_EXPORT int rpma_utils_ibv_context_is_odp_capable(ibv_context *ibv_ctx, int *is_odp_capable)
{
	if (!ibv_ctx || !is_odp_capable)
		return RPMA_E_INVAL;
	*is_odp_capable = 0;
	return guarded([&] {
		*is_odp_capable = is_odp_capable_device(ibv_ctx) ? 1 : 0;
		return 0;
	});
}

RPMA_EXPORT int rpma_utils_ibv_context_is_mw_type2_capable(ibv_context *ibv_ctx, int *is_capable)
{
	if (!ibv_ctx || !is_capable)
		return RPMA_E_INVAL;
	return guarded([&] {
		*is_capable = is_mw_type2_capable_device(ibv_ctx) ? 1 : 0;
		return 0;
	});
}

RPMA_EXPORT const char *rpma_utils_conn_event_2str(rpma_conn_event conn_event)
{
	return conn_event_text(conn_event);
}

RPMA_EXPORT const char *rpma_err_2str(int ret)
{
	return error_text(ret);
}
