// SPDX-License-Identifier: BSD-3-Clause
/*
 * 07-atomic-write, client: appends each word to the server's log. An entry
 * is written and flushed first; only then is the log's used-bytes count
 * advanced with rpma_atomic_write and flushed in turn. At the end the whole
 * log is read back and compared with what was appended.
 *
 * usage: client <addr> <port> <word> [<word>...]
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/apm.h"
#include "common/client.h"
#include "common/conn.h"
#include "common/cq.h"
#include "common/err.h"
#include "common/flush.h"
#include "common/mem.h"
#include "common/mr.h"
#include "log.h"

struct words {
	int n;
	char **v;
};

/* the local side: a mirror of the log, for writing and reading back */
struct appender {
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_mr_remote *dst;
	struct rpma_mr_local *src;
	char *mirror;
	enum rpma_flush_type type;
};

/* reads len bytes at off of the remote log into the mirror */
static int
read_back(struct appender *a, size_t off, size_t len)
{
	struct ibv_wc wc;
	int ret = rpma_read(a->conn, a->src, off, a->dst, off, len,
		RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		EX_ERR("rpma_read", ret);
		return -1;
	}
	return ex_cq_expect(a->cq, IBV_WC_RDMA_READ, &wc);
}

/* makes the new count part of the log: atomically, then durably */
static int
commit(struct appender *a, uint64_t used)
{
	struct ibv_wc wc;
	char src[8];
	memcpy(src, &used, sizeof(src));
	int ret = rpma_atomic_write(a->conn, a->dst, LOG_USED_OFFSET, src,
		RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		EX_ERR("rpma_atomic_write", ret);
		return -1;
	}
	if (ex_cq_next_wc(a->cq, &wc) || ex_wc_check_atomic_write(&wc))
		return -1;
	return ex_flush(
		a->conn, a->dst, LOG_USED_OFFSET, sizeof(used), a->type);
}

static int
append(struct appender *a, const char *word, uint64_t *used)
{
	size_t len = strlen(word) + 1;
	if (len > LOG_CAPACITY - *used) {
		EX_FAIL("no room left in the log for \"%s\"", word);
		return -1;
	}
	size_t off = LOG_ENTRIES_OFFSET + *used;
	memcpy(a->mirror + off, word, len);
	if (ex_write_flush(a->conn, a->dst, off, a->src, off, len, a->type) ||
		commit(a, *used + len))
		return -1;
	*used += len;
	printf("appended \"%s\"\n", word);
	return 0;
}

/* the remote log must now hold exactly what the mirror holds */
static int
verify(struct appender *a, uint64_t used)
{
	size_t size = LOG_ENTRIES_OFFSET + used;
	char *expected = malloc(size);
	if (expected == NULL) {
		EX_FAIL("out of memory");
		return -1;
	}
	memcpy(expected, a->mirror, size);
	memcpy(expected + LOG_USED_OFFSET, &used, sizeof(used));
	memset(a->mirror, 0, size);
	int result = read_back(a, 0, size);
	if (result == 0 && memcmp(a->mirror, expected, size)) {
		EX_FAIL("the log read back differs from what was appended");
		result = -1;
	}
	if (result == 0)
		printf("the log read back holds all %" PRIu64 " bytes\n", used);
	free(expected);
	return result;
}

static int
append_all(struct appender *a, const struct words *w)
{
	uint64_t used;
	if (read_back(a, LOG_USED_OFFSET, sizeof(used)))
		return -1;
	memcpy(&used, a->mirror + LOG_USED_OFFSET, sizeof(used));
	if (used > LOG_CAPACITY) {
		EX_FAIL("the log claims %" PRIu64 " bytes used", used);
		return -1;
	}
	for (int i = 0; i < w->n; i++)
		if (append(a, w->v[i], &used))
			return -1;
	return verify(a, used);
}

static int
client_fn(struct rpma_peer *peer, struct rpma_conn *conn, void *arg)
{
	struct appender a = {.conn = conn};
	struct ex_mem mem;

	if (ex_conn_cq(conn, &a.cq) || ex_apm_pdata_use(conn, &a.dst, &a.type))
		return -1;
	int result = -1;
	if (ex_mem_open(NULL, LOG_SIZE, &mem))
		goto out_remote;
	a.mirror = mem.ptr;
	if (ex_mr_reg(peer, mem.ptr, LOG_SIZE,
		    RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC,
		    &a.src) == 0) {
		result = append_all(&a, arg);
		if (ex_mr_dereg(&a.src))
			result = -1;
	}
	ex_mem_close(&mem);
out_remote:
	(void)rpma_mr_remote_delete(&a.dst);
	return result;
}

int
main(int argc, char *argv[])
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s <addr> <port> <word> [<word>...]\n",
			argv[0]);
		return EXIT_FAILURE;
	}
	struct words w = {argc - 3, argv + 3};
	return ex_client_run(argv[1], argv[2], NULL, NULL, 0, client_fn, &w);
}
