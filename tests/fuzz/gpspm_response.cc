// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: a GPSPM flush response as the client receives it from the
// server's SEND, of any length and content. An accepted response, packed
// again, must be the fixed 9 bytes and unpack to the same op_context.
#include "repack.hh"

using namespace rpma_fio;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_repack(data, size, unpack_response, pack_response, FLUSH_RESPONSE_SIZE,
		     [](uint64_t a, uint64_t b) { return a == b; });
	return 0;
}
