// SPDX-License-Identifier: BSD-3-Clause
// Queue sizes and options of a connection to be made. Threads may share one
// configuration (upstream's guarantee): every field is atomic, so a getter
// returns a value some setter stored, and the setters (rpma/c/cfg.hh) hold
// `mutex`, which values() takes too, so that a connection is made from the
// fields as they were between two setters, never from a mix.
#ifndef RPMA_CONN_CFG_HH
#define RPMA_CONN_CFG_HH

#include <atomic>
#include <cstdint>
#include <mutex>

#include "librpma.h"

namespace rpma {

class Srq;

class ConnCfg {
public:
	static constexpr uint32_t DEFAULT_QUEUE_SIZE = 10;

	// The fields at one moment, taken once when resources are made.
	struct Values {
		int timeout_ms = RPMA_DEFAULT_TIMEOUT_MS;
		uint32_t cq_size = DEFAULT_QUEUE_SIZE;
		uint32_t rcq_size = 0;
		uint32_t sq_size = DEFAULT_QUEUE_SIZE;
		uint32_t rq_size = DEFAULT_QUEUE_SIZE;
		bool shared_channel = false;
		Srq *srq = nullptr;
	};

	Values values() const noexcept
	{
		const std::lock_guard lock(mutex);
		return {timeout_ms.load(), cq_size.load(),        rcq_size.load(), sq_size.load(),
			rq_size.load(),    shared_channel.load(), srq.load()};
	}

	// The values to use for a NULL configuration.
	static Values defaults() noexcept { return {}; }

	std::atomic<int> timeout_ms{RPMA_DEFAULT_TIMEOUT_MS};
	std::atomic<uint32_t> cq_size{DEFAULT_QUEUE_SIZE};
	std::atomic<uint32_t> rcq_size{0};
	std::atomic<uint32_t> sq_size{DEFAULT_QUEUE_SIZE};
	std::atomic<uint32_t> rq_size{DEFAULT_QUEUE_SIZE};
	std::atomic<bool> shared_channel{false};
	std::atomic<Srq *> srq{nullptr};
	// Held by every setter and by values(); not on any data path.
	mutable std::mutex mutex;
};

} // namespace rpma

#endif
