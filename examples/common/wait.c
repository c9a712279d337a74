// SPDX-License-Identifier: BSD-3-Clause
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "wait.h"

#define MAX_FDS 32

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
ex_deadline(void)
{
	return now_ms() + EX_TIMEOUT_MS;
}

uint32_t
ex_wait_fds(const int *fds, int n, int64_t deadline, const char *what)
{
	struct pollfd pfd[MAX_FDS];

	if (n < 1 || n > MAX_FDS) {
		EX_FAIL("cannot wait for %d fds", n);
		return 0;
	}
	for (int i = 0; i < n; i++)
		pfd[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};

	for (;;) {
		int64_t left = deadline - now_ms();
		if (left < 0)
			left = 0;

		int ready = poll(pfd, (nfds_t)n, (int)left);
		if (ready > 0) {
			uint32_t mask = 0;
			for (int i = 0; i < n; i++)
				if (pfd[i].revents)
					mask |= 1u << i;
			return mask;
		}
		if (ready == 0) {
			EX_FAIL("timed out waiting for %s", what);
			return 0;
		}
		/* a signal (e.g. from a debugger) is not a reason to give up */
		if (errno != EINTR) {
			EX_FAIL("poll() for %s: %s", what, strerror(errno));
			return 0;
		}
	}
}

int
ex_wait_fd(int fd, int64_t deadline, const char *what)
{
	return ex_wait_fds(&fd, 1, deadline, what) ? 0 : -1;
}
