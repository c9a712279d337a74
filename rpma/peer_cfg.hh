// SPDX-License-Identifier: BSD-3-Clause
// What a peer says about itself; travels as a 1-byte descriptor (wire.hh).
#ifndef RPMA_PEER_CFG_HH
#define RPMA_PEER_CFG_HH

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "wire.hh"

namespace rpma {

class PeerCfg {
public:
	static constexpr size_t DESCRIPTOR_SIZE = wire::PEER_CFG_DESCRIPTOR_SIZE;

	PeerCfg() noexcept = default;
	explicit PeerCfg(bool direct_write_to_pmem) noexcept
		: direct_write_to_pmem_(direct_write_to_pmem)
	{
	}

	static PeerCfg from_descriptor(const void *desc) noexcept
	{
		return PeerCfg(wire::read_peer_cfg(desc));
	}

	void descriptor(void *desc) const noexcept
	{
		wire::write_peer_cfg(desc, direct_write_to_pmem());
	}

	bool direct_write_to_pmem() const noexcept { return direct_write_to_pmem_.load(); }
	void set_direct_write_to_pmem(bool supported) noexcept
	{
		direct_write_to_pmem_ = supported;
	}

private:
	std::atomic<bool> direct_write_to_pmem_{false};
};

} // namespace rpma

#endif
