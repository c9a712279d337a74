// SPDX-License-Identifier: BSD-3-Clause
// A page of anonymous memory owned by one object.
#ifndef RPMA_PAGE_HH
#define RPMA_PAGE_HH

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>

#include "error.hh"

namespace rpma {

// Memory a device writes into gets pages of its own: with libibverbs' fork
// protection (RDMAV_FORK_SAFE or ibv_fork_init() on a kernel that does not
// copy DMA pages at fork) every page a registration touches is kept out of a
// forked child, and so would be any heap object sharing it.
class Page {
public:
	Page()
		: size_(static_cast<size_t>(sysconf(_SC_PAGESIZE))),
		  addr_(mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0))
	{
		if (addr_ == MAP_FAILED)
			throw Error(RPMA_E_NOMEM);
	}
	Page(const Page &) = delete;
	Page &operator=(const Page &) = delete;
	// munmap() of a whole mapping of our own cannot fail
	~Page() { munmap(addr_, size_); }

	void *get() const noexcept { return addr_; }
	size_t size() const noexcept { return size_; }

private:
	size_t size_;
	void *addr_;
};

} // namespace rpma

#endif
