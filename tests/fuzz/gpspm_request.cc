// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: a GPSPM flush request as the server receives it from a
// client's SEND, of any length and content. An accepted request, packed
// again, must be the fixed 27 bytes and unpack to the same fields.
#include "repack.hh"

using namespace rpma_fio;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_repack(data, size, unpack_request, pack_request, FLUSH_REQUEST_SIZE,
		     [](const FlushRequest &a, const FlushRequest &b) {
			     return a.offset == b.offset && a.length == b.length &&
				    a.op_context == b.op_context && a.ends_run() == b.ends_run();
		     });
	return 0;
}
