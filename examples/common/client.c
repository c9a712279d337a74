// SPDX-License-Identifier: BSD-3-Clause

#include <stdlib.h>

#include "client.h"
#include "conn.h"

int
ex_client_run(const char *addr, const char *port,
	const struct rpma_conn_cfg *cfg, const void *pdata, size_t len,
	ex_client_fn *fn, void *arg)
{
	struct rpma_peer *peer = NULL;
	struct rpma_conn *conn = NULL;
	int result = -1;

	if (ex_peer_new(addr, RPMA_UTIL_IBV_CONTEXT_REMOTE, &peer))
		return EXIT_FAILURE;
	if (ex_client_connect(peer, addr, port, cfg, pdata, len, &conn) == 0) {
		result = fn(peer, conn, arg);
		if (ex_client_close(&conn))
			result = -1;
	}
	if (ex_peer_delete(&peer))
		result = -1;
	return result ? EXIT_FAILURE : EXIT_SUCCESS;
}
