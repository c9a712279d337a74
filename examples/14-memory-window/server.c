// SPDX-License-Identifier: BSD-3-Clause
/*
 * 14-memory-window, server: registers a region that its own key opens to
 * nobody (rpma_mr_reg_for_windows), binds a type 2 memory window over a
 * part of it on the incoming connection before accepting it
 * (rpma_conn_req_bind_mw) and hands the client the window's descriptor in
 * the accept's private data. The key works on this connection only. Once
 * the client has left, checks that its bytes landed inside the window and
 * nowhere else.
 *
 * usage: server <addr> <port>
 *        server --capable <addr>   exits 0 where the device has type 2
 *                                  windows, 77 (saying why) where not
 * A device without type 2 windows (Soft-iWARP) makes the server exit 77.
 */

#include <stdlib.h>
#include <string.h>

#include "common/conn.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/mr.h"
#include "common/pattern.h"
#include "layout.h"

/* 0 where the device serving addr binds type 2 windows, 1 where not */
static int
capable(const char *addr, int *is_capable)
{
	struct ibv_context *ctx = NULL;
	int ret = rpma_utils_get_ibv_context(
		addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx);
	if (ret) {
		EX_ERR("rpma_utils_get_ibv_context", ret);
		return -1;
	}
	ret = rpma_utils_ibv_context_is_mw_type2_capable(ctx, is_capable);
	if (ret) {
		EX_ERR("rpma_utils_ibv_context_is_mw_type2_capable", ret);
		return -1;
	}
	if (!*is_capable)
		printf("SKIP: %s has no type 2 memory windows\n",
			ctx->device->name);
	return 0;
}

/* the window's bytes hold the client's pattern, the rest is untouched */
static int
check_region(const unsigned char *region)
{
	for (size_t i = 0; i < REGION_SIZE; i++) {
		if (i >= WINDOW_OFFSET && i < WINDOW_OFFSET + WINDOW_SIZE)
			continue;
		if (region[i] != 0) {
			EX_FAIL("byte %zu, outside the window, was written", i);
			return -1;
		}
	}
	return ex_pattern_check(region + WINDOW_OFFSET, WINDOW_SIZE, DATA_SEED);
}

static int
serve(struct ex_server *srv, void *arg)
{
	struct ex_mem *mem = arg;
	struct rpma_mr_local *mr = NULL;
	struct rpma_mw *mw = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	unsigned char desc[EX_MR_DESC_SIZE];

	memset(mem->ptr, 0, REGION_SIZE);
	int ret = rpma_mr_reg_for_windows(srv->peer, mem->ptr, REGION_SIZE,
		RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST, &mr);
	if (ret) {
		EX_ERR("rpma_mr_reg_for_windows", ret);
		return -1;
	}
	int result = -1;
	ret = rpma_mw_new(srv->peer, &mw);
	if (ret) {
		EX_ERR("rpma_mw_new", ret);
		goto out_mr;
	}
	if (ex_next_conn_req(srv->ep, NULL, &req))
		goto out_mw;
	/* the key is chosen now; connect binds it before accepting */
	ret = rpma_conn_req_bind_mw(req, mw, mr, WINDOW_OFFSET, WINDOW_SIZE,
		RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST);
	if (ret == 0)
		ret = rpma_mw_get_descriptor(mw, desc);
	if (ret) {
		EX_ERR("rpma_conn_req_bind_mw", ret);
		(void)rpma_conn_req_delete(&req);
		goto out_mw;
	}
	if (ex_establish(&req, desc, sizeof(desc), &conn))
		goto out_mw;
	printf("client connected, a window of %d bytes at offset %d bound "
	       "on its connection\n",
		WINDOW_SIZE, WINDOW_OFFSET);
	result = ex_server_close(&conn);
	if (!result)
		result = check_region(mem->ptr);
	if (!result)
		printf("client disconnected; its bytes are in the window "
		       "and nowhere else\n");
out_mw:
	ret = rpma_mw_delete(&mw);
	if (ret) {
		EX_ERR("rpma_mw_delete", ret);
		result = -1;
	}
out_mr:
	if (ex_mr_dereg(&mr))
		result = -1;
	return result;
}

int
main(int argc, char *argv[])
{
	int is_capable = 0;
	if (argc == 3 && strcmp(argv[1], "--capable") == 0) {
		if (capable(argv[2], &is_capable))
			return EXIT_FAILURE;
		return is_capable ? EXIT_SUCCESS : EXIT_NOT_CAPABLE;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: %s <addr> <port> | --capable <addr>\n",
			argv[0]);
		return EXIT_FAILURE;
	}
	if (capable(argv[1], &is_capable))
		return EXIT_FAILURE;
	if (!is_capable)
		return EXIT_NOT_CAPABLE;
	struct ex_mem mem;
	if (ex_mem_open(NULL, REGION_SIZE, &mem))
		return EXIT_FAILURE;
	int result = ex_server_run(argv[1], argv[2], serve, &mem);
	ex_mem_close(&mem);
	return result;
}
