// SPDX-License-Identifier: BSD-3-Clause
/*
 * 11-write-with-imm, client: writes <imm> into the server's region with
 * rpma_write_with_imm, passing the same number as the immediate data.
 *
 * usage: client <addr> <port> <imm>
 */

#include <stdlib.h>

#include "common/args.h"
#include "common/client.h"
#include "common/conn.h"
#include "common/cq.h"
#include "common/err.h"
#include "common/mr.h"

static int
write_imm(struct rpma_peer *peer, struct rpma_conn *conn, void *arg)
{
	uint32_t imm = *(uint32_t *)arg;
	void *desc = NULL;
	struct rpma_mr_remote *dst = NULL;
	struct rpma_mr_local *src = NULL;
	struct rpma_cq *cq = NULL;
	struct ibv_wc wc;

	if (ex_private_data(conn, EX_MR_DESC_SIZE, &desc) ||
		ex_mr_remote(desc, &dst))
		return -1;
	int result = -1;
	uint32_t *value = malloc(sizeof(*value));
	if (value == NULL) {
		EX_FAIL("out of memory");
		goto out_remote;
	}
	*value = imm;
	if (ex_conn_cq(conn, &cq) || ex_mr_reg(peer, value, sizeof(*value),
					     RPMA_MR_USAGE_WRITE_SRC, &src))
		goto out_value;
	int ret = rpma_write_with_imm(conn, dst, 0, src, 0, sizeof(*value),
		RPMA_F_COMPLETION_ALWAYS, imm, NULL);
	if (ret)
		EX_ERR("rpma_write_with_imm", ret);
	else if (ex_cq_expect(cq, IBV_WC_RDMA_WRITE, &wc) == 0)
		result = 0;
	if (result == 0)
		printf("wrote %u with immediate value %u\n", imm, imm);
	if (ex_mr_dereg(&src))
		result = -1;
out_value:
	free(value);
out_remote:
	(void)rpma_mr_remote_delete(&dst);
	return result;
}

int
main(int argc, char *argv[])
{
	uint64_t imm;
	if (argc != 4) {
		fprintf(stderr, "usage: %s <addr> <port> <imm>\n", argv[0]);
		return EXIT_FAILURE;
	}
	if (ex_parse_uint(argv[3], UINT32_MAX, &imm))
		return EXIT_FAILURE;
	uint32_t value = (uint32_t)imm;
	return ex_client_run(
		argv[1], argv[2], NULL, NULL, 0, write_imm, &value);
}
