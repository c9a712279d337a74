// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: a GPSPM flush response as the client receives it from the
// server's SEND, of any length and content. An accepted response, packed
// again, must be the fixed 9 bytes and unpack to the same op_context.
#include <vector>

#include "gpspm_msg.hh"

using namespace rpma_fio;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// an exact-size heap copy, so that AddressSanitizer sees any over-read
	std::vector<uint8_t> msg(data, data + size);
	auto op_context = unpack_response(msg.data(), msg.size());
	if (!op_context)
		return 0;

	std::vector<uint8_t> room(MSG_ROOM);
	size_t n = pack_response(*op_context, room.data(), room.size());
	if (n != FLUSH_RESPONSE_SIZE)
		__builtin_trap();
	if (pack_response(*op_context, room.data(), n - 1) != 0)
		__builtin_trap();	// must refuse a room too small
	std::vector<uint8_t> packed(room.begin(), room.begin() + n);
	auto again = unpack_response(packed.data(), packed.size());
	if (!again || *again != *op_context)
		__builtin_trap();
	return 0;
}
