// SPDX-License-Identifier: BSD-3-Clause
/*
 * 05-flush-to-persistent, server: exposes persistent memory (a file mapped
 * with libpmem2) or DRAM, tells the client whether it may flush straight to
 * persistence, and checks what the client wrote once it has left.
 *
 * usage: server <addr> <port> [<pmem-path>]
 */

#include <stdlib.h>
#include <string.h>

#include "common/apm.h"
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
	struct ex_apm_pdata pdata;

	/* left-overs of an earlier run must not pass for the client's data */
	memset(mem->ptr, 0, DATA_SIZE);
	ex_mem_persist(mem, 0, DATA_SIZE);

	if (ex_mr_reg(srv->peer, mem->ptr, DATA_SIZE,
		    RPMA_MR_USAGE_WRITE_DST | ex_mem_flush_usage(mem), &mr))
		return -1;
	int result = -1;
	if (ex_apm_pdata_make(mr, mem->is_pmem, &pdata))
		goto out;
	if (ex_next_conn_req(srv->ep, NULL, &req) ||
		ex_establish(&req, &pdata, sizeof(pdata), &conn))
		goto out;
	printf("client connected; memory is %s\n",
		mem->is_pmem ? "persistent" : "not persistent");
	if (ex_server_close(&conn))
		goto out;
	if (ex_pattern_check(mem->ptr, DATA_SIZE, DATA_SEED))
		goto out;
	printf("the client's %d bytes arrived intact\n", DATA_SIZE);
	result = 0;
out:
	if (ex_mr_dereg(&mr))
		result = -1;
	return result;
}

int
main(int argc, char *argv[])
{
	return ex_mem_server_main(argc, argv, DATA_SIZE, serve);
}
