// SPDX-License-Identifier: BSD-3-Clause
#include "msg_memory.hh"

#include <unistd.h>

#include <cstring>

namespace rpma_fio {

bool MsgMemory::allocate(size_t bytes)
{
	const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
	// aligned_alloc takes whole multiples of the alignment
	const size_t whole = (bytes + page - 1) / page * page;
	mem_.reset(static_cast<char *>(std::aligned_alloc(page, whole)));
	if (!mem_)
		return false;
	std::memset(mem_.get(), 0, whole);
	size_ = bytes;
	return true;
}

}
