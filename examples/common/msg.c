// SPDX-License-Identifier: BSD-3-Clause

#include <stdlib.h>

#include "cq.h"
#include "err.h"
#include "mr.h"
#include "msg.h"

int
ex_msgs_new(struct rpma_peer *peer, struct ex_msgs *m)
{
	m->mr = NULL;
	m->buf = calloc(2, EX_MSG_SIZE);
	if (m->buf == NULL) {
		EX_FAIL("out of memory for message buffers");
		return -1;
	}
	if (ex_mr_reg(peer, m->buf, 2 * EX_MSG_SIZE,
		    RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &m->mr)) {
		free(m->buf);
		m->buf = NULL;
		return -1;
	}
	return 0;
}

int
ex_msgs_delete(struct ex_msgs *m)
{
	int result = ex_mr_dereg(&m->mr);
	free(m->buf);
	m->buf = NULL;
	return result;
}

int
ex_msgs_prepost(struct rpma_conn_req *req, struct ex_msgs *m)
{
	int ret = rpma_conn_req_recv(req, m->mr, 0, EX_MSG_SIZE, NULL);
	if (ret) {
		EX_ERR("rpma_conn_req_recv", ret);
		return -1;
	}
	return 0;
}

static int
msgs_recv(struct rpma_conn *conn, struct ex_msgs *m)
{
	int ret = rpma_recv(conn, m->mr, 0, EX_MSG_SIZE, NULL);
	if (ret) {
		EX_ERR("rpma_recv", ret);
		return -1;
	}
	return 0;
}

static int
msgs_send(struct rpma_conn *conn, struct ex_msgs *m, size_t len)
{
	int ret = rpma_send(
		conn, m->mr, EX_MSG_SIZE, len, RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		EX_ERR("rpma_send", ret);
		return -1;
	}
	return 0;
}

/* true if the connection sends receive completions to an RCQ */
static int
has_rcq(const struct rpma_conn *conn, bool *rcq_present)
{
	struct rpma_cq *rcq = NULL;
	int ret = rpma_conn_get_rcq(conn, &rcq);
	if (ret) {
		EX_ERR("rpma_conn_get_rcq", ret);
		return -1;
	}
	*rcq_present = rcq != NULL;
	return 0;
}

int
ex_await(struct rpma_conn *conn, bool send, bool recv, struct ibv_wc *recv_wc)
{
	bool rcq_present;
	if (has_rcq(conn, &rcq_present))
		return -1;
	while (send || recv) {
		struct ibv_wc wc;
		bool is_rcq;
		if (ex_conn_next_wc(conn, &wc, &is_rcq))
			return -1;
		if (send && wc.opcode == IBV_WC_SEND) {
			if (ex_wc_check(&wc, IBV_WC_SEND))
				return -1;
			send = false;
		} else if (recv && (wc.opcode & IBV_WC_RECV)) {
			/* both kinds of receive completion have this bit */
			if (ex_wc_check(&wc, wc.opcode))
				return -1;
			if (is_rcq != rcq_present) {
				EX_FAIL("a receive completed on the %s",
					is_rcq ? "RCQ" : "main CQ");
				return -1;
			}
			*recv_wc = wc;
			recv = false;
		} else {
			/* a failed WR may have any opcode: say why */
			(void)ex_wc_check(&wc, IBV_WC_SEND);
			EX_FAIL("unexpected completion");
			return -1;
		}
	}
	return 0;
}

int
ex_msg_exchange(struct rpma_conn *conn, struct ex_msgs *m, size_t len,
	struct ibv_wc *recv_wc)
{
	/* the answer may come at once: its buffer goes first */
	if (msgs_recv(conn, m) || msgs_send(conn, m, len))
		return -1;
	return ex_await(conn, true, true, recv_wc);
}

int
ex_msg_send(struct rpma_conn *conn, struct ex_msgs *m, size_t len)
{
	if (msgs_send(conn, m, len))
		return -1;
	return ex_await(conn, true, false, NULL);
}

int
ex_msg_serve(struct rpma_conn *conn, struct ex_msgs *m, ex_msg_handler *handler,
	void *arg)
{
	struct ibv_wc wc;
	if (ex_await(conn, false, true, &wc))
		return -1;
	for (;;) {
		int len = handler(
			EX_MSG_RECV(m), wc.byte_len, EX_MSG_SEND(m), arg);
		if (len <= 0)
			return len;
		/* the next request may follow the answer at once */
		if (msgs_recv(conn, m) || msgs_send(conn, m, (size_t)len) ||
			ex_await(conn, true, true, &wc))
			return -1;
	}
}
