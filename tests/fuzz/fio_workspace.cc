// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: the fio workspace a server sends in the accept's private data,
// of any length a connection can carry (0..255 bytes; RoCE pads to 196).
// An accepted workspace must describe only bytes it was given, and its fields
// must survive encode_workspace() and a second decode unchanged.
#include <algorithm>
#include <vector>

#include "wire_format.hh"

using rpma_fio::decode_workspace;
using rpma_fio::encode_workspace;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 255) // the most private data rdma_cm delivers
		return 0;
	if (decode_workspace(nullptr, size))
		__builtin_trap();
	// an exact-size heap copy, so that AddressSanitizer sees any over-read
	std::vector<uint8_t> pdata(data, data + size);
	const uint8_t *begin = pdata.data(), *end = begin + size;
	auto ws = decode_workspace(begin, size);
	if (!ws) {
		if (size >= 4 && data[3] >= 21 && data[3] <= 24 && size >= 4u + data[3])
			__builtin_trap(); // a well-formed workspace was refused
		return 0;
	}

	// the descriptor lies inside the input, where the header says it is
	const uint8_t *desc = ws->descriptor.data();
	size_t desc_len = ws->descriptor.size();
	if (desc_len > rpma_fio::WORKSPACE_DESC_MAX || desc < begin || desc > end ||
	    desc_len > size_t(end - desc))
		__builtin_trap();
	if (desc != begin + 4 || desc_len != data[3])
		__builtin_trap();
	if (ws->max_msg_num != (data[0] | data[1] << 8) ||
	    ws->direct_write_to_pmem != (data[2] != 0))
		__builtin_trap();

	// re-encode, then decode the 28 bytes again
	auto enc = encode_workspace(ws->max_msg_num, ws->direct_write_to_pmem, ws->descriptor);
	if (!enc)
		__builtin_trap();
	std::vector<uint8_t> again_bytes(enc->begin(), enc->end());
	auto again = decode_workspace(again_bytes.data(), again_bytes.size());
	if (!again || again->max_msg_num != ws->max_msg_num ||
	    again->direct_write_to_pmem != ws->direct_write_to_pmem ||
	    again->descriptor.size() != desc_len ||
	    !std::equal(desc, desc + desc_len, again->descriptor.data()))
		__builtin_trap();
	// the padding after the descriptor is zero
	if (std::any_of(again_bytes.begin() + 4 + desc_len, again_bytes.end(),
			[](uint8_t b) { return b != 0; }))
		__builtin_trap();
	return 0;
}
