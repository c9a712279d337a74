// SPDX-License-Identifier: BSD-3-Clause
/*
 * 07-atomic-write, server: exposes an empty log (in persistent memory if a
 * path is given, else DRAM) for the client to append to, and prints and
 * checks the log once the client has left.
 *
 * usage: server <addr> <port> [<pmem-path>]
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/apm.h"
#include "common/conn.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/mr.h"
#include "log.h"

/* a well-formed, non-empty log: whole words filling exactly `used` bytes */
static int
check_log(const struct ex_mem *mem)
{
	uint64_t used;
	memcpy(&used, (char *)mem->ptr + LOG_USED_OFFSET, sizeof(used));
	const char *entries = (char *)mem->ptr + LOG_ENTRIES_OFFSET;

	if (used == 0 || used > LOG_CAPACITY || entries[used - 1] != '\0') {
		EX_FAIL("the log is malformed (%" PRIu64 " bytes used)", used);
		return -1;
	}
	printf("the log holds %" PRIu64 " bytes:\n", used);
	for (uint64_t off = 0; off < used; off += strlen(entries + off) + 1)
		printf("  %s\n", entries + off);
	return 0;
}

static int
serve(struct ex_server *srv, void *arg)
{
	struct ex_mem *mem = arg;
	struct rpma_mr_local *mr = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct ex_apm_pdata pdata;

	/* every run starts a new log */
	memset(mem->ptr, 0, LOG_SIZE);
	ex_mem_persist(mem, 0, LOG_SIZE);
	if (ex_mr_reg(srv->peer, mem->ptr, LOG_SIZE,
		    RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
			    ex_mem_flush_usage(mem),
		    &mr))
		return -1;
	int result = -1;
	if (ex_apm_pdata_make(mr, mem->is_pmem, &pdata) ||
		ex_next_conn_req(srv->ep, NULL, &req) ||
		ex_establish(&req, &pdata, sizeof(pdata), &conn))
		goto out;
	if (ex_server_close(&conn) == 0)
		result = check_log(mem);
out:
	if (ex_mr_dereg(&mr))
		result = -1;
	return result;
}

int
main(int argc, char *argv[])
{
	return ex_mem_server_main(argc, argv, LOG_SIZE, serve);
}
