// SPDX-License-Identifier: BSD-3-Clause
// workspace.hh -- what a server tells its client in the accept's private
// data: 28 bytes, the layout of the old fio engines (docs/compatibility.md,
// "The fio engines' workspace").
//
//   0  u16 LE  max_msg_num: GPSPM receives posted by the server (APM: 0)
//   2  u8      direct_write_to_pmem
//   3  u8      size of the memory region descriptor (21)
//   4  24 B    the descriptor, zero padded
#ifndef RPMA_ENGINE_WORKSPACE_HH
#define RPMA_ENGINE_WORKSPACE_HH

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace rpma_fio {

constexpr size_t WORKSPACE_SIZE = 28;
constexpr size_t WORKSPACE_DESC_MAX = 24;

struct Workspace {
	uint16_t max_msg_num = 0;
	bool direct_write_to_pmem = false;
	std::span<const uint8_t> descriptor; // points into the decoded bytes
};

// nullopt if desc is longer than the 24 bytes the layout has room for
std::optional<std::array<uint8_t, WORKSPACE_SIZE>> encode_workspace(uint16_t max_msg_num, bool dwtp,
								    std::span<const uint8_t> desc);

// Any length >= what the header announces is accepted: RoCE and IB deliver
// the accept's private data zero-padded to 196 bytes.
std::optional<Workspace> decode_workspace(const void *data, size_t len);

}

#endif
