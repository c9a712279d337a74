// SPDX-License-Identifier: BSD-3-Clause

#include <stdlib.h>

#include "conn.h"
#include "err.h"
#include "wait.h"

int
ex_peer_new(const char *addr, enum rpma_util_ibv_context_type type,
	struct rpma_peer **peer_ptr)
{
	struct ibv_context *ctx = NULL;
	int ret = rpma_utils_get_ibv_context(addr, type, &ctx);
	if (ret) {
		EX_ERR("rpma_utils_get_ibv_context", ret);
		return -1;
	}
	ret = rpma_peer_new(ctx, peer_ptr);
	if (ret) {
		EX_ERR("rpma_peer_new", ret);
		return -1;
	}
	return 0;
}

int
ex_peer_delete(struct rpma_peer **peer_ptr)
{
	int ret = rpma_peer_delete(peer_ptr);
	if (ret) {
		EX_ERR("rpma_peer_delete", ret);
		return -1;
	}
	return 0;
}

static int
server_start(const char *addr, const char *port, struct ex_server *srv)
{
	*srv = (struct ex_server){NULL, NULL};
	if (ex_peer_new(addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &srv->peer))
		return -1;
	int ret = rpma_ep_listen(srv->peer, addr, port, &srv->ep);
	if (ret) {
		EX_ERR("rpma_ep_listen", ret);
		(void)ex_peer_delete(&srv->peer);
		return -1;
	}
	return 0;
}

static int
server_stop(struct ex_server *srv)
{
	int result = 0;
	int ret = rpma_ep_shutdown(&srv->ep);
	if (ret) {
		EX_ERR("rpma_ep_shutdown", ret);
		result = -1;
	}
	if (ex_peer_delete(&srv->peer))
		result = -1;
	return result;
}

int
ex_server_run(const char *addr, const char *port, ex_serve_fn *fn, void *arg)
{
	struct ex_server srv;
	if (server_start(addr, port, &srv))
		return EXIT_FAILURE;
	int result = fn(&srv, arg);
	if (server_stop(&srv))
		result = -1;
	return result ? EXIT_FAILURE : EXIT_SUCCESS;
}

int
ex_next_event(struct rpma_conn *conn, enum rpma_conn_event *event)
{
	int fd;
	int ret = rpma_conn_get_event_fd(conn, &fd);
	if (ret) {
		EX_ERR("rpma_conn_get_event_fd", ret);
		return -1;
	}
	if (ex_wait_fd(fd, ex_deadline(), "a connection event"))
		return -1;
	ret = rpma_conn_next_event(conn, event);
	if (ret) {
		EX_ERR("rpma_conn_next_event", ret);
		return -1;
	}
	return 0;
}

static int
expect_event(struct rpma_conn *conn, enum rpma_conn_event expected)
{
	enum rpma_conn_event event = RPMA_CONN_UNDEFINED;
	if (ex_next_event(conn, &event))
		return -1;
	if (event != expected) {
		EX_FAIL("expected \"%s\" but got \"%s\"",
			rpma_utils_conn_event_2str(expected),
			rpma_utils_conn_event_2str(event));
		return -1;
	}
	return 0;
}

int
ex_next_conn_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
	struct rpma_conn_req **req_ptr)
{
	int fd;
	int ret = rpma_ep_get_fd(ep, &fd);
	if (ret) {
		EX_ERR("rpma_ep_get_fd", ret);
		return -1;
	}
	if (ex_wait_fd(fd, ex_deadline(), "a connection request"))
		return -1;
	ret = rpma_ep_next_conn_req(ep, cfg, req_ptr);
	if (ret) {
		EX_ERR("rpma_ep_next_conn_req", ret);
		return -1;
	}
	return 0;
}

int
ex_establish(struct rpma_conn_req **req_ptr, const void *pdata, size_t len,
	struct rpma_conn **conn_ptr)
{
	struct rpma_conn_private_data pd = {(void *)pdata, (uint8_t)len};
	int ret = rpma_conn_req_connect(req_ptr, len ? &pd : NULL, conn_ptr);
	if (ret) {
		EX_ERR("rpma_conn_req_connect", ret);
		/* the request is consumed, except when it was not there */
		rpma_conn_req_delete(req_ptr);
		return -1;
	}
	if (expect_event(*conn_ptr, RPMA_CONN_ESTABLISHED)) {
		ex_conn_abort(conn_ptr);
		return -1;
	}
	return 0;
}

int
ex_client_connect(struct rpma_peer *peer, const char *addr, const char *port,
	const struct rpma_conn_cfg *cfg, const void *pdata, size_t len,
	struct rpma_conn **conn_ptr)
{
	struct rpma_conn_req *req = NULL;
	int ret = rpma_conn_req_new(peer, addr, port, cfg, &req);
	if (ret) {
		EX_ERR("rpma_conn_req_new", ret);
		return -1;
	}
	return ex_establish(&req, pdata, len, conn_ptr);
}

int
ex_private_data(const struct rpma_conn *conn, size_t need, void **ptr)
{
	struct rpma_conn_private_data pd = {NULL, 0};
	int ret = rpma_conn_get_private_data(conn, &pd);
	if (ret) {
		EX_ERR("rpma_conn_get_private_data", ret);
		return -1;
	}
	if (pd.ptr == NULL || pd.len < need) {
		EX_FAIL("private data too short: %u < %zu bytes",
			(unsigned)pd.len, need);
		return -1;
	}
	*ptr = pd.ptr;
	return 0;
}

/* deletes the connection; returns -1 if that or an earlier step failed */
static int
conn_delete(struct rpma_conn **conn_ptr, int result)
{
	int ret = rpma_conn_delete(conn_ptr);
	if (ret) {
		EX_ERR("rpma_conn_delete", ret);
		return -1;
	}
	return result;
}

int
ex_client_close(struct rpma_conn **conn_ptr)
{
	int ret = rpma_conn_disconnect(*conn_ptr);
	if (ret) {
		EX_ERR("rpma_conn_disconnect", ret);
		return conn_delete(conn_ptr, -1);
	}
	return conn_delete(conn_ptr, expect_event(*conn_ptr, RPMA_CONN_CLOSED));
}

int
ex_server_close(struct rpma_conn **conn_ptr)
{
	int result = expect_event(*conn_ptr, RPMA_CONN_CLOSED);
	int ret = rpma_conn_disconnect(*conn_ptr);
	if (ret) {
		EX_ERR("rpma_conn_disconnect", ret);
		result = -1;
	}
	return conn_delete(conn_ptr, result);
}

void
ex_conn_abort(struct rpma_conn **conn_ptr)
{
	(void)rpma_conn_delete(conn_ptr);
}
