// SPDX-License-Identifier: BSD-3-Clause
// The 21-byte wire form of an MR descriptor, built independently of the
// library: raddr u64 | length u64 | rkey u32 | usage u8, all little-endian.
#ifndef RPMA_TESTS_UNIT_DESCRIPTOR_HH
#define RPMA_TESTS_UNIT_DESCRIPTOR_HH

#include <array>
#include <cstdint>

namespace unit {

inline constexpr size_t MR_DESCRIPTOR_SIZE = 21;

inline std::array<uint8_t, MR_DESCRIPTOR_SIZE> mr_descriptor(uint64_t raddr, uint64_t size,
							     uint32_t rkey, uint8_t usage)
{
	std::array<uint8_t, MR_DESCRIPTOR_SIZE> desc{};
	for (int i = 0; i < 8; ++i) {
		desc[i] = static_cast<uint8_t>(raddr >> (8 * i));
		desc[8 + i] = static_cast<uint8_t>(size >> (8 * i));
	}
	for (int i = 0; i < 4; ++i)
		desc[16 + i] = static_cast<uint8_t>(rkey >> (8 * i));
	desc[20] = usage;
	return desc;
}

} // namespace unit

#endif
