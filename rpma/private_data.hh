// SPDX-License-Identifier: BSD-3-Clause
// The library's copy of the private data a peer sent while connecting.
#ifndef RPMA_PRIVATE_DATA_HH
#define RPMA_PRIVATE_DATA_HH

#include <cstdint>
#include <vector>

#include "librpma.h"

namespace rpma {

class PrivateData {
public:
	PrivateData() = default;
	// rdma_cm hands out at most 255 bytes (its length is a uint8)
	PrivateData(const void *ptr, uint8_t len)
	{
		if (ptr && len) {
			const auto *bytes = static_cast<const uint8_t *>(ptr);
			bytes_.assign(bytes, bytes + len);
		}
	}

	bool empty() const noexcept { return bytes_.empty(); }
	void clear() noexcept { bytes_.clear(); }

	rpma_conn_private_data view() const noexcept
	{
		if (bytes_.empty())
			return {nullptr, 0};
		return {const_cast<uint8_t *>(bytes_.data()), static_cast<uint8_t>(bytes_.size())};
	}

private:
	std::vector<uint8_t> bytes_;
};

} // namespace rpma

#endif
