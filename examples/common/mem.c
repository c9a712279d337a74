// SPDX-License-Identifier: BSD-3-Clause
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <librpma.h>

#include "err.h"
#include "mem.h"

static int
dram_open(size_t size, struct ex_mem *mem)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t rounded = (size + page - 1) / page * page;

	mem->ptr = aligned_alloc(page, rounded);
	if (mem->ptr == NULL) {
		EX_FAIL("aligned_alloc(%zu): %s", rounded, strerror(errno));
		return -1;
	}
	memset(mem->ptr, 0, rounded);
	mem->size = size;
	return 0;
}

/* a regular file shorter than size is grown; a device must be big enough */
static int
file_ensure_size(int fd, const char *path, size_t size)
{
	struct stat st;
	if (fstat(fd, &st)) {
		EX_FAIL("fstat(%s): %s", path, strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode) && (size_t)st.st_size < size &&
		ftruncate(fd, (off_t)size)) {
		EX_FAIL("ftruncate(%s): %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int
pmem_map(int fd, const char *path, size_t size, struct ex_mem *mem)
{
	struct pmem2_config *cfg = NULL;
	struct pmem2_source *src = NULL;
	size_t src_size = 0;
	int result = -1;

	if (pmem2_config_new(&cfg) || pmem2_source_from_fd(&src, fd) ||
		pmem2_source_size(src, &src_size))
		goto err;
	if (src_size < size) {
		EX_FAIL("%s holds %zu bytes, %zu needed", path, src_size, size);
		goto out;
	}
	/*
	 * PAGE accepts every file; the granularity we get says what it is.
	 * The whole source is mapped: Device DAX maps only whole alignment
	 * units (2 MiB), so a shorter length would be refused.
	 */
	if (pmem2_config_set_required_store_granularity(
		    cfg, PMEM2_GRANULARITY_PAGE) ||
		pmem2_map_new(&mem->map, cfg, src))
		goto err;

	mem->ptr = pmem2_map_get_address(mem->map);
	mem->size = size;
	mem->persist = pmem2_get_persist_fn(mem->map);
	mem->is_pmem = pmem2_map_get_store_granularity(mem->map) !=
		       PMEM2_GRANULARITY_PAGE;
	result = 0;
	goto out;
err:
	EX_FAIL("mapping %s with libpmem2: %s", path, pmem2_errormsg());
out:
	pmem2_source_delete(&src);
	pmem2_config_delete(&cfg);
	return result;
}

int
ex_mem_open(const char *path, size_t size, struct ex_mem *mem)
{
	*mem = (struct ex_mem){.fd = -1};
	if (path == NULL)
		return dram_open(size, mem);

	mem->fd = open(path, O_RDWR | O_CREAT, 0600);
	if (mem->fd < 0) {
		EX_FAIL("open(%s): %s", path, strerror(errno));
		return -1;
	}
	if (file_ensure_size(mem->fd, path, size) ||
		pmem_map(mem->fd, path, size, mem)) {
		ex_mem_close(mem);
		return -1;
	}
	return 0;
}

void
ex_mem_persist(const struct ex_mem *mem, size_t off, size_t len)
{
	if (mem->persist)
		mem->persist((char *)mem->ptr + off, len);
}

int
ex_mem_flush_usage(const struct ex_mem *mem)
{
	return mem->is_pmem ? RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT
			    : RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
}

void
ex_mem_close(struct ex_mem *mem)
{
	if (mem->map)
		pmem2_map_delete(&mem->map);
	else
		free(mem->ptr);
	if (mem->fd >= 0)
		close(mem->fd);
	*mem = (struct ex_mem){.fd = -1};
}

int
ex_mem_server_main(int argc, char *argv[], size_t size, ex_serve_fn *serve)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s <addr> <port> [<pmem-path>]\n",
			argv[0]);
		return EXIT_FAILURE;
	}
	struct ex_mem mem;
	if (ex_mem_open(argc == 4 ? argv[3] : NULL, size, &mem))
		return EXIT_FAILURE;
	int result = ex_server_run(argv[1], argv[2], serve, &mem);
	ex_mem_close(&mem);
	return result;
}
