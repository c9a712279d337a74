// SPDX-License-Identifier: BSD-3-Clause

#include "cq.h"
#include "err.h"
#include "wait.h"

/* polls one completion: 1 got one, 0 none yet, -1 error */
static int
poll_one(struct rpma_cq *cq, struct ibv_wc *wc)
{
	int ret = rpma_cq_get_wc(cq, 1, wc, NULL);
	if (ret == 0)
		return 1;
	if (ret == RPMA_E_NO_COMPLETION)
		return 0;
	EX_ERR("rpma_cq_get_wc", ret);
	return -1;
}

/*
 * The CQ is armed, so polling first and waiting only when it is empty never
 * misses a completion: one that lands after the poll still raises an event.
 */
int
ex_cq_next_wc(struct rpma_cq *cq, struct ibv_wc *wc)
{
	int fd;
	int ret = rpma_cq_get_fd(cq, &fd);
	if (ret) {
		EX_ERR("rpma_cq_get_fd", ret);
		return -1;
	}
	int64_t deadline = ex_deadline();
	for (;;) {
		int got = poll_one(cq, wc);
		if (got)
			return got > 0 ? 0 : -1;
		if (ex_wait_fd(fd, deadline, "a completion"))
			return -1;
		ret = rpma_cq_wait(cq);
		if (ret) {
			EX_ERR("rpma_cq_wait", ret);
			return -1;
		}
	}
}

/* the opcode of a native flush completion (IBV_WC_FLUSH in rdma-core 45+) */
#define WC_FLUSH 8
/* the opcode of a native atomic write completion */
#define WC_ATOMIC_WRITE 9

/* checks that wc succeeded with opcode a or b */
static int
check_wc(const struct ibv_wc *wc, int a, int b)
{
	if (wc->status != IBV_WC_SUCCESS) {
		EX_FAIL("completion failed: %s", ibv_wc_status_str(wc->status));
		return -1;
	}
	if ((int)wc->opcode != a && (int)wc->opcode != b) {
		EX_FAIL("unexpected completion opcode %d (expected %d)",
			(int)wc->opcode, a);
		return -1;
	}
	return 0;
}

int
ex_wc_check(const struct ibv_wc *wc, enum ibv_wc_opcode opcode)
{
	return check_wc(wc, opcode, opcode);
}

int
ex_wc_check_flush(const struct ibv_wc *wc)
{
	return check_wc(wc, IBV_WC_RDMA_READ, WC_FLUSH);
}

int
ex_wc_check_atomic_write(const struct ibv_wc *wc)
{
	return check_wc(wc, IBV_WC_RDMA_WRITE, WC_ATOMIC_WRITE);
}

int
ex_cq_expect(struct rpma_cq *cq, enum ibv_wc_opcode opcode, struct ibv_wc *wc)
{
	if (ex_cq_next_wc(cq, wc))
		return -1;
	return ex_wc_check(wc, opcode);
}

int
ex_conn_cq(const struct rpma_conn *conn, struct rpma_cq **cq_ptr)
{
	int ret = rpma_conn_get_cq(conn, cq_ptr);
	if (ret) {
		EX_ERR("rpma_conn_get_cq", ret);
		return -1;
	}
	return 0;
}

/* the queues of conn and how to wait for them */
struct conn_queues {
	struct rpma_cq *cq;
	struct rpma_cq *rcq; /* NULL if receives complete on cq */
	int fds[2];
	int nfds;
	bool shared; /* one channel for both: wait with rpma_conn_wait */
};

static int
conn_queues(const struct rpma_conn *conn, struct conn_queues *q)
{
	int ret = rpma_conn_get_cq(conn, &q->cq);
	if (!ret)
		ret = rpma_conn_get_rcq(conn, &q->rcq);
	if (ret) {
		EX_ERR("getting the connection's queues", ret);
		return -1;
	}
	ret = rpma_conn_get_compl_fd(conn, &q->fds[0]);
	q->shared = ret == 0;
	q->nfds = 1;
	if (ret == RPMA_E_NOT_SHARED_CHNL) {
		ret = rpma_cq_get_fd(q->cq, &q->fds[0]);
		if (!ret && q->rcq) {
			ret = rpma_cq_get_fd(q->rcq, &q->fds[1]);
			q->nfds = 2;
		}
	}
	if (ret) {
		EX_ERR("getting the completion channel", ret);
		return -1;
	}
	return 0;
}

/* acks and re-arms what woke up; fired has bit i set for each ready fds[i] */
static int
rearm(struct rpma_conn *conn, const struct conn_queues *q, uint32_t fired)
{
	if (q->shared) {
		struct rpma_cq *cq = NULL;
		int ret = rpma_conn_wait(conn, 0, &cq, NULL);
		if (ret) {
			EX_ERR("rpma_conn_wait", ret);
			return -1;
		}
		return 0;
	}
	struct rpma_cq *cqs[2] = {q->cq, q->rcq};
	for (int i = 0; i < q->nfds; i++) {
		if (!(fired & (1u << i)))
			continue;
		int ret = rpma_cq_wait(cqs[i]);
		if (ret) {
			EX_ERR("rpma_cq_wait", ret);
			return -1;
		}
	}
	return 0;
}

/*
 * Both queues are polled after every wake-up because a wait re-arms only
 * the queue that fired: a completion is never left on a disarmed queue.
 */
int
ex_conn_next_wc(struct rpma_conn *conn, struct ibv_wc *wc, bool *is_rcq)
{
	struct conn_queues q;
	if (conn_queues(conn, &q))
		return -1;
	int64_t deadline = ex_deadline();
	for (;;) {
		int got = poll_one(q.cq, wc);
		*is_rcq = false;
		if (!got && q.rcq) {
			got = poll_one(q.rcq, wc);
			*is_rcq = true;
		}
		if (got)
			return got > 0 ? 0 : -1;
		uint32_t fired = ex_wait_fds(
			q.fds, q.nfds, deadline, "a completion");
		if (!fired || rearm(conn, &q, fired))
			return -1;
	}
}
