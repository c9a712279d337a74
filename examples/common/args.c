// SPDX-License-Identifier: BSD-3-Clause

#include <errno.h>
#include <stdlib.h>

#include "args.h"
#include "err.h"

int
ex_parse_uint(const char *str, uint64_t max, uint64_t *value)
{
	char *end = NULL;
	errno = 0;
	unsigned long long v = strtoull(str, &end, 0);
	if (errno || end == str || *end != '\0' || str[0] == '-' || v > max) {
		EX_FAIL("\"%s\" is not a number between 0 and %llu", str,
			(unsigned long long)max);
		return -1;
	}
	*value = v;
	return 0;
}
