// SPDX-License-Identifier: BSD-3-Clause
#include <fcntl.h>
#include <poll.h>

#include <cstring>
#include <mutex>

#include "error.hh"
#include "log.hh"
#include "verbs.hh"

namespace rpma {

namespace {

// librdmacm (seen in rdma-core 44 with helgrind) fills an entry of its
// process-wide table of ids under a lock in rdma_create_id(), but clears
// it, and counts it gone, without that lock in rdma_destroy_id(): a table
// block can be freed while in use, or a new id's entry wiped. Every id rpma
// makes or destroys goes through this lock instead.
std::mutex cm_ids;

} // namespace

CmIdOwner create_cm_id(rdma_event_channel *channel)
{
	rdma_cm_id *id = nullptr;
	const std::lock_guard lock(cm_ids);
	if (rdma_create_id(channel, &id, nullptr, RDMA_PS_TCP))
		throw_provider("rdma_create_id()", errno_or(EIO));
	return CmIdOwner(id);
}

int destroy_cm_id(rdma_cm_id *id) noexcept
{
	const std::lock_guard lock(cm_ids);
	return rdma_destroy_id(id);
}

// librdmacm makes the id of an incoming request inside rdma_get_cm_event(),
// so the call must hold the lock; but a blocking call would hold it until a
// client comes. The wait is therefore outside the lock (the channel's fd
// turns readable when an event is queued), and the call under it never
// blocks: the channel is made non-blocking for that call and put back as
// the application left it. An event another thread took in between (the
// endpoint's users break its one-thread rule then) only means another wait.
int next_listening_event(rdma_event_channel *channel, CmEvent &event) noexcept
{
	const int fd = channel->fd;
	for (;;) {
		const int flags = fcntl(fd, F_GETFL);
		if (flags < 0)
			return provider_error("fcntl()", errno_or(EIO));
		const bool blocking = !(flags & O_NONBLOCK);
		if (blocking) {
			pollfd pfd{fd, POLLIN, 0};
			// a signal's handler has run: wait on, as the blocking
			// rdma_get_cm_event() does under SA_RESTART
			if (poll(&pfd, 1, -1) < 0) {
				if (errno == EINTR)
					continue;
				return provider_error("poll()", errno_or(EIO));
			}
		}
		int ret;
		{
			const std::lock_guard lock(cm_ids);
			if (blocking && fcntl(fd, F_SETFL, flags | O_NONBLOCK))
				return provider_error("fcntl()", errno_or(EIO));
			ret = next_cm_event(channel, event);
			if (blocking && fcntl(fd, F_SETFL, flags))
				RPMA_LOG_WARNING(
					"fcntl() failed to make the channel blocking again: "
					"%s",
					std::strerror(errno));
		}
		if (!blocking || ret != RPMA_E_NO_EVENT)
			return ret;
	}
}

} // namespace rpma
