// SPDX-License-Identifier: BSD-3-Clause
// A shared receive queue, optionally with a receive CQ that every connection
// using it reports its receives to.
#ifndef RPMA_SRQ_HH
#define RPMA_SRQ_HH

#include <cstdint>
#include <memory>

#include "cq.hh"
#include "librpma.h"
#include "mr.hh"
#include "verbs.hh"

namespace rpma {

class Peer;

class Srq {
public:
	Srq(Peer &peer, uint32_t rq_size, uint32_t rcq_size);

	ibv_srq *ibv() const noexcept { return srq_.get(); }
	Cq *rcq() const noexcept { return rcq_.get(); }

	// The caller checked that dst holds the range (MrLocal::holds).
	int recv(const MrLocal *dst, size_t offset, size_t len, const void *op_context) noexcept
	{
		ibv_sge sge;
		ibv_recv_wr wr{};
		wr.wr_id = reinterpret_cast<uintptr_t>(op_context);
		if (dst) {
			sge = {dst->address() + offset, static_cast<uint32_t>(len), dst->lkey()};
			wr.sg_list = &sge;
			wr.num_sge = 1;
		}
		ibv_recv_wr *bad = nullptr;
		if (int ret = ibv_post_srq_recv(srq_.get(), &wr, &bad)) [[unlikely]]
			return post_failure(ret);
		return 0;
	}

	// Destroys the receive CQ, then the SRQ; 0 or the first provider errno.
	int release() noexcept;

private:
	static int post_failure(int err) noexcept;

	std::unique_ptr<Cq> rcq_;
	SrqOwner srq_;
};

} // namespace rpma

#endif
