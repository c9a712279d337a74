// SPDX-License-Identifier: BSD-3-Clause
#include <mutex>

#include "error.hh"
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

} // namespace rpma
