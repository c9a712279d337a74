// SPDX-License-Identifier: BSD-3-Clause
// The protobuf wire format of gpspm_flush.proto, by hand: a flush request
// and a response travel with every GPSPM flush, and protobuf-c's generic
// unpacking allocates (twice) and walks descriptors for three fixed64
// fields. What any bytes unpack to is protobuf-c's verdict, field by field
// (tests/gpspm_msg_test.cc checks it against the generated code):
// fields in any order, the last of a repeated one counts, unknown fields
// of wire types 0, 1, 2 and 5 are skipped, anything else fails, and so does
// a missing field.
#include "gpspm_msg.hh"

#include <unistd.h>

#include <cstring>

namespace rpma_fio {

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
