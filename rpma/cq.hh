// SPDX-License-Identifier: BSD-3-Clause
// A completion queue with its completion channel, which is either its own
// or shared with the other CQ of the same connection.
#ifndef RPMA_CQ_HH
#define RPMA_CQ_HH

#include <infiniband/verbs.h>

#include <cstdint>

#include "librpma.h"
#include "verbs.hh"

namespace rpma {

class Cq {
public:
	// Creates the CQ on `shared_channel`, or on a channel of its own when
	// that is null, and arms it.
	Cq(ibv_context *context, uint32_t size, ibv_comp_channel *shared_channel);

	ibv_cq *ibv() const noexcept { return cq_.get(); }
	int fd() const noexcept { return channel_->fd; }
	bool shared_channel() const noexcept { return !own_channel_; }

	// Blocks for the next completion event, acknowledges it and re-arms.
	int wait() noexcept;

	// Re-arms after an event taken from a shared channel.
	int arm() noexcept;

	// Takes the completion event that completions the library consumed
	// itself left on the channel (ConnReq::connect's binds), if one comes
	// within timeout_ms, so that the application's next wait is for its
	// own; acknowledges it and re-arms.
	void take_internal_event(int timeout_ms) noexcept;

	int get_wc(int num_entries, ibv_wc *wc, int *num_entries_got) noexcept
	{
		int got = ibv_poll_cq(cq_.get(), num_entries, wc);
		if (got > 0 && got <= num_entries) [[likely]] {
			if (num_entries_got)
				*num_entries_got = got;
			return 0;
		}
		return got == 0 ? RPMA_E_NO_COMPLETION : poll_failure(got);
	}

	// Destroys the CQ, then its own channel; 0 or the first provider errno.
	int release() noexcept;

private:
	int poll_failure(int got) noexcept;

	CompChannelOwner own_channel_;
	ibv_comp_channel *channel_;
	CqOwner cq_;
};

} // namespace rpma

#endif
