/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing remote memory and making the write durable (the APM way). */

#ifndef RPMA_EXAMPLES_COMMON_FLUSH_H
#define RPMA_EXAMPLES_COMMON_FLUSH_H

#include <stdbool.h>
#include <stddef.h>

#include <librpma.h>

/*
 * The strongest flush the remote side allows: PERSISTENT needs both the
 * region's usage bit and the peer's promise of direct writes to PMem.
 */
int ex_flush_type(const struct rpma_mr_remote *dst, bool direct_write,
	enum rpma_flush_type *type);

/*
 * Writes len bytes from src+src_off to dst+dst_off and flushes them with the
 * given type, waiting for the flush to complete. The write itself is not
 * signalled: the flush cannot complete before it.
 */
int ex_write_flush(struct rpma_conn *conn, struct rpma_mr_remote *dst,
	size_t dst_off, const struct rpma_mr_local *src, size_t src_off,
	size_t len, enum rpma_flush_type type);

/* flushes [off, off + len) of dst and waits for the flush to complete */
int ex_flush(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t off,
	size_t len, enum rpma_flush_type type);

#endif /* RPMA_EXAMPLES_COMMON_FLUSH_H */
