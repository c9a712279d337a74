/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection setup and teardown shared by the examples. Every call is
 * bounded in time (see err.h); on failure it prints why and returns -1.
 */

#ifndef RPMA_EXAMPLES_COMMON_CONN_H
#define RPMA_EXAMPLES_COMMON_CONN_H

#include <stddef.h>

#include <librpma.h>

/*
 * A peer on the device that serves addr: servers ask for the LOCAL device
 * owning their address, clients for the REMOTE one reaching the server.
 */
int ex_peer_new(const char *addr, enum rpma_util_ibv_context_type type,
	struct rpma_peer **peer_ptr);

/* deletes the peer; 0, or -1 after printing why it failed */
int ex_peer_delete(struct rpma_peer **peer_ptr);

/* a listening server: its peer and its endpoint */
struct ex_server {
	struct rpma_peer *peer;
	struct rpma_ep *ep;
};

/* what a server does while listening; 0 when all its checks passed */
typedef int ex_serve_fn(struct ex_server *srv, void *arg);

/* starts a server on addr:port, runs fn, stops it; returns an exit status */
int ex_server_run(
	const char *addr, const char *port, ex_serve_fn *fn, void *arg);

/* the next connection event, waited for at most EX_TIMEOUT_MS */
int ex_next_event(struct rpma_conn *conn, enum rpma_conn_event *event);

/* the next incoming connection request on ep */
int ex_next_conn_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
	struct rpma_conn_req **req_ptr);

/*
 * Connects (client) or accepts (server) the request, sending len bytes of
 * private data (none if len is 0), and waits for ESTABLISHED. The request
 * is consumed either way.
 */
int ex_establish(struct rpma_conn_req **req_ptr, const void *pdata, size_t len,
	struct rpma_conn **conn_ptr);

/* a client's whole connection setup: request, connect, ESTABLISHED */
int ex_client_connect(struct rpma_peer *peer, const char *addr,
	const char *port, const struct rpma_conn_cfg *cfg, const void *pdata,
	size_t len, struct rpma_conn **conn_ptr);

/*
 * The peer's private data, which must be at least `need` bytes long. RoCE
 * pads it, so only a lower bound can be checked.
 */
int ex_private_data(const struct rpma_conn *conn, size_t need, void **ptr);

/* the active side's teardown: disconnect, wait for CLOSED, delete */
int ex_client_close(struct rpma_conn **conn_ptr);

/* the passive side's teardown: wait for CLOSED, disconnect, delete */
int ex_server_close(struct rpma_conn **conn_ptr);

/* deletes the connection without the handshake, for error paths */
void ex_conn_abort(struct rpma_conn **conn_ptr);

#endif /* RPMA_EXAMPLES_COMMON_CONN_H */
