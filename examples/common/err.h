/* SPDX-License-Identifier: BSD-3-Clause */
/* Error reporting and time bounds shared by the examples. */

#ifndef RPMA_EXAMPLES_COMMON_ERR_H
#define RPMA_EXAMPLES_COMMON_ERR_H

#include <stdio.h>

#include <librpma.h>

/*
 * Every wait is bounded so that a lost peer makes an example fail instead of
 * hang. The bound is generous because the examples also run in an emulated
 * VM, which is 10-50x slower than real hardware.
 */
#define EX_TIMEOUT_MS 30000

/* prints "<call>: <librpma's description of ret>" to stderr */
#define EX_ERR(call, ret)                                              \
	fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, (call), \
		rpma_err_2str(ret))

/* prints a check failure that is not a librpma error */
#define EX_FAIL(...)                                            \
	do {                                                    \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__);                   \
		fputc('\n', stderr);                            \
	} while (0)

#endif /* RPMA_EXAMPLES_COMMON_ERR_H */
