// SPDX-License-Identifier: BSD-3-Clause
// wire_format.cc -- the layouts of wire_format.hh, encoded and decoded.
#include "wire_format.hh"

#include <algorithm>
#include <cstring>

namespace rpma_fio {

// ---------------------------------------------------------------------
// The workspaces and the connection requests

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

// ---------------------------------------------------------------------
// The GPSPM messages: protobuf's encoding of gpspm_flush.proto, by hand: a flush request
// and a response travel with every GPSPM flush, and protobuf-c's generic
// unpacking allocates (twice) and walks descriptors for three fixed64
// fields. What any bytes unpack to is protobuf-c's verdict, field by field
// (tests/gpspm_msg_test.cc checks it against the generated code):
// fields in any order, the last of a repeated one counts, unknown fields
// of wire types 0, 1, 2 and 5 are skipped, anything else fails, and so does
// a missing field.
namespace {

constexpr uint8_t WIRE_VARINT = 0, WIRE_64BIT = 1, WIRE_LENGTH = 2, WIRE_32BIT = 5;

// fixed64 is little-endian on the wire, as on every host the engines
// build for (the test compares the bytes with protobuf-c's)
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);

uint8_t *put_fixed64(uint8_t *p, uint8_t field, uint64_t v)
{
	*p++ = uint8_t(field << 3 | WIRE_64BIT);
	std::memcpy(p, &v, 8);
	return p + 8;
}

uint64_t get_fixed64(const uint8_t *p)
{
	uint64_t v;
	std::memcpy(&v, p, 8);
	return v;
}

// The encoding every protobuf encoder (ours, protobuf-c) writes: fields
// 1..want in order, one byte tags, nothing else; parsed at once.
bool unpack_canonical(const uint8_t *p, size_t len, unsigned want, uint64_t *out)
{
	if (len != size_t{9} * want)
		return false;
	for (unsigned f = 0; f < want; f++, p += 9) {
		if (p[0] != ((f + 1) << 3 | WIRE_64BIT))
			return false;
		out[f] = get_fixed64(p + 1);
	}
	return true;
}

// Up to `want` fixed64 fields (numbers 1..want) of a message; false where
// protobuf-c's unpacking fails.
bool unpack_fixed64s(const uint8_t *p, size_t len, unsigned want, uint64_t *out)
{
	if (unpack_canonical(p, len, want, out))
		return true;
	unsigned seen = 0;
	while (len) {
		// the tag: at most 5 bytes, and its first byte must name a field
		// (protobuf-c's own rule, which a padded tag of field 0 passes)
		if ((p[0] & 0xf8) == 0)
			return false;
		const uint8_t wire = p[0] & 7;
		uint32_t field = (p[0] & 0x7f) >> 3;
		size_t used = 1;
		if (p[0] & 0x80) {
			const size_t max = len < 5 ? len : 5;
			unsigned shift = 4;
			for (;; used++) {
				if (used == max)
					return false;
				field |= uint32_t(p[used] & 0x7f) << shift;
				shift += 7;
				if (!(p[used] & 0x80))
					break;
			}
			used++;
		}
		p += used;
		len -= used;
		size_t size;
		switch (wire) {
		case WIRE_VARINT: {
			const size_t max = len < 10 ? len : 10;
			size = 0;
			while (size < max && (p[size] & 0x80))
				size++;
			if (size == max)
				return false;
			size++;
			break;
		}
		case WIRE_64BIT:
			size = 8;
			break;
		case WIRE_LENGTH: {
			const size_t max = len < 5 ? len : 5;
			uint64_t n = 0;
			size_t h = 0;
			for (;; h++) {
				if (h == max)
					return false;
				n |= uint64_t(p[h] & 0x7f) << (7 * h);
				if (!(p[h] & 0x80))
					break;
			}
			h++;
			if (n > len - h)
				return false;
			size = h + n;
			break;
		}
		case WIRE_32BIT:
			size = 4;
			break;
		default:
			return false;
		}
		if (size > len)
			return false;
		if (field >= 1 && field <= want) {
			if (wire != WIRE_64BIT)
				return false;
			out[field - 1] = get_fixed64(p);
			seen |= 1u << (field - 1);
		}
		p += size;
		len -= size;
	}
	return seen == (1u << want) - 1;
}

}

std::string why_no_message(const ibv_wc &wc)
{
	if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM)
		return "wrote " + std::to_string(wc.byte_len) +
		       " bytes with immediate data, which took a message's receive: a client "
		       "of these engines only sends messages";
	if (wc.opcode != IBV_WC_RECV)
		return "took a message's receive with an operation of opcode " +
		       std::to_string(wc.opcode);
	return "sent " + std::to_string(wc.byte_len) + " bytes, more than a message's " +
	       std::to_string(MSG_ROOM);
}

size_t pack_request(const FlushRequest &req, void *buf, size_t room)
{
	if (room < FLUSH_REQUEST_SIZE)
		return 0;
	uint8_t *p = static_cast<uint8_t *>(buf);
	p = put_fixed64(p, 1, req.offset);
	p = put_fixed64(p, 2, req.length);
	put_fixed64(p, 3, req.op_context);
	return FLUSH_REQUEST_SIZE;
}

size_t pack_response(uint64_t op_context, void *buf, size_t room)
{
	if (room < FLUSH_RESPONSE_SIZE)
		return 0;
	put_fixed64(static_cast<uint8_t *>(buf), 1, op_context);
	return FLUSH_RESPONSE_SIZE;
}

std::optional<FlushRequest> unpack_request(const void *buf, size_t len)
{
	uint64_t v[3];
	if (!unpack_fixed64s(static_cast<const uint8_t *>(buf), len, 3, v))
		return std::nullopt;
	return FlushRequest{v[0], v[1], v[2]};
}

std::optional<uint64_t> unpack_response(const void *buf, size_t len)
{
	uint64_t v;
	if (!unpack_fixed64s(static_cast<const uint8_t *>(buf), len, 1, &v))
		return std::nullopt;
	return v;
}

}
