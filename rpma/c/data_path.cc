// SPDX-License-Identifier: BSD-3-Clause
// The data path: argument checks, then one work request posted by Conn.
#include "../compiler.hh"
#include "../conn.hh"
#include "../mr.hh"
#include "api.hh"

using namespace rpma;
using namespace rpma::c;

namespace {

// Inlined: a call would cost a third of the check (compiler.hh).
RPMA_INLINE bool valid_transfer(const rpma_mr_local *local, const rpma_mr_remote *remote,
				size_t local_offset, size_t remote_offset, size_t len)
{
	return transfer_fits(impl(local), local_offset, impl(remote), remote_offset, len);
}

bool valid_message(const rpma_mr_local *mr, size_t offset, size_t len)
{
	return message_fits(impl(mr), offset, len);
}

} // namespace

RPMA_EXPORT int rpma_read(rpma_conn *conn, rpma_mr_local *dst, size_t dst_offset,
			  const rpma_mr_remote *src, size_t src_offset, size_t len, int flags,
			  const void *op_context)
{
	if (!conn || flags == 0 || !valid_transfer(dst, src, dst_offset, src_offset, len))
		[[unlikely]]
		return RPMA_E_INVAL;
	return impl(conn)->read(impl(dst), dst_offset, impl(src), src_offset, len, flags,
				op_context);
}

RPMA_EXPORT int rpma_write(rpma_conn *conn, rpma_mr_remote *dst, size_t dst_offset,
			   const rpma_mr_local *src, size_t src_offset, size_t len, int flags,
			   const void *op_context)
{
	if (!conn || flags == 0 || !valid_transfer(src, dst, src_offset, dst_offset, len))
		[[unlikely]]
		return RPMA_E_INVAL;
	return impl(conn)->write(impl(dst), dst_offset, impl(src), src_offset, len, flags,
				 op_context);
}

RPMA_EXPORT int rpma_write_with_imm(rpma_conn *conn, rpma_mr_remote *dst, size_t dst_offset,
				    const rpma_mr_local *src, size_t src_offset, size_t len,
				    int flags, uint32_t imm, const void *op_context)
{
	if (!conn || flags == 0 || !valid_transfer(src, dst, src_offset, dst_offset, len))
		[[unlikely]]
		return RPMA_E_INVAL;
	return impl(conn)->write_with_imm(impl(dst), dst_offset, impl(src), src_offset, len, flags,
					  imm, op_context);
}

RPMA_EXPORT int rpma_atomic_write(rpma_conn *conn, rpma_mr_remote *dst, size_t dst_offset,
				  const char src[8], int flags, const void *op_context)
{
	if (!conn || !dst || !src || flags == 0 || dst_offset % RPMA_ATOMIC_WRITE_ALIGNMENT ||
	    !impl(dst)->holds(dst_offset, RPMA_ATOMIC_WRITE_ALIGNMENT)) [[unlikely]]
		return RPMA_E_INVAL;
	return impl(conn)->atomic_write(*impl(dst), dst_offset, src, flags, op_context);
}

RPMA_EXPORT int rpma_write_atomic(rpma_conn *conn, rpma_mr_remote *dst, size_t dst_offset,
				  const rpma_mr_local *src, size_t src_offset, int flags,
				  const void *op_context)
{
	if (!conn || !dst || !src || flags == 0 || dst_offset % RPMA_ATOMIC_WRITE_ALIGNMENT ||
	    !impl(dst)->holds(dst_offset, RPMA_ATOMIC_WRITE_ALIGNMENT) ||
	    !impl(src)->holds(src_offset, RPMA_ATOMIC_WRITE_ALIGNMENT)) [[unlikely]]
		return RPMA_E_INVAL;
	return impl(conn)->write_atomic(*impl(dst), dst_offset, *impl(src), src_offset, flags,
					op_context);
}

RPMA_EXPORT int rpma_flush(rpma_conn *conn, rpma_mr_remote *dst, size_t dst_offset, size_t len,
			   rpma_flush_type type, int flags, const void *op_context)
{
	if (!conn || !dst || flags == 0) [[unlikely]]
		return RPMA_E_INVAL;
	return impl(conn)->flush(*impl(dst), dst_offset, len, type, flags, op_context);
}

RPMA_EXPORT int rpma_send(rpma_conn *conn, const rpma_mr_local *src, size_t offset, size_t len,
			  int flags, const void *op_context)
{
	if (!conn || flags == 0 || !valid_message(src, offset, len)) [[unlikely]]
		return RPMA_E_INVAL;
	return impl(conn)->send(impl(src), offset, len, flags, op_context);
}

RPMA_EXPORT int rpma_send_with_imm(rpma_conn *conn, const rpma_mr_local *src, size_t offset,
				   size_t len, int flags, uint32_t imm, const void *op_context)
{
	if (!conn || flags == 0 || !valid_message(src, offset, len)) [[unlikely]]
		return RPMA_E_INVAL;
	return impl(conn)->send_with_imm(impl(src), offset, len, flags, imm, op_context);
}

RPMA_EXPORT int rpma_recv(rpma_conn *conn, rpma_mr_local *dst, size_t offset, size_t len,
			  const void *op_context)
{
	if (!conn || !valid_message(dst, offset, len)) [[unlikely]]
		return RPMA_E_INVAL;
	return impl(conn)->recv(impl(dst), offset, len, op_context);
}
