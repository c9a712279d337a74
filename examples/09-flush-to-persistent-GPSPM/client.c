// SPDX-License-Identifier: BSD-3-Clause
/*
 * 09-flush-to-persistent-GPSPM, client: writes its data chunk by chunk
 * into the server's memory, asking after each chunk for it to be made
 * persistent, then tells the server it is done.
 *
 * usage: client <addr> <port>
 */

#include <stdlib.h>

#include "common/client.h"
#include "common/conn.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/mr.h"
#include "common/msg.h"
#include "common/pattern.h"
#include "gpspm.pb-c.h"
#include "layout.h"

/* sends a flush request; waits for its response unless it is the last */
static int
request_flush(struct rpma_conn *conn, struct ex_msgs *m, uint64_t offset,
	uint64_t length, uint64_t op_context)
{
	GPSPMFlushRequest req = GPSPM_FLUSH_REQUEST__INIT;
	req.offset = offset;
	req.length = length;
	req.op_context = op_context;
	size_t len = gpspm_flush_request__pack(&req, EX_MSG_SEND(m));
	struct ibv_wc wc;

	if (length == 0)
		return ex_msg_send(conn, m, len);
	if (ex_msg_exchange(conn, m, len, &wc))
		return -1;
	GPSPMFlushResponse *resp = gpspm_flush_response__unpack(
		NULL, wc.byte_len, EX_MSG_RECV(m));
	if (resp == NULL) {
		EX_FAIL("cannot unpack the flush response");
		return -1;
	}
	int result = 0;
	if (resp->op_context != op_context) {
		EX_FAIL("the response is not for this request");
		result = -1;
	}
	gpspm_flush_response__free_unpacked(resp, NULL);
	return result;
}

static int
write_chunks(struct rpma_conn *conn, struct rpma_mr_remote *dst,
	struct rpma_mr_local *src, struct ex_msgs *m)
{
	for (size_t off = 0; off < DATA_SIZE; off += CHUNK_SIZE) {
		/*
		 * Unsignalled: the request sent after it on the same queue
		 * pair cannot arrive before the written data.
		 */
		int ret = rpma_write(conn, dst, off, src, off, CHUNK_SIZE,
			RPMA_F_COMPLETION_ON_ERROR, NULL);
		if (ret) {
			EX_ERR("rpma_write", ret);
			return -1;
		}
		if (request_flush(
			    conn, m, off, CHUNK_SIZE, off / CHUNK_SIZE + 1))
			return -1;
		printf("[%zu, %zu) is persistent\n", off, off + CHUNK_SIZE);
	}
	return request_flush(conn, m, 0, 0, 0);
}

static int
write_and_flush(struct rpma_peer *peer, struct rpma_conn *conn, void *arg)
{
	(void)arg;
	void *desc = NULL;
	struct rpma_mr_remote *dst = NULL;
	struct rpma_mr_local *src = NULL;
	struct ex_mem mem;
	struct ex_msgs m;

	if (ex_private_data(conn, EX_MR_DESC_SIZE, &desc) ||
		ex_mr_remote(desc, &dst))
		return -1;
	int result = -1;
	if (ex_mem_open(NULL, DATA_SIZE, &mem))
		goto out_remote;
	ex_pattern_fill(mem.ptr, DATA_SIZE, DATA_SEED);
	if (ex_mr_reg(peer, mem.ptr, DATA_SIZE, RPMA_MR_USAGE_WRITE_SRC, &src))
		goto out_mem;
	if (ex_msgs_new(peer, &m) == 0) {
		result = write_chunks(conn, dst, src, &m);
		if (ex_msgs_delete(&m))
			result = -1;
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
