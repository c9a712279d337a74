// SPDX-License-Identifier: BSD-3-Clause
#include "cq.hh"

#include <poll.h>

#include <climits>

#include "error.hh"
#include "log.hh"

namespace rpma {

Cq::Cq(ibv_context *context, uint32_t size, ibv_comp_channel *shared_channel)
	: channel_(shared_channel)
{
	if (!channel_) {
		errno = 0;
		own_channel_ = CompChannelOwner(ibv_create_comp_channel(context));
		if (!own_channel_)
			throw_provider("ibv_create_comp_channel()", errno_or(EIO));
		channel_ = own_channel_.get();
	}
	// ibv_create_cq takes an int
	const int cqe = size > INT_MAX ? INT_MAX : static_cast<int>(size);
	errno = 0;
	cq_ = CqOwner(ibv_create_cq(context, cqe, nullptr, channel_, 0));
	if (!cq_)
		throw_provider("ibv_create_cq()", errno_or(EIO));
	if (int ret = ibv_req_notify_cq(cq_.get(), 0))
		throw_provider("ibv_req_notify_cq()", ret);
}

int Cq::arm() noexcept
{
	if (int ret = ibv_req_notify_cq(cq_.get(), 0))
		return provider_error("ibv_req_notify_cq()", ret);
	return 0;
}

int Cq::wait() noexcept
{
	if (shared_channel())
		return RPMA_E_SHARED_CHANNEL;
	ibv_cq *event_cq = nullptr;
	void *event_context = nullptr;
	if (ibv_get_cq_event(channel_, &event_cq, &event_context))
		return RPMA_E_NO_COMPLETION;
	ibv_ack_cq_events(event_cq, 1);
	return arm();
}

void Cq::take_internal_event(int timeout_ms) noexcept
{
	pollfd pfd{channel_->fd, POLLIN, 0};
	if (poll(&pfd, 1, timeout_ms) != 1 || !(pfd.revents & POLLIN))
		return;
	ibv_cq *event_cq = nullptr;
	void *event_context = nullptr;
	if (ibv_get_cq_event(channel_, &event_cq, &event_context))
		return;
	ibv_ack_cq_events(event_cq, 1);
	if (int ret = ibv_req_notify_cq(event_cq, 0))
		provider_error("ibv_req_notify_cq()", ret);
}

int Cq::poll_failure(int got) noexcept
{
	if (got < 0)
		return provider_error("ibv_poll_cq()", -got);
	RPMA_LOG_ERROR("ibv_poll_cq() returned more completions than asked for: %d", got);
	return RPMA_E_UNKNOWN;
}

int Cq::release() noexcept
{
	int ret = cq_.reset();
	if (int channel_ret = own_channel_.reset(); !ret)
		ret = channel_ret;
	return ret;
}

} // namespace rpma
