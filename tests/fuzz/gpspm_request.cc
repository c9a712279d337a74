// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: a GPSPM flush request as the server receives it from a
// client's SEND, of any length and content. An accepted request, packed
// again, must be the fixed 27 bytes and unpack to the same fields.
#include <vector>

#include "gpspm_msg.hh"

using namespace rpma_fio;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// an exact-size heap copy, so that AddressSanitizer sees any over-read
	std::vector<uint8_t> msg(data, data + size);
	auto req = unpack_request(msg.data(), msg.size());
	if (!req)
		return 0;

	std::vector<uint8_t> room(MSG_ROOM);
	size_t n = pack_request(*req, room.data(), room.size());
	if (n != FLUSH_REQUEST_SIZE)
		__builtin_trap();
	if (pack_request(*req, room.data(), n - 1) != 0)
		__builtin_trap();	// must refuse a room too small
	std::vector<uint8_t> packed(room.begin(), room.begin() + n);
	auto again = unpack_request(packed.data(), packed.size());
	if (!again || again->offset != req->offset || again->length != req->length ||
	    again->op_context != req->op_context ||
	    again->ends_run() != req->ends_run())
		__builtin_trap();
	return 0;
}
