// SPDX-License-Identifier: BSD-3-Clause
// aof.hh -- the append-only log's tail pointer as this host reads and
// writes it in its own memory (librpma_aof_server); its layout and the
// log's rules are in wire_format.hh, "The append-only log".
#ifndef RPMA_ENGINE_AOF_HH
#define RPMA_ENGINE_AOF_HH

#include "wire_format.hh"

#include <atomic>
#include <cstdint>
#include <endian.h>

namespace rpma_fio {

// The pointer at `at` (8-byte aligned), read whole.
inline uint64_t load_log_tail(const char *at)
{
	// NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast)
	auto *word = reinterpret_cast<uint64_t *>(const_cast<char *>(at));
	return le64toh(std::atomic_ref<uint64_t>(*word).load(std::memory_order_acquire));
}

// Stores the pointer at `at` (8-byte aligned) whole.
inline void store_log_tail(char *at, uint64_t tail)
{
	// NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast)
	auto *word = reinterpret_cast<uint64_t *>(at);
	std::atomic_ref<uint64_t>(*word).store(log_tail_bytes(tail), std::memory_order_release);
}

}

#endif
