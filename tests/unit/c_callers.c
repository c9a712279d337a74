/* SPDX-License-Identifier: BSD-3-Clause */
#include "c_callers.h"

int c_utils_get_ibv_context(const char *addr, int type, struct ibv_context **ibv_ctx_ptr)
{
	return rpma_utils_get_ibv_context(addr, type, ibv_ctx_ptr);
}

const char *c_utils_conn_event_2str(int conn_event)
{
	return rpma_utils_conn_event_2str(conn_event);
}

int c_log_set_threshold(int threshold, int level)
{
	return rpma_log_set_threshold(threshold, level);
}

int c_log_get_threshold(int threshold, enum rpma_log_level *level)
{
	return rpma_log_get_threshold(threshold, level);
}

int c_flush(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset, size_t len,
	    int type, int flags, const void *op_context)
{
	return rpma_flush(conn, dst, dst_offset, len, type, flags, op_context);
}
