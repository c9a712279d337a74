// SPDX-License-Identifier: BSD-3-Clause
#include "mw.hh"

#include <algorithm>

#include "conn_queues.hh"
#include "error.hh"
#include "librpma.h"
#include "log.hh"
#include "mr.hh"
#include "peer.hh"

namespace rpma {

namespace {

MwOwner allocate(Peer &peer)
{
	errno = 0;
	MwOwner mw(ibv_alloc_mw(peer.pd(), IBV_MW_TYPE_2));
	if (!mw) {
		const int err = errno_or(EIO);
		if (err == ENOMEM)
			throw Error(RPMA_E_NOMEM);
		throw_provider("ibv_alloc_mw()", err);
	}
	return mw;
}

} // namespace

int window_usages() noexcept
{
	return RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
	       RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;
}

std::unique_lock<std::mutex> lock_windows()
{
	static std::mutex mutex;
	return std::unique_lock<std::mutex>(mutex);
}

void WindowSet::remove(Mw *mw) noexcept
{
	std::erase(windows_, mw);
}

void WindowSet::invalidate_all() noexcept
{
	const auto lock = lock_windows();
	// each invalidation removes the window from this set
	while (!windows_.empty())
		windows_.back()->invalidate();
}

Mw::Mw(Peer &peer) : peer_(peer)
{
	if (!peer.mw_type2_capable()) {
		RPMA_LOG_ERROR("%s has no type 2 memory windows", peer.context()->device->name);
		throw Error(RPMA_E_NOSUPP);
	}
	mw_ = allocate(peer);
}

void Mw::descriptor(void *desc) const noexcept
{
	wire::write_mr(desc, {address_, length_, rkey_, static_cast<uint8_t>(usage_)});
}

int Mw::reserve(ConnQueues &queues, const MrLocal &mr, size_t offset, size_t len,
		int usage) noexcept
{
	if (!mr.for_windows()) {
		RPMA_LOG_ERROR("the region was not registered for windows "
			       "(rpma_mr_reg_for_windows)");
		return RPMA_E_INVAL;
	}
	if (mr.pd() != peer_.pd() || queues.qp()->pd != peer_.pd()) {
		RPMA_LOG_ERROR("the window, the region and the connection are not of one peer");
		return RPMA_E_INVAL;
	}
	if (len == 0 || !inside(mr.size(), offset, len)) {
		RPMA_LOG_ERROR("the window's range is empty or not inside the region");
		return RPMA_E_INVAL;
	}
	if (usage == 0 || (usage & ~(mr.usage() & window_usages()))) {
		RPMA_LOG_ERROR("usage 0x%x is none or beyond what the region's windows may grant "
			       "(0x%x)",
			       usage, mr.usage() & window_usages());
		return RPMA_E_INVAL;
	}
	if (state_ == State::RESERVED) {
		RPMA_LOG_ERROR("the window is reserved by a connection request already");
		return RPMA_E_INVAL;
	}
	// A type 2 window is bound only while free (IBTA o10-37.2.40): a new
	// binding replaces the old one, whose key dies with the deallocation.
	invalidate();
	if (!mw_) {
		try {
			mw_ = allocate(peer_);
		} catch (const Error &error) {
			return error.code();
		}
	}
	queues_ = &queues;
	mr_ = &mr;
	address_ = mr.address() + offset;
	length_ = len;
	usage_ = usage;
	access_ = peer_.access_for(usage) & (IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	rkey_ = ibv_inc_rkey(mw_->rkey);
	try {
		queues.windows().add(this);
		try {
			mr.windows().add(this);
		} catch (...) {
			queues.windows().remove(this);
			throw;
		}
	} catch (const std::bad_alloc &) {
		queues_ = nullptr;
		mr_ = nullptr;
		return RPMA_E_NOMEM;
	}
	state_ = State::RESERVED;
	return 0;
}

void Mw::bind_request(ibv_send_wr &wr, unsigned send_flags, uint64_t wr_id) const noexcept
{
	wr = {};
	wr.wr_id = wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = send_flags;
	wr.bind_mw.mw = mw_.get();
	wr.bind_mw.rkey = rkey_;
	wr.bind_mw.bind_info.mr = mr_->ibv();
	wr.bind_mw.bind_info.addr = address_;
	wr.bind_mw.bind_info.length = length_;
	wr.bind_mw.bind_info.mw_access_flags = access_;
}

void Mw::posted() noexcept
{
	// the provider named the window by its old key in the request
	mw_->rkey = rkey_;
	state_ = State::BOUND;
}

void Mw::invalidate() noexcept
{
	if (state_ == State::UNBOUND)
		return;
	queues_->windows().remove(this);
	mr_->windows().remove(this);
	queues_ = nullptr;
	mr_ = nullptr;
	// A reserved window was never bound: the device's window is still free.
	if (state_ == State::BOUND) {
		if (int err = mw_.reset())
			provider_error("ibv_dealloc_mw()", err);
	}
	state_ = State::UNBOUND;
}

int Mw::release() noexcept
{
	{
		const auto lock = lock_windows();
		invalidate();
	}
	return mw_.reset();
}

} // namespace rpma
