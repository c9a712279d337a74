// SPDX-License-Identifier: BSD-3-Clause
// What a peer says about itself; travels as a 1-byte descriptor.
#ifndef RPMA_PEER_CFG_HH
#define RPMA_PEER_CFG_HH

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace rpma {

class PeerCfg {
public:
	static constexpr size_t DESCRIPTOR_SIZE = 1;

	PeerCfg() noexcept = default;
	explicit PeerCfg(bool direct_write_to_pmem) noexcept
		: direct_write_to_pmem_(direct_write_to_pmem)
	{
	}

	// Any non-zero byte means "supported", as upstream decodes it.
	static PeerCfg from_descriptor(const void *desc) noexcept
	{
		return PeerCfg(*static_cast<const uint8_t *>(desc) != 0);
	}

	void descriptor(void *desc) const noexcept
	{
		*static_cast<uint8_t *>(desc) = direct_write_to_pmem() ? 1 : 0;
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
