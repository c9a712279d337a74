// SPDX-License-Identifier: BSD-3-Clause
/*
 * 02-read, client: reads the server's region with rpma_read and checks
 * every byte of it.
 *
 * usage: client <addr> <port>
 */

#include <stdlib.h>

#include "common/client.h"
#include "common/conn.h"
#include "common/cq.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/mr.h"
#include "common/pattern.h"
#include "layout.h"

/* reads the whole remote region into dst and waits for it */
static int
read_all(struct rpma_conn *conn, struct rpma_mr_local *dst,
	const struct rpma_mr_remote *src)
{
	struct rpma_cq *cq = NULL;
	struct ibv_wc wc;

	if (ex_conn_cq(conn, &cq))
		return -1;
	int ret = rpma_read(conn, dst, 0, src, 0, DATA_SIZE,
		RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		EX_ERR("rpma_read", ret);
		return -1;
	}
	return ex_cq_expect(cq, IBV_WC_RDMA_READ, &wc);
}

static int
read_and_check(struct rpma_peer *peer, struct rpma_conn *conn, void *arg)
{
	(void)arg;
	void *desc = NULL;
	struct rpma_mr_remote *src = NULL;
	struct rpma_mr_local *dst = NULL;
	struct ex_mem mem;
	size_t size = 0;

	if (ex_private_data(conn, EX_MR_DESC_SIZE, &desc) ||
		ex_mr_remote(desc, &src))
		return -1;
	int result = -1;
	int ret = rpma_mr_remote_get_size(src, &size);
	if (ret) {
		EX_ERR("rpma_mr_remote_get_size", ret);
		goto out_remote;
	}
	if (size != DATA_SIZE) {
		EX_FAIL("the server exposes %zu bytes, not %d", size,
			DATA_SIZE);
		goto out_remote;
	}
	if (ex_mem_open(NULL, DATA_SIZE, &mem))
		goto out_remote;
	if (ex_mr_reg(peer, mem.ptr, DATA_SIZE, RPMA_MR_USAGE_READ_DST, &dst) ==
		0) {
		if (read_all(conn, dst, src) == 0 &&
			ex_pattern_check(mem.ptr, DATA_SIZE, DATA_SEED) == 0) {
			printf("read %d bytes, all as expected\n", DATA_SIZE);
			result = 0;
		}
		if (ex_mr_dereg(&dst))
			result = -1;
	}
	ex_mem_close(&mem);
out_remote:
	(void)rpma_mr_remote_delete(&src);
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
		argv[1], argv[2], NULL, NULL, 0, read_and_check, NULL);
}
