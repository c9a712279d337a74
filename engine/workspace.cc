// SPDX-License-Identifier: BSD-3-Clause
#include "workspace.hh"

#include <algorithm>
#include <cstring>

namespace rpma_fio {

namespace {
constexpr size_t DESC_OFFSET = 4;
constexpr size_t AOF_DESC_OFFSET = 16;
constexpr size_t MR_DESC_MIN = 21; // librpma's memory region descriptor
constexpr uint8_t AOF_MAGIC[4] = {'A', 'O', 'F', 0};
constexpr uint8_t AOF_VERSION = 1;
constexpr uint8_t APM_MAGIC[4] = {'A', 'P', 'M', 0};
constexpr uint8_t APM_VERSION = 1;
constexpr uint8_t APM_END_NOTICE = 1; // byte 5 of its request: its flags

bool known_mode(uint8_t m)
{
	return m == static_cast<uint8_t>(AofMode::APM) || m == static_cast<uint8_t>(AofMode::GPSPM);
}

bool has_aof_magic(const uint8_t *bytes, size_t len)
{
	return len >= sizeof(AOF_MAGIC) && std::memcmp(bytes, AOF_MAGIC, sizeof(AOF_MAGIC)) == 0;
}

std::optional<Workspace> decode_aof_workspace(const uint8_t *bytes, size_t len)
{
	if (len < AOF_DESC_OFFSET || bytes[4] != AOF_VERSION || !known_mode(bytes[5]))
		return std::nullopt;
	size_t desc_size = bytes[7];
	if (desc_size < MR_DESC_MIN || desc_size > WORKSPACE_DESC_MAX ||
	    len < AOF_DESC_OFFSET + desc_size)
		return std::nullopt;
	Workspace ws;
	ws.aof = static_cast<AofMode>(bytes[5]);
	ws.direct_write_to_pmem = bytes[6] != 0;
	ws.max_msg_num = static_cast<uint16_t>(bytes[8] | bytes[9] << 8);
	ws.log_offset = static_cast<uint32_t>(bytes[12]) | static_cast<uint32_t>(bytes[13]) << 8 |
			static_cast<uint32_t>(bytes[14]) << 16 |
			static_cast<uint32_t>(bytes[15]) << 24;
	ws.descriptor = {bytes + AOF_DESC_OFFSET, desc_size};
	return ws;
}
}

const char *aof_mode_name(AofMode mode)
{
	switch (mode) {
	case AofMode::APM:
		return "apm";
	case AofMode::GPSPM:
		return "gpspm";
	case AofMode::NONE:
		break;
	}
	return "none";
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

std::optional<std::array<uint8_t, AOF_WORKSPACE_SIZE>>
encode_aof_workspace(AofMode mode, uint16_t max_msg_num, bool dwtp, uint32_t log_offset,
		     std::span<const uint8_t> desc)
{
	if (desc.size() > WORKSPACE_DESC_MAX)
		return std::nullopt;
	std::array<uint8_t, AOF_WORKSPACE_SIZE> ws{};
	std::copy(std::begin(AOF_MAGIC), std::end(AOF_MAGIC), ws.begin());
	ws[4] = AOF_VERSION;
	ws[5] = static_cast<uint8_t>(mode);
	ws[6] = dwtp ? 1 : 0;
	ws[7] = static_cast<uint8_t>(desc.size());
	ws[8] = max_msg_num & 0xff;
	ws[9] = max_msg_num >> 8;
	for (size_t i = 0; i < 4; i++)
		ws[12 + i] = static_cast<uint8_t>(log_offset >> (8 * i));
	std::copy(desc.begin(), desc.end(), ws.begin() + AOF_DESC_OFFSET);
	return ws;
}

std::optional<Workspace> decode_workspace(const void *data, size_t len)
{
	if (!data || len < DESC_OFFSET)
		return std::nullopt;
	auto bytes = static_cast<const uint8_t *>(data);
	if (has_aof_magic(bytes, len))
		return decode_aof_workspace(bytes, len);
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

// byte 6 of a request: its flags
constexpr uint8_t AOF_APPENDS = 1;

std::array<uint8_t, CONN_REQUEST_SIZE> encode_aof_request(AofRequest r)
{
	std::array<uint8_t, CONN_REQUEST_SIZE> req{};
	std::copy(std::begin(AOF_MAGIC), std::end(AOF_MAGIC), req.begin());
	req[4] = AOF_VERSION;
	req[5] = static_cast<uint8_t>(r.mode);
	req[6] = r.appends ? AOF_APPENDS : 0;
	return req;
}

std::optional<AofRequest> decode_aof_request(const void *data, size_t len)
{
	auto bytes = static_cast<const uint8_t *>(data);
	if (!data || !has_aof_magic(bytes, len))
		return AofRequest{};
	if (len < CONN_REQUEST_SIZE || bytes[4] != AOF_VERSION || !known_mode(bytes[5]))
		return std::nullopt;
	return AofRequest{static_cast<AofMode>(bytes[5]), (bytes[6] & AOF_APPENDS) != 0};
}

std::array<uint8_t, CONN_REQUEST_SIZE> encode_end_notice_request()
{
	std::array<uint8_t, CONN_REQUEST_SIZE> req{};
	std::copy(std::begin(APM_MAGIC), std::end(APM_MAGIC), req.begin());
	req[4] = APM_VERSION;
	req[5] = APM_END_NOTICE;
	return req;
}

bool promises_end_notice(const void *data, size_t len)
{
	auto bytes = static_cast<const uint8_t *>(data);
	return data && len >= CONN_REQUEST_SIZE &&
	       std::memcmp(bytes, APM_MAGIC, sizeof(APM_MAGIC)) == 0 && bytes[4] == APM_VERSION &&
	       (bytes[5] & APM_END_NOTICE) != 0;
}

}
