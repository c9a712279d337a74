// SPDX-License-Identifier: BSD-3-Clause
/*
 * 01-connection, server: accepts one connection, checks the client's
 * greeting, answers with its own and waits for the client to leave.
 */

#include <stdlib.h>
#include <string.h>

#include "common/conn.h"
#include "common/err.h"
#include "hello.h"

/* checks the greeting that came with the connection request */
static int
check_greeting(const struct rpma_conn_req *req)
{
	struct rpma_conn_private_data pd = {NULL, 0};
	int ret = rpma_conn_req_get_private_data(req, &pd);
	if (ret) {
		EX_ERR("rpma_conn_req_get_private_data", ret);
		return -1;
	}
	if (pd.len < sizeof(HELLO_FROM_CLIENT) ||
		memcmp(pd.ptr, HELLO_FROM_CLIENT, sizeof(HELLO_FROM_CLIENT))) {
		EX_FAIL("unexpected greeting from the client");
		return -1;
	}
	printf("client says: %s\n", (char *)pd.ptr);
	return 0;
}

static int
serve(struct ex_server *srv, void *arg)
{
	(void)arg;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;

	if (ex_next_conn_req(srv->ep, NULL, &req))
		return -1;
	if (check_greeting(req)) {
		/* deleting an incoming request rejects it */
		(void)rpma_conn_req_delete(&req);
		return -1;
	}
	if (ex_establish(
		    &req, HELLO_FROM_SERVER, sizeof(HELLO_FROM_SERVER), &conn))
		return -1;
	printf("connected\n");
	if (ex_server_close(&conn))
		return -1;
	printf("disconnected\n");
	return 0;
}

int
main(int argc, char *argv[])
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s <addr> <port>\n", argv[0]);
		return EXIT_FAILURE;
	}
	return ex_server_run(argv[1], argv[2], serve, NULL);
}
