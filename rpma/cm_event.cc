// SPDX-License-Identifier: BSD-3-Clause
#include "error.hh"
#include "verbs.hh"

namespace rpma {

int next_cm_event(rdma_event_channel *channel, CmEvent &event) noexcept
{
	errno = 0;
	if (rdma_get_cm_event(channel, event.out()) == 0)
		return 0;
	const int err = errno_or(EIO);
	// librdmacm reports an empty non-blocking channel as EAGAIN, not the
	// ENODATA upstream librpma looked for; both mean "no event yet".
	if (err == ENODATA || err == EAGAIN || err == EWOULDBLOCK)
		return RPMA_E_NO_EVENT;
	return provider_error("rdma_get_cm_event()", err);
}

} // namespace rpma
