// SPDX-License-Identifier: BSD-3-Clause
/*
 * 13-srq, server: plays the ping-pong of example 08 with <clients> clients
 * at once, in one thread, with all their receives posted to one shared
 * receive queue (SRQ). Receive completions of every connection arrive on
 * the SRQ's own completion queue and are told apart by their QP number.
 * The server ends once every client has said it is done and has left.
 *
 * usage: server <addr> <port> <clients>
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/args.h"
#include "common/conn.h"
#include "common/cq.h"
#include "common/err.h"
#include "common/mr.h"
#include "common/msg.h"
#include "common/pingpong.h"
#include "common/wait.h"

#define MAX_CLIENTS 8
/* a client has one message in flight; a spare per client covers re-posting */
#define RECVS_PER_CLIENT 2

struct client {
	struct rpma_conn *conn;
	struct rpma_cq *cq; /* its sends complete here */
	uint32_t qp_num;
	uint64_t rounds;
	bool done;
};

struct server {
	struct ex_server *srv;
	struct rpma_srq *srq;
	struct rpma_cq *rcq; /* the SRQ's: every receive completes here */
	struct rpma_conn_cfg *cfg;
	struct rpma_mr_local *mr;
	/* the receive slots, then one send slot per client */
	unsigned char *buf;
	int nrecv;
	struct client clients[MAX_CLIENTS];
	int expected, accepted, left;
};

static void *
slot(struct server *s, int i)
{
	return s->buf + (size_t)i * EX_MSG_SIZE;
}

static int
post_recv(struct server *s, int i)
{
	int ret = rpma_srq_recv(s->srq, s->mr, (size_t)i * EX_MSG_SIZE,
		EX_MSG_SIZE, (void *)(uintptr_t)i);
	if (ret) {
		EX_ERR("rpma_srq_recv", ret);
		return -1;
	}
	return 0;
}

static struct client *
client_by_qp(struct server *s, uint32_t qp_num)
{
	for (int i = 0; i < s->accepted; i++)
		if (s->clients[i].conn && s->clients[i].qp_num == qp_num)
			return &s->clients[i];
	return NULL;
}

static int
accept_client(struct server *s)
{
	struct client *c = &s->clients[s->accepted];
	struct rpma_conn_req *req = NULL;

	if (ex_next_conn_req(s->srv->ep, s->cfg, &req) ||
		ex_establish(&req, NULL, 0, &c->conn))
		return -1;
	s->accepted++;
	int ret = rpma_conn_get_qp_num(c->conn, &c->qp_num);
	if (ret) {
		EX_ERR("rpma_conn_get_qp_num", ret);
		return -1;
	}
	if (ex_conn_cq(c->conn, &c->cq))
		return -1;
	printf("client %d connected\n", s->accepted);
	return 0;
}

/* answers one received message on the connection it came from */
static int
on_recv(struct server *s, const struct ibv_wc *wc)
{
	if (ex_wc_check(wc, IBV_WC_RECV))
		return -1;
	struct client *c = client_by_qp(s, wc->qp_num);
	int i = (int)wc->wr_id;
	if (c == NULL || i < 0 || i >= s->nrecv) {
		EX_FAIL("a message from an unknown connection");
		return -1;
	}
	size_t reply_off = (size_t)(s->nrecv + (c - s->clients)) * EX_MSG_SIZE;
	int len = ex_pingpong_answer(
		slot(s, i), wc->byte_len, s->buf + reply_off, &c->rounds);
	/* the slot's content is consumed: it can take the next message */
	if (len < 0 || post_recv(s, i))
		return -1;
	if (len == 0) {
		c->done = true;
		return 0;
	}
	int ret = rpma_send(c->conn, s->mr, reply_off, (size_t)len,
		RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		EX_ERR("rpma_send", ret);
		return -1;
	}
	return 0;
}

/* handles every completion cq holds; each must be a successful `opcode` */
static int
drain(struct server *s, struct rpma_cq *cq, enum ibv_wc_opcode opcode)
{
	struct ibv_wc wc;
	int ret;
	while ((ret = rpma_cq_get_wc(cq, 1, &wc, NULL)) == 0) {
		if (opcode == IBV_WC_RECV ? on_recv(s, &wc)
					  : ex_wc_check(&wc, opcode))
			return -1;
	}
	if (ret != RPMA_E_NO_COMPLETION) {
		EX_ERR("rpma_cq_get_wc", ret);
		return -1;
	}
	return 0;
}

/* an fd fired: acknowledge the event (re-arming the CQ), then drain it */
static int
on_cq(struct server *s, struct rpma_cq *cq, enum ibv_wc_opcode opcode)
{
	int ret = rpma_cq_wait(cq);
	if (ret) {
		EX_ERR("rpma_cq_wait", ret);
		return -1;
	}
	return drain(s, cq, opcode);
}

static int
on_event(struct server *s, struct client *c)
{
	enum rpma_conn_event event;
	if (ex_next_event(c->conn, &event))
		return -1;
	if (event != RPMA_CONN_CLOSED) {
		EX_FAIL("unexpected event: %s",
			rpma_utils_conn_event_2str(event));
		return -1;
	}
	/* its last message may still wait in the shared queue */
	if (drain(s, s->rcq, IBV_WC_RECV))
		return -1;
	int ret = rpma_conn_disconnect(c->conn);
	if (ret)
		EX_ERR("rpma_conn_disconnect", ret);
	int del = rpma_conn_delete(&c->conn);
	if (del)
		EX_ERR("rpma_conn_delete", del);
	if (ret || del)
		return -1;
	s->left++;
	printf("a client left after %" PRIu64 " rounds\n", c->rounds);
	if (!c->done) {
		EX_FAIL("the client left before it was done");
		return -1;
	}
	return 0;
}

enum source { SRC_RCQ, SRC_EP, SRC_EVENT, SRC_SEND_CQ };

/* waits for anything to happen and handles it */
static int
step(struct server *s)
{
	int fds[2 + 2 * MAX_CLIENTS], n = 0;
	enum source kind[2 + 2 * MAX_CLIENTS];
	struct client *owner[2 + 2 * MAX_CLIENTS];
	int ret;

	kind[n] = SRC_RCQ;
	ret = rpma_cq_get_fd(s->rcq, &fds[n++]);
	if (!ret && s->accepted < s->expected) {
		kind[n] = SRC_EP;
		ret = rpma_ep_get_fd(s->srv->ep, &fds[n++]);
	}
	for (int i = 0; !ret && i < s->accepted; i++) {
		struct client *c = &s->clients[i];
		if (c->conn == NULL)
			continue;
		kind[n] = SRC_EVENT;
		owner[n] = c;
		ret = rpma_conn_get_event_fd(c->conn, &fds[n++]);
		kind[n] = SRC_SEND_CQ;
		owner[n] = c;
		if (!ret)
			ret = rpma_cq_get_fd(c->cq, &fds[n++]);
	}
	if (ret) {
		EX_ERR("getting the fds to wait on", ret);
		return -1;
	}
	uint32_t fired = ex_wait_fds(fds, n, ex_deadline(), "the clients");
	if (!fired)
		return -1;
	for (int i = 0; i < n; i++) {
		if (!(fired & (1u << i)))
			continue;
		switch (kind[i]) {
		case SRC_RCQ:
			ret = on_cq(s, s->rcq, IBV_WC_RECV);
			break;
		case SRC_EP:
			ret = accept_client(s);
			break;
		case SRC_EVENT:
			ret = on_event(s, owner[i]);
			break;
		case SRC_SEND_CQ:
			/* the client may have just left */
			ret = owner[i]->conn
				      ? on_cq(s, owner[i]->cq, IBV_WC_SEND)
				      : 0;
			break;
		}
		if (ret)
			return -1;
	}
	return 0;
}

/* the SRQ with its own receive CQ, and a configuration using it */
static int
srq_setup(struct server *s)
{
	struct rpma_srq_cfg *scfg = NULL;
	uint32_t depth = (uint32_t)s->nrecv;
	int ret = rpma_srq_cfg_new(&scfg);
	if (ret) {
		EX_ERR("rpma_srq_cfg_new", ret);
		return -1;
	}
	if ((ret = rpma_srq_cfg_set_rq_size(scfg, depth)))
		EX_ERR("rpma_srq_cfg_set_rq_size", ret);
	else if ((ret = rpma_srq_cfg_set_rcq_size(scfg, depth)))
		EX_ERR("rpma_srq_cfg_set_rcq_size", ret);
	else if ((ret = rpma_srq_new(s->srv->peer, scfg, &s->srq)))
		EX_ERR("rpma_srq_new", ret);
	else if ((ret = rpma_srq_get_rcq(s->srq, &s->rcq)))
		EX_ERR("rpma_srq_get_rcq", ret);
	else if ((ret = rpma_conn_cfg_new(&s->cfg)))
		EX_ERR("rpma_conn_cfg_new", ret);
	else if ((ret = rpma_conn_cfg_set_srq(s->cfg, s->srq)))
		EX_ERR("rpma_conn_cfg_set_srq", ret);
	(void)rpma_srq_cfg_delete(&scfg);
	return ret ? -1 : 0;
}

static int
serve(struct ex_server *srv, void *arg)
{
	struct server s = {.srv = srv, .expected = *(int *)arg};
	s.nrecv = RECVS_PER_CLIENT * s.expected;
	size_t size = (size_t)(s.nrecv + s.expected) * EX_MSG_SIZE;
	int result = -1;

	s.buf = calloc(1, size);
	if (s.buf == NULL) {
		EX_FAIL("out of memory");
		return -1;
	}
	if (srq_setup(&s) ||
		ex_mr_reg(srv->peer, s.buf, size,
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &s.mr))
		goto out;
	/* every receive is posted before any client can send */
	for (int i = 0; i < s.nrecv; i++)
		if (post_recv(&s, i))
			goto out;
	while (s.left < s.expected)
		if (step(&s))
			goto out;
	result = 0;
out:
	for (int i = 0; i < s.accepted; i++)
		ex_conn_abort(&s.clients[i].conn);
	/* the queue pairs using the SRQ are gone: it can go too */
	int ret = rpma_srq_delete(&s.srq);
	if (ret) {
		EX_ERR("rpma_srq_delete", ret);
		result = -1;
	}
	if (ex_mr_dereg(&s.mr))
		result = -1;
	(void)rpma_conn_cfg_delete(&s.cfg);
	free(s.buf);
	return result;
}

int
main(int argc, char *argv[])
{
	uint64_t clients;
	if (argc != 4) {
		fprintf(stderr, "usage: %s <addr> <port> <clients>\n", argv[0]);
		return EXIT_FAILURE;
	}
	if (ex_parse_uint(argv[3], MAX_CLIENTS, &clients) || clients == 0) {
		fprintf(stderr, "from 1 to %d clients\n", MAX_CLIENTS);
		return EXIT_FAILURE;
	}
	int expected = (int)clients;
	return ex_server_run(argv[1], argv[2], serve, &expected);
}
