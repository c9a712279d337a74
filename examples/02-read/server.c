// SPDX-License-Identifier: BSD-3-Clause
/*
 * 02-read, server: exposes a DRAM region holding a known pattern for the
 * client to read, and waits until the client has left.
 *
 * usage: server <addr> <port>
 */

#include <stdlib.h>

#include "common/conn.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/mr.h"
#include "common/pattern.h"
#include "layout.h"

static int
serve(struct ex_server *srv, void *arg)
{
	struct ex_mem *mem = arg;
	struct rpma_mr_local *mr = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	unsigned char desc[EX_MR_DESC_SIZE];

	ex_pattern_fill(mem->ptr, DATA_SIZE, DATA_SEED);
	if (ex_mr_reg(srv->peer, mem->ptr, DATA_SIZE, RPMA_MR_USAGE_READ_SRC,
		    &mr))
		return -1;
	int result = -1;
	if (ex_mr_descriptor(mr, desc) ||
		ex_next_conn_req(srv->ep, NULL, &req) ||
		ex_establish(&req, desc, sizeof(desc), &conn))
		goto out;
	printf("client connected, %d bytes exposed\n", DATA_SIZE);
	result = ex_server_close(&conn);
	if (!result)
		printf("client disconnected\n");
out:
	if (ex_mr_dereg(&mr))
		result = -1;
	return result;
}

int
main(int argc, char *argv[])
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s <addr> <port>\n", argv[0]);
		return EXIT_FAILURE;
	}
	struct ex_mem mem;
	if (ex_mem_open(NULL, DATA_SIZE, &mem))
		return EXIT_FAILURE;
	int result = ex_server_run(argv[1], argv[2], serve, &mem);
	ex_mem_close(&mem);
	return result;
}
