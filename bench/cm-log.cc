// SPDX-License-Identifier: BSD-3-Clause
// cm-log.cc -- preloaded into the fio processes of bench/run --scaling: a
// line in the file RPMA_BENCH_CM_LOG names for the process's first RDMA-CM
// id ("first_id") and for each RDMA-CM event ("established" for a
// connection established, else the event's name), with the time
// (CLOCK_REALTIME, microseconds) and the thread (a job) that got it. The
// time to connect then needs no polling of `rdma res`:
// in the emulated guest starting a process takes up to a second, and the
// busy-polling clients starve a watcher of CPU for longer than that.
#include <rdma/rdma_cma.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace {

void note(const char *what)
{
	const char *path = std::getenv("RPMA_BENCH_CM_LOG");
	if (!path)
		return;
	timespec ts{};
	clock_gettime(CLOCK_REALTIME, &ts);
	char line[96];
	int n = std::snprintf(line, sizeof(line), "%s %lld %ld\n", what,
			      static_cast<long long>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000,
			      static_cast<long>(gettid()));
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	// one write of a short line: lines of concurrent threads do not mix
	if (write(fd, line, static_cast<size_t>(n)) != n)
		std::perror("cm-log");
	close(fd);
}

template <typename F> F next(const char *name)
{
	return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

std::atomic<bool> first_id{false};

}

extern "C" int rdma_create_id(rdma_event_channel *channel, rdma_cm_id **id, void *context,
			      rdma_port_space ps)
{
	static const auto real = next<decltype(&rdma_create_id)>("rdma_create_id");
	if (!first_id.exchange(true))
		note("first_id");
	return real(channel, id, context, ps);
}

extern "C" int rdma_get_cm_event(rdma_event_channel *channel, rdma_cm_event **event)
{
	static const auto real = next<decltype(&rdma_get_cm_event)>("rdma_get_cm_event");
	int ret = real(channel, event);
	if (ret == 0)
		note((*event)->event == RDMA_CM_EVENT_ESTABLISHED
			     ? "established"
			     : rdma_event_str((*event)->event));
	return ret;
}
