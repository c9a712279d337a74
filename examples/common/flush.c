// SPDX-License-Identifier: BSD-3-Clause

#include "cq.h"
#include "err.h"
#include "flush.h"

int
ex_flush_type(const struct rpma_mr_remote *dst, bool direct_write,
	enum rpma_flush_type *type)
{
	int usage = 0;
	int ret = rpma_mr_remote_get_flush_type(dst, &usage);
	if (ret) {
		EX_ERR("rpma_mr_remote_get_flush_type", ret);
		return -1;
	}
	if (direct_write && (usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)) {
		*type = RPMA_FLUSH_TYPE_PERSISTENT;
	} else if (usage & RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY) {
		*type = RPMA_FLUSH_TYPE_VISIBILITY;
	} else {
		EX_FAIL("the remote region cannot be flushed (usage 0x%x)",
			usage);
		return -1;
	}
	return 0;
}

int
ex_flush(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t off,
	size_t len, enum rpma_flush_type type)
{
	struct rpma_cq *cq = NULL;
	struct ibv_wc wc;
	/* the context identifies the flush's completion */
	static const char flush_ctx;

	if (ex_conn_cq(conn, &cq))
		return -1;
	int ret = rpma_flush(conn, dst, off, len, type,
		RPMA_F_COMPLETION_ALWAYS, &flush_ctx);
	if (ret) {
		EX_ERR("rpma_flush", ret);
		return -1;
	}
	if (ex_cq_next_wc(cq, &wc) || ex_wc_check_flush(&wc))
		return -1;
	if (wc.wr_id != (uintptr_t)&flush_ctx) {
		EX_FAIL("the completion is not the flush's");
		return -1;
	}
	return 0;
}

int
ex_write_flush(struct rpma_conn *conn, struct rpma_mr_remote *dst,
	size_t dst_off, const struct rpma_mr_local *src, size_t src_off,
	size_t len, enum rpma_flush_type type)
{
	int ret = rpma_write(conn, dst, dst_off, src, src_off, len,
		RPMA_F_COMPLETION_ON_ERROR, NULL);
	if (ret) {
		EX_ERR("rpma_write", ret);
		return -1;
	}
	return ex_flush(conn, dst, dst_off, len, type);
}
