// SPDX-License-Identifier: BSD-3-Clause
// server_memory.hh -- the memory a server job exposes to its client.
//
//   filename=malloc   DRAM (writes become visible, not persistent)
//   a Device DAX      PMem: job N gets [(N-1)*size, N*size) of the device
//   any other file    PMem on FS DAX: [0, size) of that file
#ifndef RPMA_ENGINE_SERVER_MEMORY_HH
#define RPMA_ENGINE_SERVER_MEMORY_HH

#include "fio.hh"
#include "result.hh"

#include <libpmem2.h>

#include <cstddef>

namespace rpma_fio {

class Memory {
public:
	enum class Kind { Dram, DevDax, FsDax };

	Memory() = default;
	Memory(const Memory &) = delete;
	Memory &operator=(const Memory &) = delete;
	~Memory();

	// DONE, or FAILED after reporting why not
	Result map(thread_data *td, const char *filename, size_t size);
	void unmap();

	char *base() const { return base_; }
	size_t size() const { return size_; }
	Kind kind() const { return kind_; }
	bool persistent() const { return kind_ != Kind::Dram; }
	// Makes [base + offset, +length) persistent (PMem) or does nothing
	// (DRAM: what the client wrote is visible already).
	void persist(size_t offset, size_t length) const;

private:
	Result map_pmem(thread_data *td, const char *filename, size_t size);

	Kind kind_ = Kind::Dram;
	char *base_ = nullptr;
	size_t size_ = 0;
	void *dram_ = nullptr;
	int fd_ = -1;
	pmem2_map *map_ = nullptr;
	pmem2_persist_fn persist_ = nullptr;
};

}

#endif
