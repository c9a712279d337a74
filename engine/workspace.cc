// SPDX-License-Identifier: BSD-3-Clause
#include "workspace.hh"

#include <algorithm>

namespace rpma_fio {

namespace {
constexpr size_t DESC_OFFSET = 4;
constexpr size_t MR_DESC_MIN = 21; // librpma's memory region descriptor
}

std::optional<std::array<uint8_t, WORKSPACE_SIZE>> encode_workspace(uint16_t max_msg_num, bool dwtp,
								    std::span<const uint8_t> desc)
{
	if (desc.size() > WORKSPACE_DESC_MAX)
		return std::nullopt;
	std::array<uint8_t, WORKSPACE_SIZE> ws{};
	ws[0] = max_msg_num & 0xff;
	ws[1] = max_msg_num >> 8;
	ws[2] = dwtp ? 1 : 0;
	ws[3] = static_cast<uint8_t>(desc.size());
	std::copy(desc.begin(), desc.end(), ws.begin() + DESC_OFFSET);
	return ws;
}

std::optional<Workspace> decode_workspace(const void *data, size_t len)
{
	if (!data || len < DESC_OFFSET)
		return std::nullopt;
	auto bytes = static_cast<const uint8_t *>(data);
	size_t desc_size = bytes[3];
	if (desc_size < MR_DESC_MIN || desc_size > WORKSPACE_DESC_MAX ||
	    len < DESC_OFFSET + desc_size)
		return std::nullopt;
	Workspace ws;
	ws.max_msg_num = static_cast<uint16_t>(bytes[0] | bytes[1] << 8);
	ws.direct_write_to_pmem = bytes[2] != 0;
	ws.descriptor = {bytes + DESC_OFFSET, desc_size};
	return ws;
}

}
