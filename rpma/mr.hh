// SPDX-License-Identifier: BSD-3-Clause
// Memory regions: a local registration and the peer's view of one, which
// travels as a 21-byte little-endian descriptor (wire.hh).
#ifndef RPMA_MR_HH
#define RPMA_MR_HH

#include <cstddef>
#include <cstdint>

#include "mw.hh"
#include "verbs.hh"
#include "wire.hh"

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
	static constexpr size_t DESCRIPTOR_SIZE = wire::MR_DESCRIPTOR_SIZE;

	struct ForWindows {};

	// Registers [ptr, ptr + size) for the given usages, retrying with
	// On-Demand Paging where plain registration is not supported (FS DAX).
	// No usage, or a bit beyond RPMA_MR_USAGE_*, throws RPMA_E_INVAL.
	MrLocal(Peer &peer, void *ptr, size_t size, int usage);
	// Registers [ptr, ptr + size) for type 2 windows: the local rights of
	// `usage` and the right to bind windows, no remote right at all; the
	// remote usages in `usage` are what its windows may grant.
	// RPMA_E_NOSUPP where the device has no type 2 windows; RPMA_E_INVAL
	// for a usage as above or without a remote usage.
	MrLocal(Peer &peer, void *ptr, size_t size, int usage, ForWindows);
	MrLocal(const MrLocal &) = delete;
	MrLocal &operator=(const MrLocal &) = delete;
	~MrLocal() { release(); }

	void descriptor(void *desc) const noexcept;
	void *ptr() const noexcept { return mr_->addr; }
	size_t size() const noexcept { return mr_->length; }
	uint32_t lkey() const noexcept { return mr_->lkey; }
	uint64_t address() const noexcept { return reinterpret_cast<uintptr_t>(mr_->addr); }
	ibv_pd *pd() const noexcept { return mr_->pd; }
	ibv_mr *ibv() const noexcept { return mr_.get(); }
	int usage() const noexcept { return usage_; }
	bool for_windows() const noexcept { return for_windows_; }
	// The windows bound over the region (under lock_windows()).
	WindowSet &windows() const noexcept { return windows_; }
	// Whether one SGE can describe [offset, offset + len) of the region.
	bool holds(size_t offset, size_t len) const noexcept
	{
		return len <= MAX_SGE_LENGTH && inside(size(), offset, len);
	}

	// ibv_advise_mr() on [offset, offset + len): RPMA_E_INVAL for a range
	// that one SGE cannot describe or that the device refuses,
	// RPMA_E_NOSUPP where the device or rdma-core cannot advise.
	int advise(size_t offset, size_t len, int advice, uint32_t flags) const noexcept;

	// Ends the bindings of the windows over the region (a device refuses
	// to deregister a region under a bound window), then deregisters; 0 or
	// the provider's errno.
	int release() noexcept
	{
		windows_.invalidate_all();
		return mr_.reset();
	}

private:
	void register_region(Peer &peer, void *ptr, size_t size, int access);

	MrOwner mr_;
	int usage_;
	bool on_demand_ = false;
	bool for_windows_ = false;
	mutable WindowSet windows_;
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
