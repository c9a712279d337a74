// SPDX-License-Identifier: BSD-3-Clause
#include "srq.hh"

#include "error.hh"
#include "peer.hh"

namespace rpma {

Srq::Srq(Peer &peer, uint32_t rq_size, uint32_t rcq_size)
{
	ibv_srq_init_attr attr{};
	attr.attr.max_wr = rq_size;
	attr.attr.max_sge = 1;
	errno = 0;
	srq_ = SrqOwner(ibv_create_srq(peer.pd(), &attr));
	if (!srq_)
		throw_provider("ibv_create_srq()", errno_or(EIO));
	if (rcq_size > 0)
		rcq_ = std::make_unique<Cq>(peer.context(), rcq_size, nullptr);
}

int Srq::post_failure(int err) noexcept
{
	return provider_error("ibv_post_srq_recv()", err);
}

int Srq::release() noexcept
{
	int ret = rcq_ ? rcq_->release() : 0;
	if (int srq_ret = srq_.reset(); !ret)
		ret = srq_ret;
	return ret;
}

} // namespace rpma
