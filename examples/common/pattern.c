// SPDX-License-Identifier: BSD-3-Clause

#include "err.h"
#include "pattern.h"

/* byte i of the pattern; seeds differing in any bit give different bytes */
static uint8_t
pattern_byte(size_t i, uint32_t seed)
{
	uint32_t x = (uint32_t)i * 2654435761u ^ seed;
	x ^= x >> 15;
	x *= 2246822519u;
	x ^= x >> 13;
	return (uint8_t)x;
}

void
ex_pattern_fill(void *buf, size_t len, uint32_t seed)
{
	uint8_t *b = buf;
	for (size_t i = 0; i < len; i++)
		b[i] = pattern_byte(i, seed);
}

int
ex_pattern_check(const void *buf, size_t len, uint32_t seed)
{
	const uint8_t *b = buf;
	for (size_t i = 0; i < len; i++) {
		if (b[i] != pattern_byte(i, seed)) {
			EX_FAIL("byte %zu is 0x%02x, expected 0x%02x", i, b[i],
				pattern_byte(i, seed));
			return -1;
		}
	}
	return 0;
}
