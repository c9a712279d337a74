// SPDX-License-Identifier: BSD-3-Clause
// Type 2 memory windows: the LIBRPMA_EXT_1.0 extension (rpma/mw.hh).
#include "../conn.hh"
#include "../conn_req.hh"
#include "../mr.hh"
#include "../mw.hh"
#include "api.hh"

using namespace rpma;
using namespace rpma::c;

RPMA_EXPORT int rpma_mr_reg_for_windows(rpma_peer *peer, void *ptr, size_t size, int usage,
					rpma_mr_local **mr_ptr)
{
	if (!peer || !ptr || size == 0 || !mr_ptr)
		return RPMA_E_INVAL;
	return create(mr_ptr, [&] {
		return std::make_unique<MrLocal>(*impl(peer), ptr, size, usage,
						 MrLocal::ForWindows{});
	});
}

RPMA_EXPORT int rpma_mw_new(rpma_peer *peer, rpma_mw **mw_ptr)
{
	if (!peer || !mw_ptr)
		return RPMA_E_INVAL;
	return create(mw_ptr, [&] { return std::make_unique<Mw>(*impl(peer)); });
}

RPMA_EXPORT int rpma_mw_delete(rpma_mw **mw_ptr)
{
	return destroy(mw_ptr, [](Mw &mw) {
		if (int err = mw.release())
			return provider_error("ibv_dealloc_mw()", err);
		return 0;
	});
}

RPMA_EXPORT int rpma_mw_bind(rpma_conn *conn, rpma_mw *mw, const rpma_mr_local *mr, size_t offset,
			     size_t len, int usage, int flags, const void *op_context)
{
	if (!conn || !mw || !mr || (flags & ~RPMA_F_COMPLETION_ALWAYS))
		return RPMA_E_INVAL;
	return impl(conn)->bind_mw(*impl(mw), *impl(mr), offset, len, usage, flags, op_context);
}

RPMA_EXPORT int rpma_conn_req_bind_mw(rpma_conn_req *req, rpma_mw *mw, const rpma_mr_local *mr,
				      size_t offset, size_t len, int usage)
{
	if (!req || !mw || !mr)
		return RPMA_E_INVAL;
	return impl(req)->bind_mw(*impl(mw), *impl(mr), offset, len, usage);
}

RPMA_EXPORT int rpma_mw_get_descriptor_size(const rpma_mw *mw, size_t *desc_size)
{
	if (!mw || !desc_size)
		return RPMA_E_INVAL;
	*desc_size = MrLocal::DESCRIPTOR_SIZE;
	return 0;
}

RPMA_EXPORT int rpma_mw_get_descriptor(const rpma_mw *mw, void *desc)
{
	if (!mw || !desc)
		return RPMA_E_INVAL;
	const auto lock = lock_windows();
	if (!impl(mw)->described()) {
		RPMA_LOG_ERROR("the window is not bound: it has no descriptor");
		return RPMA_E_INVAL;
	}
	impl(mw)->descriptor(desc);
	return 0;
}
