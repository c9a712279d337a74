/* SPDX-License-Identifier: BSD-3-Clause */
/* The life of an example client around the part that differs. */

#ifndef RPMA_EXAMPLES_COMMON_CLIENT_H
#define RPMA_EXAMPLES_COMMON_CLIENT_H

#include <stddef.h>

#include <librpma.h>

/* what a client does while connected; 0 when all its checks passed */
typedef int ex_client_fn(
	struct rpma_peer *peer, struct rpma_conn *conn, void *arg);

/*
 * Creates a peer reaching addr, connects to addr:port with cfg (NULL for
 * the defaults) and len bytes of private data, runs fn, then disconnects
 * and cleans up. Returns EXIT_SUCCESS only if every step succeeded.
 */
int ex_client_run(const char *addr, const char *port,
	const struct rpma_conn_cfg *cfg, const void *pdata, size_t len,
	ex_client_fn *fn, void *arg);

#endif /* RPMA_EXAMPLES_COMMON_CLIENT_H */
