/* SPDX-License-Identifier: BSD-3-Clause */
/* Bounded waiting on the file descriptors librpma hands out. */

#ifndef RPMA_EXAMPLES_COMMON_WAIT_H
#define RPMA_EXAMPLES_COMMON_WAIT_H

#include <stdint.h>

/* a point in time EX_TIMEOUT_MS from now, in CLOCK_MONOTONIC milliseconds */
int64_t ex_deadline(void);

/*
 * Waits until at least one of the n (at most 32) fds is readable or the
 * deadline passes. Returns a mask with bit i set for each readable fds[i],
 * or 0 (after printing what was awaited) on timeout or poll() failure.
 */
uint32_t ex_wait_fds(const int *fds, int n, int64_t deadline, const char *what);

/* ex_wait_fds for one fd: 0 once readable, -1 on failure */
int ex_wait_fd(int fd, int64_t deadline, const char *what);

#endif /* RPMA_EXAMPLES_COMMON_WAIT_H */
