// SPDX-License-Identifier: BSD-3-Clause
// wait_set.hh -- what a server's one thread sleeps on: an epoll set of
// descriptors, each with a tag of the caller's, kept as connections come
// and go, and a periodic tick, so that a wait costs the same with one
// connection or hundreds and nothing waits longer than a tick for its turn.
#ifndef RPMA_ENGINE_WAIT_SET_HH
#define RPMA_ENGINE_WAIT_SET_HH

#include <sys/epoll.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace rpma_fio {

class WaitSet {
public:
	// The tag of the tick among those that wait() returns.
	static constexpr uint64_t TICK = UINT64_MAX;

	WaitSet() = default;
	WaitSet(const WaitSet &) = delete;
	WaitSet &operator=(const WaitSet &) = delete;
	~WaitSet();

	// 0, or an errno value.
	int open(std::chrono::milliseconds tick);
	// Watches fd for input, which wait() returns as tag: 0, or an errno
	// value.
	int add(int fd, uint64_t tag);
	// Forgets fd: before it is closed (epoll would forget a closed one
	// only once no other descriptor refers to its file).
	void remove(int fd);

	// Waits up to timeout_ms (-1: until something is ready; the tick comes
	// within its period) and returns how many descriptors are ready, whose
	// tags tag(0) ... tag(n - 1) then give; -1 with errno set on failure;
	// 0 after a signal too.
	int wait(int timeout_ms);
	uint64_t tag(int i) const { return ready_[i].data.u64; }
	// After wait() returned TICK: takes the tick, so that the next one
	// wakes the set again.
	void take_tick();

private:
	int epoll_ = -1;
	int timer_ = -1;
	// A wait takes at most this many; the others stay ready for the next.
	std::array<epoll_event, 64> ready_{};
};

}

#endif
