// SPDX-License-Identifier: BSD-3-Clause
/*
 * 14-memory-window, client: takes the window's descriptor from the
 * server's accept as it would a region's (rpma_mr_remote_from_descriptor:
 * nothing in the client knows it is a window), writes a pattern through it
 * at once, reads it back and checks it.
 *
 * usage: client <addr> <port>
 */

#include <stdlib.h>
#include <string.h>

#include "common/client.h"
#include "common/conn.h"
#include "common/cq.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/mr.h"
#include "common/pattern.h"
#include "layout.h"

static int
write_read_check(struct rpma_peer *peer, struct rpma_conn *conn, void *arg)
{
	(void)arg;
	void *desc = NULL;
	struct rpma_mr_remote *window = NULL;
	struct rpma_mr_local *mr = NULL;
	struct rpma_cq *cq = NULL;
	struct ibv_wc wc;
	struct ex_mem mem;
	size_t size = 0;

	if (ex_private_data(conn, EX_MR_DESC_SIZE, &desc) ||
		ex_mr_remote(desc, &window))
		return -1;
	int result = -1;
	int ret = rpma_mr_remote_get_size(window, &size);
	if (ret || size != WINDOW_SIZE) {
		EX_FAIL("the window is %zu bytes, not %d", size, WINDOW_SIZE);
		goto out_remote;
	}
	if (ex_mem_open(NULL, WINDOW_SIZE, &mem))
		goto out_remote;
	if (ex_conn_cq(conn, &cq) ||
		ex_mr_reg(peer, mem.ptr, WINDOW_SIZE,
			RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, &mr))
		goto out_mem;
	ex_pattern_fill(mem.ptr, WINDOW_SIZE, DATA_SEED);
	ret = rpma_write(conn, window, 0, mr, 0, WINDOW_SIZE,
		RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		EX_ERR("rpma_write", ret);
		goto out_mr;
	}
	if (ex_cq_expect(cq, IBV_WC_RDMA_WRITE, &wc))
		goto out_mr;
	memset(mem.ptr, 0, WINDOW_SIZE);
	ret = rpma_read(conn, mr, 0, window, 0, WINDOW_SIZE,
		RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		EX_ERR("rpma_read", ret);
		goto out_mr;
	}
	if (ex_cq_expect(cq, IBV_WC_RDMA_READ, &wc) == 0 &&
		ex_pattern_check(mem.ptr, WINDOW_SIZE, DATA_SEED) == 0) {
		printf("wrote and read back %d bytes through the window\n",
			WINDOW_SIZE);
		result = 0;
	}
out_mr:
	if (ex_mr_dereg(&mr))
		result = -1;
out_mem:
	ex_mem_close(&mem);
out_remote:
	(void)rpma_mr_remote_delete(&window);
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
		argv[1], argv[2], NULL, NULL, 0, write_read_check, NULL);
}
