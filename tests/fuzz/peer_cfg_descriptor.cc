// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: a peer-configuration descriptor of any length and content.
#include <cstdlib>
#include <vector>

#include "librpma.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::vector<uint8_t> desc(data, data + size);
	rpma_peer_cfg *pcfg = nullptr;
	int ret = rpma_peer_cfg_from_descriptor(desc.data(), desc.size(), &pcfg);
	if (size == 0) {
		if (ret != RPMA_E_INVAL || pcfg)
			abort();
		return 0;
	}
	bool supported = false;
	if (ret || rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &supported))
		abort();
	if (supported != (data[0] != 0))
		abort();
	uint8_t out = 0xAA;
	if (rpma_peer_cfg_get_descriptor(pcfg, &out) || out != (supported ? 1 : 0))
		abort();
	if (rpma_peer_cfg_delete(&pcfg) || pcfg)
		abort();
	return 0;
}
