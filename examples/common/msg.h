/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two-sided messaging over one connection: one registered buffer with a
 * receive slot and a send slot, and request/answer loops built on it.
 */

#ifndef RPMA_EXAMPLES_COMMON_MSG_H
#define RPMA_EXAMPLES_COMMON_MSG_H

#include <stdbool.h>
#include <stddef.h>

#include <librpma.h>

/* the largest message either side sends */
#define EX_MSG_SIZE 512

struct ex_msgs {
	struct rpma_mr_local *mr;
	unsigned char *buf; /* the receive slot, then the send slot */
};

#define EX_MSG_RECV(m) ((void *)(m)->buf)
#define EX_MSG_SEND(m) ((void *)((m)->buf + EX_MSG_SIZE))

int ex_msgs_new(struct rpma_peer *peer, struct ex_msgs *m);
/* 0, or -1 if deregistering failed */
int ex_msgs_delete(struct ex_msgs *m);

/* posts the receive slot before the connection exists, so no message is lost */
int ex_msgs_prepost(struct rpma_conn_req *req, struct ex_msgs *m);

/*
 * Collects completions until the awaited send and/or receive have both
 * completed, in whichever order they come; the receive's completion goes
 * to *recv_wc. Any failed or unexpected completion is an error, and so is
 * a receive completing on the main CQ of a connection that has an RCQ.
 */
int ex_await(
	struct rpma_conn *conn, bool send, bool recv, struct ibv_wc *recv_wc);

/* sends len bytes and waits for the answer, which lands in the receive slot */
int ex_msg_exchange(struct rpma_conn *conn, struct ex_msgs *m, size_t len,
	struct ibv_wc *recv_wc);

/* sends len bytes that get no answer */
int ex_msg_send(struct rpma_conn *conn, struct ex_msgs *m, size_t len);

/*
 * Handles a received message of len bytes: writes the answer to reply (at
 * most EX_MSG_SIZE bytes) and returns its length, or returns 0 to stop
 * answering, or -1 on error.
 */
typedef int ex_msg_handler(const void *msg, size_t len, void *reply, void *arg);

/*
 * Answers messages with handler until it says stop. The first receive must
 * already be posted (see ex_msgs_prepost).
 */
int ex_msg_serve(struct rpma_conn *conn, struct ex_msgs *m,
	ex_msg_handler *handler, void *arg);

#endif /* RPMA_EXAMPLES_COMMON_MSG_H */
