// SPDX-License-Identifier: BSD-3-Clause
// Ownership of rdma-core resources. Each handle is destroyed exactly once:
// by reset(), which reports the provider's errno so that the delete calls
// can return RPMA_E_PROVIDER, or by the destructor on unwinding paths.
#ifndef RPMA_VERBS_HH
#define RPMA_VERBS_HH

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <cerrno>
#include <mutex>
#include <type_traits>
#include <utility>

namespace rpma {

// Destroy is an rdma-core function releasing T*: returning void, an errno
// value (ibv_destroy_*) or -1 with errno set (rdma_destroy_id).
template <typename T, auto Destroy> class Owner {
public:
	Owner() noexcept = default;
	explicit Owner(T *handle) noexcept : handle_(handle) {}
	Owner(Owner &&other) noexcept : handle_(other.release()) {}
	Owner &operator=(Owner &&other) noexcept
	{
		if (this != &other) {
			reset();
			handle_ = other.release();
		}
		return *this;
	}
	Owner(const Owner &) = delete;
	Owner &operator=(const Owner &) = delete;
	~Owner() { reset(); }

	T *get() const noexcept { return handle_; }
	T *operator->() const noexcept { return handle_; }
	explicit operator bool() const noexcept { return handle_ != nullptr; }
	T *release() noexcept { return std::exchange(handle_, nullptr); }

	// Destroys the handle now; 0 or the errno of the failure.
	int reset() noexcept
	{
		T *handle = release();
		if (!handle)
			return 0;
		if constexpr (std::is_void_v<decltype(Destroy(handle))>) {
			Destroy(handle);
			return 0;
		} else {
			errno = 0;
			int ret = Destroy(handle);
			if (ret == 0)
				return 0;
			return ret > 0 ? ret : (errno ? errno : EIO);
		}
	}

private:
	T *handle_ = nullptr;
};

using PdOwner = Owner<ibv_pd, ibv_dealloc_pd>;
using MrOwner = Owner<ibv_mr, ibv_dereg_mr>;
using CqOwner = Owner<ibv_cq, ibv_destroy_cq>;
using CompChannelOwner = Owner<ibv_comp_channel, ibv_destroy_comp_channel>;
using SrqOwner = Owner<ibv_srq, ibv_destroy_srq>;
// ibv_dealloc_mw is static inline: a handle type naming it would have
// internal linkage in every header that used it.
inline int dealloc_mw(ibv_mw *mw)
{
	return ibv_dealloc_mw(mw);
}
using MwOwner = Owner<ibv_mw, dealloc_mw>;
// The lock of every librdmacm call of rpma's that changes the library's
// process-wide state: ids made and destroyed, addresses resolved, event
// channels made (cm_id.cc says why).
[[nodiscard]] std::unique_lock<std::mutex> lock_librdmacm();
// rdma_destroy_id() under lock_librdmacm(); -1 with errno set on failure.
int destroy_cm_id(rdma_cm_id *id) noexcept;
using CmIdOwner = Owner<rdma_cm_id, destroy_cm_id>;
// A new id of the TCP port space (upstream's), on `channel` or, when NULL,
// for synchronous use; throws RPMA_E_PROVIDER.
CmIdOwner create_cm_id(rdma_event_channel *channel);
using EventChannelOwner = Owner<rdma_event_channel, rdma_destroy_event_channel>;
// A new CM event channel; throws RPMA_E_PROVIDER.
EventChannelOwner create_event_channel();
using AddrInfoOwner = Owner<rdma_addrinfo, rdma_freeaddrinfo>;

// The QP of a CM id lives in the id (id->qp) and is destroyed through it.
inline void destroy_qp_of(rdma_cm_id *id)
{
	rdma_destroy_qp(id);
}
using QpOwner = Owner<rdma_cm_id, destroy_qp_of>;

// Acknowledges a CM event when it goes out of scope, so that every exit path
// acks exactly once (rdma_destroy_id waits for unacked events).
class CmEvent {
public:
	CmEvent() noexcept = default;
	CmEvent(const CmEvent &) = delete;
	CmEvent &operator=(const CmEvent &) = delete;
	~CmEvent() { ack(); }

	rdma_cm_event **out() noexcept { return &event_; }
	rdma_cm_event *operator->() const noexcept { return event_; }

	// 0 or the errno of a failed ack.
	int ack() noexcept
	{
		rdma_cm_event *event = std::exchange(event_, nullptr);
		if (!event || rdma_ack_cm_event(event) == 0)
			return 0;
		return errno ? errno : EIO;
	}

private:
	rdma_cm_event *event_ = nullptr;
};

// Takes the next event of a CM event channel. 0, RPMA_E_NO_EVENT when none
// is pending on a non-blocking channel, or RPMA_E_PROVIDER.
int next_cm_event(rdma_event_channel *channel, CmEvent &event) noexcept;

// The same for the channel of a listening id, whose events make ids (the
// incoming requests'): the event is taken under lock_librdmacm()
// (cm_id.cc). On a blocking channel it waits for one, without the lock.
int next_listening_event(rdma_event_channel *channel, CmEvent &event) noexcept;

} // namespace rpma

#endif
