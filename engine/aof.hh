// SPDX-License-Identifier: BSD-3-Clause
// aof.hh -- the append-only log of librpma_aof_client and librpma_aof_server
// (docs/engines.md, "The append-only log").
//
// The server's region is the log: its first 8 bytes are the tail pointer,
// the length in bytes of the log's durable prefix (u64, little-endian,
// always written whole: an RDMA atomic write, or an aligned 8-byte store);
// the records start at LOG_OFFSET, a page past it. fio's "file" of the
// client is the records' part. A record, and every record before it, is
// durable only once the pointer covers it, and the pointer is made
// persistent only after the records it covers: it is never ahead of them.
#ifndef RPMA_ENGINE_AOF_HH
#define RPMA_ENGINE_AOF_HH

#include "gpspm_msg.hh"

#include <atomic>
#include <cstdint>
#include <endian.h>

namespace rpma_fio {

constexpr uint64_t LOG_TAIL_OFFSET = 0;
constexpr uint32_t LOG_OFFSET = 4096;

// The client's end-of-run notice: a GPSPM flush request of no length whose
// offset is the log's length as the client appended it, with this
// op_context ("AOF END").
constexpr uint64_t AOF_END_CONTEXT = 0x414f4620454e44;

// The notice's offset when the run appended nothing (rw=read).
constexpr uint64_t AOF_NOTHING_APPENDED = UINT64_MAX;

inline FlushRequest aof_end_notice(uint64_t appended)
{
	return {appended, 0, AOF_END_CONTEXT};
}

inline bool is_aof_end_notice(const FlushRequest &req)
{
	return req.length == 0 && req.op_context == AOF_END_CONTEXT;
}

// aof_mode=gpspm: an appending client's first request, once it has agreed
// to the server and before it writes a record: the server zeroes and
// persists the tail pointer (the pointer's range, with this op_context,
// "AOF NEW"), then answers. aof_mode=apm: the client zeroes it itself.
constexpr uint64_t AOF_START_CONTEXT = 0x414f46204e4557;

inline FlushRequest aof_start_request()
{
	return {LOG_TAIL_OFFSET, sizeof(uint64_t), AOF_START_CONTEXT};
}

inline bool is_aof_start_request(const FlushRequest &req)
{
	return req.offset == LOG_TAIL_OFFSET && req.length == sizeof(uint64_t) &&
	       req.op_context == AOF_START_CONTEXT;
}

// The pointer's bytes as they travel and lie in the region.
inline uint64_t log_tail_bytes(uint64_t tail)
{
	return htole64(tail);
}

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
