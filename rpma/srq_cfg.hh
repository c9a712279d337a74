// SPDX-License-Identifier: BSD-3-Clause
// Sizes of a shared receive queue and of its own receive CQ (0: none).
#pragma once

#include <atomic>
#include <cstdint>

namespace rpma {

class SrqCfg {
public:
	// upstream's code uses 20 for both (its manual says 100)
	static constexpr uint32_t default_size = 20;

	std::atomic<uint32_t> rq_size{default_size};
	std::atomic<uint32_t> rcq_size{default_size};
};

} // namespace rpma
