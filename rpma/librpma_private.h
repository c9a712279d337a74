/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librpma_private.h -- entry points of librpma.so.0 for this tree's own
 * programs (the fio engines), outside upstream's API: librpma.h declares
 * exactly upstream's 1.3 API and the version node LIBRPMA_1.0 holds exactly
 * its symbols, so these live under a node of their own, LIBRPMA_PRIVATE,
 * which promises nothing to anybody else: they may change or go with any
 * release, and only a program built from the same tree may call them
 * (Debian's fio-engine-librpma depends on the exact librpma0 it was built
 * with). Not installed. docs/persistence.md, "Choosing per peer", says why
 * they exist.
 *
 * Same conventions as librpma.h: 0 or a negative RPMA_E_* code, an
 * out-parameter untouched on failure.
 */
#ifndef RPMA_LIBRPMA_PRIVATE_H
#define RPMA_LIBRPMA_PRIVATE_H

#include <sys/socket.h>

#include "librpma.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The native operations, as a bit set (RPMA_NATIVE_OPS's words). */
#define RPMA_NATIVE_OP_ATOMIC_WRITE (1 << 0)
#define RPMA_NATIVE_OP_FLUSH (1 << 1)
#define RPMA_NATIVE_OP_ALL (RPMA_NATIVE_OP_ATOMIC_WRITE | RPMA_NATIVE_OP_FLUSH)

/*
 * rpma_peer_new() with the native operations the caller's responders
 * execute given here instead of by RPMA_NATIVE_OPS, which is not read:
 * each connection of the peer posts the native verb of an operation in
 * native_ops where the local device has it too, and emulates the others.
 * The choice is the peer's for its life, like the environment's.
 * RPMA_E_INVAL: ibv_ctx or peer_ptr NULL, or a bit of native_ops outside
 * RPMA_NATIVE_OP_ALL; otherwise as rpma_peer_new().
 */
int rpma_peer_new_with_native_ops(struct ibv_context *ibv_ctx, int native_ops,
				  struct rpma_peer **peer_ptr);

/*
 * What the peer's connections use: *native_ops, the operations they post
 * natively; *device_ops, those the local device (and the rdma-core this
 * library was built with) can post natively, asked for or not. An
 * operation in *device_ops but not in *native_ops was not asked for.
 * RPMA_E_INVAL: any argument NULL.
 */
int rpma_peer_get_native_ops(const struct rpma_peer *peer, int *native_ops, int *device_ops);

/*
 * Whom a listening endpoint takes connection requests from: called with
 * the address a request comes from (a struct sockaddr_in or sockaddr_in6)
 * and the arg given with it; nonzero accepts the request, 0 refuses it.
 */
#define RPMA_EP_REFUSED_PER_CALL 16
typedef int (*rpma_ep_peer_filter_fn)(const struct sockaddr *src, void *arg);

/*
 * Sets ep's filter of incoming connection requests (fn NULL: none, every
 * request is taken, as upstream does). rpma_ep_next_conn_req() calls fn,
 * in the caller's thread, for each request it takes, before it makes
 * anything for it: a refused request is rejected and its id destroyed (no
 * queue pair, completion queue or channel is ever made for it), and the
 * call takes the next request. On a blocking fd it waits for one that fn
 * accepts. On a non-blocking fd it returns RPMA_E_NO_EVENT, *req_ptr
 * untouched, when no request is left (requests refused in a call look as
 * if they had never come), and also after RPMA_EP_REFUSED_PER_CALL
 * refusals in one call, the fd then still readable while more wait: a
 * stranger who sends requests without end cannot keep the caller's
 * thread. If acknowledging a refused request's event fails:
 * RPMA_E_PROVIDER and *req_ptr NULL, as for an accepted one. fn must not
 * call ep. Set it from the thread that takes the requests, before it takes
 * them.
 * RPMA_E_INVAL: ep NULL.
 */
int rpma_ep_set_peer_filter(struct rpma_ep *ep, rpma_ep_peer_filter_fn fn, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* RPMA_LIBRPMA_PRIVATE_H */
