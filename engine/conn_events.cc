// SPDX-License-Identifier: BSD-3-Clause
#include "conn_events.hh"
#include "report.hh"

#include <poll.h>

#include <algorithm>
#include <cerrno>

namespace rpma_fio {

bool fd_readable(int fd, int timeout_ms)
{
	pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
	int ret;
	do {
		ret = poll(&p, 1, timeout_ms);
	} while (ret < 0 && errno == EINTR);
	return ret > 0;
}

Result next_conn_event(thread_data *td, rpma_conn *conn, int timeout_ms, rpma_conn_event *event)
{
	int fd;
	int ret = rpma_conn_get_event_fd(conn, &fd);
	if (!ret && !fd_readable(fd, timeout_ms))
		return Result::RETRY;
	if (!ret)
		ret = rpma_conn_next_event(conn, event);
	return ret ? rpma_failed(td, "rpma_conn_next_event", ret) : Result::DONE;
}

void await_goodbye(rpma_conn *conn)
{
	const auto deadline = Clock::now() + std::chrono::milliseconds(GOODBYE_TIMEOUT_MS);
	int fd;
	if (rpma_conn_get_event_fd(conn, &fd))
		return;
	rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	while (ev != RPMA_CONN_CLOSED && ev != RPMA_CONN_LOST &&
	       fd_readable(fd, ms_left(deadline)) && rpma_conn_next_event(conn, &ev) == 0)
		;
}

int ms_left(Clock::time_point deadline)
{
	auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now())
			    .count();
	return static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
}

void close_connection(rpma_conn **conn)
{
	if (!*conn)
		return;
	rpma_conn_disconnect(*conn); // fails harmlessly on a dead one
	rpma_conn_delete(conn);
}

}
