// SPDX-License-Identifier: BSD-3-Clause
/*
 * 09-flush-to-persistent-GPSPM, server: "general purpose server
 * persistency". The client writes into the server's memory with RDMA, then
 * asks for the written range to be made persistent with a flush request
 * message; the server persists it itself (libpmem2's persist function for a
 * mapped file, nothing for DRAM), checks the bytes and answers.
 *
 * usage: server <addr> <port> [<pmem-path>]
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/conn.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/mr.h"
#include "common/msg.h"
#include "common/pattern.h"
#include "gpspm.pb-c.h"
#include "layout.h"

struct state {
	struct ex_mem *mem;
	size_t flushed; /* bytes persisted so far */
};

/* persists what a request names and checks it is what the client wrote */
static int
persist(struct state *st, uint64_t offset, uint64_t length)
{
	if (offset > DATA_SIZE || length > DATA_SIZE - offset) {
		EX_FAIL("flush request out of range");
		return -1;
	}
	ex_mem_persist(st->mem, offset, length);
	/* the pattern covers the whole region, so check it from its start */
	unsigned char expected[DATA_SIZE];
	ex_pattern_fill(expected, offset + length, DATA_SEED);
	if (memcmp((char *)st->mem->ptr + offset, expected + offset, length)) {
		EX_FAIL("the bytes at [%" PRIu64 ", %" PRIu64 ") are wrong",
			offset, offset + length);
		return -1;
	}
	st->flushed += length;
	return 0;
}

static int
handle_flush(const void *msg, size_t len, void *reply, void *arg)
{
	struct state *st = arg;
	GPSPMFlushRequest *req = gpspm_flush_request__unpack(NULL, len, msg);
	if (req == NULL) {
		EX_FAIL("cannot unpack a flush request of %zu bytes", len);
		return -1;
	}
	int result = 0;
	if (req->offset == 0 && req->length == 0) {
		printf("the client is done\n");
	} else if (persist(st, req->offset, req->length) == 0) {
		GPSPMFlushResponse resp = GPSPM_FLUSH_RESPONSE__INIT;
		resp.op_context = req->op_context;
		/* 9 bytes: always fits EX_MSG_SIZE */
		result = (int)gpspm_flush_response__pack(&resp, reply);
		printf("persisted [%" PRIu64 ", %" PRIu64 ")\n", req->offset,
			req->offset + req->length);
	} else {
		result = -1;
	}
	gpspm_flush_request__free_unpacked(req, NULL);
	return result;
}

static int
serve(struct ex_server *srv, void *arg)
{
	struct ex_mem *mem = arg;
	struct rpma_mr_local *mr = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct ex_msgs m;
	unsigned char desc[EX_MR_DESC_SIZE];
	struct state st = {mem, 0};

	memset(mem->ptr, 0, DATA_SIZE);
	ex_mem_persist(mem, 0, DATA_SIZE);
	if (ex_mr_reg(srv->peer, mem->ptr, DATA_SIZE, RPMA_MR_USAGE_WRITE_DST,
		    &mr))
		return -1;
	int result = -1;
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
	result = ex_msg_serve(conn, &m, handle_flush, &st);
	if (ex_server_close(&conn))
		result = -1;
	if (result == 0 && st.flushed != DATA_SIZE) {
		EX_FAIL("%zu bytes flushed, %d expected", st.flushed,
			DATA_SIZE);
		result = -1;
	}
out_msgs:
	if (ex_msgs_delete(&m))
		result = -1;
out_mr:
	if (ex_mr_dereg(&mr))
		result = -1;
	return result;
}

int
main(int argc, char *argv[])
{
	return ex_mem_server_main(argc, argv, DATA_SIZE, serve);
}
