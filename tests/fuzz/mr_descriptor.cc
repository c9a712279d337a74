// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: a peer's memory-region descriptor of any length and content.
// Decoding must either fail with RPMA_E_INVAL or yield a region whose size
// and flush type are read back from the given bytes, never past them.
#include <endian.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "librpma.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// an exact-size heap copy, so that AddressSanitizer sees any over-read
	std::vector<uint8_t> desc(data, data + size);
	rpma_mr_remote *mr = nullptr;
	int ret = rpma_mr_remote_from_descriptor(desc.data(), desc.size(), &mr);
	if (ret != 0) {
		if (ret != RPMA_E_INVAL || mr != nullptr)
			abort();
		return 0;
	}
	if (size < 21 || data[20] == 0)
		abort();
	size_t region_size = 0;
	int flush_type = -1;
	if (rpma_mr_remote_get_size(mr, &region_size) ||
	    rpma_mr_remote_get_flush_type(mr, &flush_type))
		abort();
	uint64_t expected_size;
	std::memcpy(&expected_size, data + 8, sizeof(expected_size));
	if (region_size != le64toh(expected_size) || flush_type != (data[20] & 0x30))
		abort();
	if (rpma_mr_remote_delete(&mr) || mr != nullptr)
		abort();
	return 0;
}
