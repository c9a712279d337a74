// SPDX-License-Identifier: BSD-3-Clause
// Reproducible buffer contents, different for every seed, so that data
// checks are byte for byte and cannot pass on left-over bytes.

#ifndef RPMA_TESTS_INTEGRATION_PATTERN_HH
#define RPMA_TESTS_INTEGRATION_PATTERN_HH

#include <cstdint>
#include <vector>

namespace it {

// fills in place: registered memory must keep its address
inline void fill_pattern(std::vector<unsigned char> &v, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	for (auto &b : v) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b = (unsigned char)x;
	}
}

inline std::vector<unsigned char> pattern(size_t size, uint32_t seed)
{
	std::vector<unsigned char> v(size);
	fill_pattern(v, seed);
	return v;
}

} // namespace it

#endif
