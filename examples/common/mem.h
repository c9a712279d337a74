/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memory a server exposes: a file mapped with libpmem2 when a path is
 * given (real persistent memory, or an ordinary file standing in for it),
 * otherwise page-aligned DRAM.
 */

#ifndef RPMA_EXAMPLES_COMMON_MEM_H
#define RPMA_EXAMPLES_COMMON_MEM_H

#include <stdbool.h>
#include <stddef.h>

#include <libpmem2.h>

#include "conn.h"

struct ex_mem {
	void *ptr;
	size_t size;
	/*
	 * true when stores reach persistence without a page flush (DAX):
	 * only then may RDMA writes be flushed straight to persistence
	 */
	bool is_pmem;
	struct pmem2_map *map;    /* NULL for DRAM */
	pmem2_persist_fn persist; /* NULL for DRAM */
	int fd;
};

/* maps size bytes of path (created or grown if it is a regular file) */
int ex_mem_open(const char *path, size_t size, struct ex_mem *mem);

/* makes [off, off + len) durable; nothing to do for DRAM */
void ex_mem_persist(const struct ex_mem *mem, size_t off, size_t len);

/* the MR usage that lets a peer flush this memory as far as it can go */
int ex_mem_flush_usage(const struct ex_mem *mem);

void ex_mem_close(struct ex_mem *mem);

/*
 * main() of a server exposing size bytes: `<addr> <port> [<pmem-path>]`,
 * then serve() with the struct ex_mem as its argument; an exit status
 */
int ex_mem_server_main(int argc, char *argv[], size_t size, ex_serve_fn *serve);

#endif /* RPMA_EXAMPLES_COMMON_MEM_H */
