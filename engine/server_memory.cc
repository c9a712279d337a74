// SPDX-License-Identifier: BSD-3-Clause
#include "server_memory.hh"
#include "report.hh"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace rpma_fio {

Memory::~Memory()
{
	unmap();
}

void Memory::unmap()
{
	if (map_) // pmem2 does not take a pointer to NULL
		pmem2_map_delete(&map_);
	if (fd_ >= 0)
		close(fd_);
	fd_ = -1;
	std::free(dram_);
	dram_ = nullptr;
	base_ = nullptr;
	size_ = 0;
}

Result Memory::map(thread_data *td, const char *filename, size_t size)
{
	if (std::strcmp(filename, "malloc") != 0)
		return map_pmem(td, filename, size);
	if (posix_memalign(&dram_, page_size, size))
		return fail(td, ENOMEM, "posix_memalign", "cannot allocate %zu bytes", size);
	kind_ = Kind::Dram;
	base_ = static_cast<char *>(dram_);
	size_ = size;
	return Result::DONE;
}

// pmem2 maps the whole file or device; the persist function it hands out
// is valid only once a mapping exists.
Result Memory::map_pmem(thread_data *td, const char *filename, size_t size)
{
	if (size % page_size)
		return fail(td, EINVAL, "size",
			    "size (%zu) is not a multiple of the page size (%zu), "
			    "which PMem mappings need",
			    size, (size_t)page_size);
	fd_ = open(filename, O_RDWR);
	struct stat st;
	if (fd_ < 0 || fstat(fd_, &st)) {
		int err = errno;
		return fail(td, err, "open", "cannot open %s: %s", filename, std::strerror(err));
	}
	kind_ = S_ISCHR(st.st_mode) ? Kind::DevDax : Kind::FsDax;
	// a Device DAX is shared by the jobs, an FS DAX file is the job's own
	size_t offset = kind_ == Kind::DevDax ? size * (td->thread_number - 1) : 0;

	pmem2_source *src = nullptr;
	pmem2_config *cfg = nullptr;
	int ret = pmem2_source_from_fd(&src, fd_);
	if (!ret)
		ret = pmem2_config_new(&cfg);
	// cache-line granularity: what a flush (CPU cache write-back) persists
	if (!ret)
		ret = pmem2_config_set_required_store_granularity(cfg,
								  PMEM2_GRANULARITY_CACHE_LINE);
	if (!ret)
		ret = pmem2_map_new(&map_, cfg, src);
	pmem2_config_delete(&cfg);
	pmem2_source_delete(&src);
	if (ret)
		return fail(td, EINVAL, "pmem2_map_new",
			    "cannot map %s as persistent memory: %s (a Device DAX, "
			    "or a file on a file system mounted with -o dax, is needed; "
			    "filename=malloc uses DRAM)",
			    filename, pmem2_errormsg());
	size_t mapped = pmem2_map_get_size(map_);
	if (mapped < offset + size)
		return fail(td, ENOSPC, "size", "%s is too small for job %u: %zu bytes, %zu needed",
			    filename, td->thread_number, mapped, offset + size);
	base_ = static_cast<char *>(pmem2_map_get_address(map_)) + offset;
	size_ = size;
	persist_ = pmem2_get_persist_fn(map_);
	return Result::DONE;
}

void Memory::persist(size_t offset, size_t length) const
{
	if (persist_)
		persist_(base_ + offset, length);
}

}
