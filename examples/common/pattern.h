/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A reproducible byte pattern, so that the side receiving data can check
 * every byte without the data itself being sent another way.
 */

#ifndef RPMA_EXAMPLES_COMMON_PATTERN_H
#define RPMA_EXAMPLES_COMMON_PATTERN_H

#include <stddef.h>
#include <stdint.h>

void ex_pattern_fill(void *buf, size_t len, uint32_t seed);

/* 0 if buf holds the pattern of seed, else -1 after naming the first bad byte */
int ex_pattern_check(const void *buf, size_t len, uint32_t seed);

#endif /* RPMA_EXAMPLES_COMMON_PATTERN_H */
