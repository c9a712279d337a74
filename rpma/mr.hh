// SPDX-License-Identifier: BSD-3-Clause
// Memory regions: a local registration and the peer's view of one, which
// travels as a 21-byte little-endian descriptor.
#ifndef RPMA_MR_HH
#define RPMA_MR_HH

#include <cstddef>
#include <cstdint>

#include "verbs.hh"

namespace rpma {

class Peer;

// Every RPMA_MR_USAGE_* bit; the descriptor keeps them in one byte.
inline constexpr int MR_USAGE_ALL = 0xff;

// A scatter/gather entry's length is 32-bit: a longer local range would be
// cut to its low 32 bits (4 GiB to a 0-byte request that succeeds).
inline constexpr size_t MAX_SGE_LENGTH = UINT32_MAX;

// Whether [offset, offset + len) lies inside `size` bytes, computed without
// a sum that could wrap around.
constexpr bool inside(uint64_t size, size_t offset, size_t len) noexcept
{
	return offset <= size && len <= size - offset;
}

class MrLocal {
public:
	static constexpr size_t DESCRIPTOR_SIZE = 21;

	// Registers [ptr, ptr + size) for the given usages, retrying with
	// On-Demand Paging where plain registration is not supported (FS DAX).
	// No usage, or a bit beyond RPMA_MR_USAGE_*, throws RPMA_E_INVAL.
	MrLocal(Peer &peer, void *ptr, size_t size, int usage);

	void descriptor(void *desc) const noexcept;
	void *ptr() const noexcept { return mr_->addr; }
	size_t size() const noexcept { return mr_->length; }
	uint32_t lkey() const noexcept { return mr_->lkey; }
	uint64_t address() const noexcept { return reinterpret_cast<uintptr_t>(mr_->addr); }
	ibv_pd *pd() const noexcept { return mr_->pd; }
	int usage() const noexcept { return usage_; }
	// Whether one SGE can describe [offset, offset + len) of the region.
	bool holds(size_t offset, size_t len) const noexcept
	{
		return len <= MAX_SGE_LENGTH && inside(size(), offset, len);
	}

	// ibv_advise_mr() on [offset, offset + len): RPMA_E_INVAL for a range
	// that one SGE cannot describe or that the device refuses,
	// RPMA_E_NOSUPP where the device or rdma-core cannot advise.
	int advise(size_t offset, size_t len, int advice, uint32_t flags) const noexcept;

	// Deregisters now; 0 or the provider's errno.
	int release() noexcept { return mr_.reset(); }

private:
	MrOwner mr_;
	int usage_;
	bool on_demand_ = false;
};

class MrRemote {
public:
	// Decodes the first 21 bytes of a descriptor (the caller checked the
	// size); a region with no usage throws RPMA_E_INVAL.
	static MrRemote from_descriptor(const void *desc);

	uint64_t address() const noexcept { return address_; }
	uint64_t size() const noexcept { return size_; }
	uint32_t rkey() const noexcept { return rkey_; }
	int usage() const noexcept { return usage_; }
	// Whether [offset, offset + len) lies inside the region as its owner
	// described it; the remote NIC refuses anything else.
	bool holds(size_t offset, size_t len) const noexcept { return inside(size_, offset, len); }

private:
	uint64_t address_ = 0;
	uint64_t size_ = 0;
	uint32_t rkey_ = 0;
	int usage_ = 0;
};

// Whether a transfer between [local_offset, +len) of local and
// [remote_offset, +len) of remote may be posted: both regions hold their
// range, or neither is given and nothing moves (a 0-byte operation that
// still completes).
inline bool transfer_fits(const MrLocal *local, size_t local_offset, const MrRemote *remote,
			  size_t remote_offset, size_t len) noexcept
{
	if (local && remote)
		return local->holds(local_offset, len) && remote->holds(remote_offset, len);
	return !local && !remote && local_offset == 0 && remote_offset == 0 && len == 0;
}

// Whether a message of [offset, +len) of mr may be posted: a buffer may be
// absent only for an empty message.
inline bool message_fits(const MrLocal *mr, size_t offset, size_t len) noexcept
{
	return mr ? mr->holds(offset, len) : offset == 0 && len == 0;
}

} // namespace rpma

#endif
