// SPDX-License-Identifier: BSD-3-Clause
#include "wait_set.hh"

#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>

namespace rpma_fio {

WaitSet::~WaitSet()
{
	if (timer_ >= 0)
		close(timer_);
	if (epoll_ >= 0)
		close(epoll_);
}

int WaitSet::open(std::chrono::milliseconds tick)
{
	epoll_ = epoll_create1(EPOLL_CLOEXEC);
	if (epoll_ < 0)
		return errno;
	timer_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (timer_ < 0)
		return errno;
	const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(tick).count();
	timespec period{.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
	itimerspec spec{.it_interval = period, .it_value = period};
	if (timerfd_settime(timer_, 0, &spec, nullptr))
		return errno;
	return add(timer_, TICK);
}

int WaitSet::add(int fd, uint64_t tag)
{
	epoll_event ev{.events = EPOLLIN, .data = {.u64 = tag}};
	return epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev) ? errno : 0;
}

void WaitSet::remove(int fd)
{
	epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, nullptr);
}

int WaitSet::wait(int timeout_ms)
{
	const int n = epoll_wait(epoll_, ready_.data(), static_cast<int>(ready_.size()),
				 timeout_ms);
	return n < 0 && errno == EINTR ? 0 : n;
}

void WaitSet::take_tick()
{
	uint64_t expirations;
	// nonblocking: a tick taken already leaves nothing to read
	(void)!read(timer_, &expirations, sizeof(expirations));
}

}
