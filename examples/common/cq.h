/* SPDX-License-Identifier: BSD-3-Clause */
/* Collecting completions, each wait bounded by EX_TIMEOUT_MS. */

#ifndef RPMA_EXAMPLES_COMMON_CQ_H
#define RPMA_EXAMPLES_COMMON_CQ_H

#include <stdbool.h>

#include <librpma.h>

/* the next completion from cq (a CQ with its own completion channel) */
int ex_cq_next_wc(struct rpma_cq *cq, struct ibv_wc *wc);

/* checks that wc succeeded and is of the expected kind */
int ex_wc_check(const struct ibv_wc *wc, enum ibv_wc_opcode opcode);

/*
 * A flush completes as the RDMA READ that emulates it, or as a native flush
 * (IBV_WC_FLUSH, not named by every rdma-core); either is accepted.
 */
int ex_wc_check_flush(const struct ibv_wc *wc);

/* an atomic write completes as an RDMA WRITE (emulated) or ATOMIC_WRITE */
int ex_wc_check_atomic_write(const struct ibv_wc *wc);

/* the next completion from cq, which must succeed with the given opcode */
int ex_cq_expect(
	struct rpma_cq *cq, enum ibv_wc_opcode opcode, struct ibv_wc *wc);

/* the connection's main CQ */
int ex_conn_cq(const struct rpma_conn *conn, struct rpma_cq **cq_ptr);

/*
 * The next completion of a connection, from its CQ or its RCQ if it has one,
 * on separate completion channels or a shared one; *is_rcq tells which
 * queue it came from.
 */
int ex_conn_next_wc(struct rpma_conn *conn, struct ibv_wc *wc, bool *is_rcq);

#endif /* RPMA_EXAMPLES_COMMON_CQ_H */
