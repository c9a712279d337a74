/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Calls that hand the library an integer where its API has an enum, as C
 * callers may. In C++ a value outside an enum's range is undefined, so the
 * tests reach these cases only through this C file.
 */
#ifndef RPMA_TESTS_UNIT_C_CALLERS_H
#define RPMA_TESTS_UNIT_C_CALLERS_H

#include "librpma.h"

#ifdef __cplusplus
extern "C" {
#endif

int c_utils_get_ibv_context(const char *addr, int type, struct ibv_context **ibv_ctx_ptr);
const char *c_utils_conn_event_2str(int conn_event);
int c_log_set_threshold(int threshold, int level);
int c_log_get_threshold(int threshold, enum rpma_log_level *level);
int c_flush(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset, size_t len,
	    int type, int flags, const void *op_context);

#ifdef __cplusplus
}
#endif

#endif /* RPMA_TESTS_UNIT_C_CALLERS_H */
