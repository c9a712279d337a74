/* SPDX-License-Identifier: BSD-3-Clause */
/* Command-line number parsing that rejects what is not a number. */

#ifndef RPMA_EXAMPLES_COMMON_ARGS_H
#define RPMA_EXAMPLES_COMMON_ARGS_H

#include <stdint.h>

/* parses a decimal (or 0x-prefixed) number of at most max; 0 or -1 */
int ex_parse_uint(const char *str, uint64_t max, uint64_t *value);

#endif /* RPMA_EXAMPLES_COMMON_ARGS_H */
