// SPDX-License-Identifier: BSD-3-Clause
/*
 * 05-flush-to-persistent, client: writes a pattern into the server's
 * memory and flushes it, to persistence if the server says its memory and
 * platform allow that, else to global visibility.
 *
 * usage: client <addr> <port>
 */

#include <stdlib.h>

#include "common/apm.h"
#include "common/client.h"
#include "common/conn.h"
#include "common/err.h"
#include "common/flush.h"
#include "common/mem.h"
#include "common/mr.h"
#include "common/pattern.h"
#include "layout.h"

static int
write_and_flush(struct rpma_peer *peer, struct rpma_conn *conn, void *arg)
{
	(void)arg;
	struct rpma_mr_remote *dst = NULL;
	struct rpma_mr_local *src = NULL;
	struct ex_mem mem;
	enum rpma_flush_type type;

	if (ex_apm_pdata_use(conn, &dst, &type))
		return -1;
	int result = -1;
	if (ex_mem_open(NULL, DATA_SIZE, &mem))
		goto out_remote;
	ex_pattern_fill(mem.ptr, DATA_SIZE, DATA_SEED);
	if (ex_mr_reg(peer, mem.ptr, DATA_SIZE, RPMA_MR_USAGE_WRITE_SRC, &src))
		goto out_mem;
	if (ex_write_flush(conn, dst, 0, src, 0, DATA_SIZE, type) == 0) {
		printf("wrote and flushed %d bytes to %s\n", DATA_SIZE,
			type == RPMA_FLUSH_TYPE_PERSISTENT
				? "persistence"
				: "global visibility");
		result = 0;
	}
	if (ex_mr_dereg(&src))
		result = -1;
out_mem:
	ex_mem_close(&mem);
out_remote:
	(void)rpma_mr_remote_delete(&dst);
	return result;
}

int
main(int argc, char *argv[])
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s <addr> <port>\n", argv[0]);
		return EXIT_FAILURE;
	}
	return ex_client_run(
		argv[1], argv[2], NULL, NULL, 0, write_and_flush, NULL);
}
