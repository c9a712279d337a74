// SPDX-License-Identifier: BSD-3-Clause
// workspace.hh -- the private data of a connection: what a server tells its
// client in the accept (the workspace) and, for the append-only log, what a
// client asks for in its connection request.
//
// The APM and GPSPM servers' workspace, 28 bytes: the layout of the old
// fio engines (docs/compatibility.md, "The fio engines' workspace").
//
//   0  u16 LE  max_msg_num: GPSPM receives posted by the server (APM: 0)
//   2  u8      direct_write_to_pmem
//   3  u8      size of the memory region descriptor (21)
//   4  24 B    the descriptor, zero padded
//
// The append-only-log server's (librpma_aof_server), 40 bytes. Its byte 3
// is 0 where the old layout has the descriptor's size, so that an APM or
// GPSPM client, ours or an old one, finds no descriptor and refuses it.
//
//   0  4 B     "AOF\0"
//   4  u8      layout version (1)
//   5  u8      aof_mode: 1 apm, 2 gpspm
//   6  u8      direct_write_to_pmem
//   7  u8      size of the memory region descriptor
//   8  u16 LE  max_msg_num: receives posted by the server
//  10  u16     0
//  12  u32 LE  log offset: where the records start in the region (the
//              log's tail pointer is its first 8 bytes)
//  16  24 B    the descriptor, zero padded
//
// An append-only-log client's connection request, 8 bytes: "AOF\0", the
// version (1), its aof_mode, its flags (bit 0: it appends), a zero byte.
//
// An APM client's (librpma_apm_client), 8 bytes: "APM\0", the version (1),
// its flags (bit 0: it sends the end-of-run notice, an all-zero GPSPM
// flush request, once its run ended well, if the server posted a receive
// for it: max_msg_num 1), two zero bytes. A client that sends no request
// (the old engines, a GPSPM client) promises no notice.
#ifndef RPMA_ENGINE_WORKSPACE_HH
#define RPMA_ENGINE_WORKSPACE_HH

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace rpma_fio {

constexpr size_t WORKSPACE_SIZE = 28;
constexpr size_t AOF_WORKSPACE_SIZE = 40;
constexpr size_t WORKSPACE_DESC_MAX = 24;
constexpr size_t CONN_REQUEST_SIZE = 8; // a client's connection request (either)

// The append-only log's method (aof_mode=), the same on both ends of a
// librpma_aof_* connection; NONE: an APM or GPSPM connection.
enum class AofMode : uint8_t { NONE = 0, APM = 1, GPSPM = 2 };

// "apm", "gpspm", or "none"
const char *aof_mode_name(AofMode mode);

struct Workspace {
	uint16_t max_msg_num = 0;
	bool direct_write_to_pmem = false;
	std::span<const uint8_t> descriptor; // points into the decoded bytes
	AofMode aof = AofMode::NONE;
	uint32_t log_offset = 0;
};

// nullopt if desc is longer than the 24 bytes the layout has room for
std::optional<std::array<uint8_t, WORKSPACE_SIZE>> encode_workspace(uint16_t max_msg_num, bool dwtp,
								    std::span<const uint8_t> desc);
// The append-only-log server's (mode APM or GPSPM); nullopt as above.
std::optional<std::array<uint8_t, AOF_WORKSPACE_SIZE>>
encode_aof_workspace(AofMode mode, uint16_t max_msg_num, bool dwtp, uint32_t log_offset,
		     std::span<const uint8_t> desc);

// Either layout. Any length >= what the header announces is accepted: RoCE
// and IB deliver the accept's private data zero-padded to 196 bytes.
std::optional<Workspace> decode_workspace(const void *data, size_t len);

// The APM client's request: it will send the end-of-run notice.
std::array<uint8_t, CONN_REQUEST_SIZE> encode_end_notice_request();
// Whether a connection request's private data promises the end-of-run
// notice (a request of an unknown version promises nothing).
bool promises_end_notice(const void *data, size_t len);

// What an append-only-log client asks for when it connects: its method,
// and whether its job appends (a new log from the start) or only reads.
struct AofRequest {
	AofMode mode = AofMode::NONE;
	bool appends = false;
	bool operator==(const AofRequest &) const = default;
};

std::array<uint8_t, CONN_REQUEST_SIZE> encode_aof_request(AofRequest req);
// mode NONE when the request carries no append-only-log request (an APM or
// GPSPM client: none at all); nullopt when it is one of a version or a
// mode this side does not know.
std::optional<AofRequest> decode_aof_request(const void *data, size_t len);

}

#endif
