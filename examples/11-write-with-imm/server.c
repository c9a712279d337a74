// SPDX-License-Identifier: BSD-3-Clause
/*
 * 11-write-with-imm, server: exposes a 4-byte region. The client writes a
 * number into it with rpma_write_with_imm, carrying the same number as the
 * immediate data; the write consumes a receive the server posted, whose
 * completion brings the immediate value to compare with the memory.
 *
 * usage: server <addr> <port>
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "common/conn.h"
#include "common/err.h"
#include "common/mr.h"
#include "common/msg.h"

static int
check_write(const struct ibv_wc *wc, const uint32_t *value)
{
	if (wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
		!(wc->wc_flags & IBV_WC_WITH_IMM)) {
		EX_FAIL("expected a write with immediate data");
		return -1;
	}
	/* immediate data travels in network byte order */
	uint32_t imm = ntohl(wc->imm_data);
	if (imm != *value) {
		EX_FAIL("memory holds %u but the immediate value is %u", *value,
			imm);
		return -1;
	}
	printf("the client wrote %u, as its immediate value says\n", imm);
	return 0;
}

static int
serve(struct ex_server *srv, void *arg)
{
	(void)arg;
	struct rpma_mr_local *mr = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct ex_msgs m;
	unsigned char desc[EX_MR_DESC_SIZE];
	struct ibv_wc wc;
	uint32_t *value = calloc(1, sizeof(*value));

	if (value == NULL) {
		EX_FAIL("out of memory");
		return -1;
	}
	int result = -1;
	if (ex_mr_reg(srv->peer, value, sizeof(*value), RPMA_MR_USAGE_WRITE_DST,
		    &mr))
		goto out_value;
	/* a write with immediate data consumes a receive, not its buffer */
	if (ex_msgs_new(srv->peer, &m))
		goto out_mr;
	if (ex_mr_descriptor(mr, desc) || ex_next_conn_req(srv->ep, NULL, &req))
		goto out_msgs;
	if (ex_msgs_prepost(req, &m)) {
		(void)rpma_conn_req_delete(&req);
		goto out_msgs;
	}
	if (ex_establish(&req, desc, sizeof(desc), &conn))
		goto out_msgs;
	result = ex_await(conn, false, true, &wc) ? -1
						  : check_write(&wc, value);
	if (ex_server_close(&conn))
		result = -1;
out_msgs:
	if (ex_msgs_delete(&m))
		result = -1;
out_mr:
	if (ex_mr_dereg(&mr))
		result = -1;
out_value:
	free(value);
	return result;
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
