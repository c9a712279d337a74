// SPDX-License-Identifier: BSD-3-Clause
// Sizes of a shared receive queue and of its own receive CQ (0: none),
// shared by threads as ConnCfg is: atomic fields, setters under `mutex`, and
// values() under it too.
#ifndef RPMA_SRQ_CFG_HH
#define RPMA_SRQ_CFG_HH

#include <atomic>
#include <cstdint>
#include <mutex>

namespace rpma {

class SrqCfg {
public:
	// upstream's code uses 20 for both (its manual says 100)
	static constexpr uint32_t DEFAULT_SIZE = 20;

	struct Values {
		uint32_t rq_size;
		uint32_t rcq_size;
	};

	// Both sizes at one moment.
	Values values() const noexcept
	{
		const std::lock_guard lock(mutex);
		return {rq_size.load(), rcq_size.load()};
	}

	std::atomic<uint32_t> rq_size{DEFAULT_SIZE};
	std::atomic<uint32_t> rcq_size{DEFAULT_SIZE};
	mutable std::mutex mutex;
};

} // namespace rpma

#endif
