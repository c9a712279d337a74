// SPDX-License-Identifier: BSD-3-Clause
// Type 2 memory windows, an extension beyond upstream librpma (version node
// LIBRPMA_EXT_1.0, docs/compatibility.md, "Memory windows"). A window opens
// a range of a region registered for windows (which grants no remote access
// by its own key) to the peer of one queue pair: the NIC honours its key on
// that queue pair alone.
//
// Who owns what: the application owns the window, the region and the
// connection, and deletes them in any order. A window records the queue
// pair and the region it is bound to, and they record it: whichever of the
// three goes first ends the binding (the window's key is dead from then on),
// and the window may be bound again. That bookkeeping is control path, under
// one lock (lock_windows()); the data path never takes it.
#ifndef RPMA_MW_HH
#define RPMA_MW_HH

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "verbs.hh"

namespace rpma {

class ConnQueues;
class MrLocal;
class Mw;
class Peer;

// The usages a window may grant: those a remote peer exercises.
int window_usages() noexcept;

// The lock of every window's bindings and of the sets below.
[[nodiscard]] std::unique_lock<std::mutex> lock_windows();

// The windows bound (or reserved for a binding) on one queue pair, or over
// one region. Used under lock_windows().
class WindowSet {
public:
	WindowSet() = default;
	WindowSet(const WindowSet &) = delete;
	WindowSet &operator=(const WindowSet &) = delete;

	void add(Mw *mw) { windows_.push_back(mw); }
	void remove(Mw *mw) noexcept;
	bool empty() const noexcept { return windows_.empty(); }
	const std::vector<Mw *> &windows() const noexcept { return windows_; }
	// Ends every binding of the set; takes lock_windows() itself.
	void invalidate_all() noexcept;

private:
	std::vector<Mw *> windows_;
};

class Mw {
public:
	// Allocates a type 2 window in the peer's protection domain;
	// RPMA_E_NOSUPP where the device has none.
	explicit Mw(Peer &peer);
	Mw(const Mw &) = delete;
	Mw &operator=(const Mw &) = delete;
	~Mw() { release(); }

	// Under lock_windows(). Whether a binding is reserved or posted, and so
	// a descriptor exists.
	bool described() const noexcept { return state_ != State::UNBOUND; }
	bool reserved() const noexcept { return state_ == State::RESERVED; }
	// The descriptor of the binding, in rpma_mr_get_descriptor()'s format.
	void descriptor(void *desc) const noexcept;

	// Under lock_windows(). Reserves the window for a binding on `queues`
	// over [offset, offset + len) of `mr` granting `usage` and chooses the
	// key it will have; a window bound elsewhere is invalidated first.
	// RPMA_E_INVAL: a region not registered for windows, another protection
	// domain, an empty range or one outside the region, a usage that is
	// none or beyond the region's, a window reserved by a request already.
	int reserve(ConnQueues &queues, const MrLocal &mr, size_t offset, size_t len,
		    int usage) noexcept;
	// The bind work request of the reserved binding.
	void bind_request(ibv_send_wr &wr, unsigned send_flags, uint64_t wr_id) const noexcept;
	// The bind request was posted: the window carries its new key.
	void posted() noexcept;
	// Ends the binding or the reservation: a bound window is deallocated
	// (its key dies with it; a new one is allocated at the next bind).
	void invalidate() noexcept;

	// Ends any binding and frees the window; 0 or the provider's errno.
	int release() noexcept;

private:
	enum class State { UNBOUND, RESERVED, BOUND };

	Peer &peer_;
	MwOwner mw_;
	State state_ = State::UNBOUND;
	ConnQueues *queues_ = nullptr;
	const MrLocal *mr_ = nullptr;
	uint64_t address_ = 0;
	uint64_t length_ = 0;
	uint32_t rkey_ = 0; // the key of the binding reserved or posted
	int usage_ = 0;
	unsigned access_ = 0;
};

} // namespace rpma

#endif
