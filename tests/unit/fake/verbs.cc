// SPDX-License-Identifier: BSD-3-Clause
// libibverbs' exported functions. Failures follow each function's own
// convention; destroying an object that others still use fails with EBUSY
// as a kernel would, while an injected failure of a destroy call still frees
// the object (the caller cannot do anything else with it).
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>

#include "state.hh"

using namespace fake;
using namespace fake::detail;

namespace {

template <typename T> T *fail_null(int err)
{
	errno = err;
	return nullptr;
}

template <typename T, typename Extra>
bool known(Registry<T, Extra> &registry, const T *handle, const char *call)
{
	if (registry.has(handle))
		return true;
	misuse(std::string(call) + " of an unknown or freed " + registry.kind());
	return false;
}

// libibverbs' fork protection (fake::set_fork_protection): advice for every
// page [addr, addr + length) touches.
void advise_pages(void *addr, size_t length, int advice)
{
	if (!state().fork_protection || length == 0)
		return;
	const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
	const uintptr_t first = reinterpret_cast<uintptr_t>(addr) & ~(page - 1);
	const uintptr_t end = (reinterpret_cast<uintptr_t>(addr) + length + page - 1) & ~(page - 1);
	if (madvise(reinterpret_cast<void *>(first), end - first, advice))
		misuse("madvise() of a registered range failed");
}

ibv_mr *register_mr(ibv_pd *pd, void *addr, size_t length, unsigned access)
{
	State &s = state();
	if (!known(s.pds, pd, "ibv_reg_mr"))
		return fail_null<ibv_mr>(EINVAL);
	s.registrations.push_back({nullptr, pd, addr, length, access});
	if (auto err = enter(Call::ibv_reg_mr))
		return fail_null<ibv_mr>(*err);
	ibv_mr *mr = s.mrs.make();
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->handle = next_handle();
	mr->lkey = s.keys_override ? s.next_lkey : 0x1000 + mr->handle;
	mr->rkey = s.keys_override ? s.next_rkey : 0x2000 + mr->handle;
	s.keys_override = false;
	s.registrations.back().mr = mr;
	advise_pages(addr, length, MADV_DONTFORK);
	return mr;
}

} // namespace

extern "C" {

int ibv_query_device(ibv_context *, ibv_device_attr *device_attr)
{
	// reached only when the extended query reports itself unsupported
	*device_attr = state().attr.orig_attr;
	return 0;
}

ibv_pd *ibv_alloc_pd(ibv_context *context)
{
	State &s = state();
	if (context != fake::context())
		misuse("ibv_alloc_pd on an unknown context");
	if (auto err = enter(Call::ibv_alloc_pd))
		return fail_null<ibv_pd>(*err);
	ibv_pd *pd = s.pds.make();
	pd->context = context;
	pd->handle = next_handle();
	return pd;
}

int ibv_dealloc_pd(ibv_pd *pd)
{
	State &s = state();
	if (!known(s.pds, pd, "ibv_dealloc_pd"))
		return EINVAL;
	if (auto err = enter(Call::ibv_dealloc_pd)) {
		s.pds.drop(pd);
		return *err;
	}
	auto uses = [pd](const auto &object, const auto &) { return object.pd == pd; };
	auto qp_uses = [pd](const ibv_qp_ex &qpx, const QpExtra &) { return qpx.qp_base.pd == pd; };
	if (s.mrs.count_if(uses) || s.srqs.count_if(uses) || s.qps.count_if(qp_uses) ||
	    s.mws.count_if(uses))
		return EBUSY;
	s.pds.drop(pd);
	return 0;
}

ibv_mr *(ibv_reg_mr)(ibv_pd *pd, void *addr, size_t length, int access)
{
	return register_mr(pd, addr, length, static_cast<unsigned>(access));
}

ibv_mr *ibv_reg_mr_iova2(ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned access)
{
	if (iova != reinterpret_cast<uintptr_t>(addr))
		misuse("ibv_reg_mr_iova2 with an iova other than the address");
	return register_mr(pd, addr, length, access);
}

int ibv_modify_qp(ibv_qp *qp, ibv_qp_attr *attr, int attr_mask)
{
	State &s = state();
	auto *qpx = reinterpret_cast<ibv_qp_ex *>(qp);
	if (!known(s.qps, qpx, "ibv_modify_qp"))
		return EINVAL;
	s.qp_modifies.push_back({qp, *attr, attr_mask});
	if (auto err = enter(Call::ibv_modify_qp))
		return *err;
	// the kernel refuses mask bits beyond the standard ones (IB_QP_ATTR_STANDARD_BITS)
	if (attr_mask & ~((1 << 21) - 1)) {
		misuse("ibv_modify_qp with attribute mask bits beyond the standard ones");
		return EINVAL;
	}
	if (!(attr_mask & IBV_QP_STATE))
		return 0;
	ibv_qp_state &now = s.qps.extra(qpx).qp_state;
	const ibv_qp_state to = attr->qp_state;
	const bool allowed = (now == IBV_QPS_INIT && (to == IBV_QPS_INIT || to == IBV_QPS_RTR)) ||
			     (now == IBV_QPS_RTR && to == IBV_QPS_RTS) || to == IBV_QPS_ERR;
	if (!allowed) {
		misuse("ibv_modify_qp from state " + std::to_string(now) + " to " +
		       std::to_string(to));
		return EINVAL;
	}
	now = to;
	return 0;
}

int ibv_dereg_mr(ibv_mr *mr)
{
	State &s = state();
	if (!known(s.mrs, mr, "ibv_dereg_mr"))
		return EINVAL;
	auto err = enter(Call::ibv_dereg_mr);
	// rxe refuses while a window is bound over the region
	if (!err && s.mws.count_if([mr](const ibv_mw &, const MwExtra &extra) {
		    return extra.bound_mr == mr;
	    }))
		return EBUSY;
	advise_pages(mr->addr, mr->length, MADV_DOFORK);
	s.mrs.drop(mr);
	return err.value_or(0);
}

ibv_comp_channel *ibv_create_comp_channel(ibv_context *context)
{
	State &s = state();
	if (context != fake::context())
		misuse("ibv_create_comp_channel on an unknown context");
	if (auto err = enter(Call::ibv_create_comp_channel))
		return fail_null<ibv_comp_channel>(*err);
	ibv_comp_channel *channel = s.comp_channels.make();
	channel->context = context;
	channel->fd = 500 + static_cast<int>(next_handle());
	s.comp_channel_list.push_back(channel);
	return channel;
}

int ibv_destroy_comp_channel(ibv_comp_channel *channel)
{
	State &s = state();
	if (!known(s.comp_channels, channel, "ibv_destroy_comp_channel"))
		return EINVAL;
	if (auto err = enter(Call::ibv_destroy_comp_channel)) {
		s.comp_channels.drop(channel);
		return *err;
	}
	if (s.cqs.count_if(
		    [channel](const ibv_cq &cq, const CqExtra &) { return cq.channel == channel; }))
		return EBUSY;
	s.comp_channels.drop(channel);
	return 0;
}

ibv_cq *ibv_create_cq(ibv_context *context, int cqe, void *cq_context, ibv_comp_channel *channel,
		      int comp_vector)
{
	State &s = state();
	if (context != fake::context())
		misuse("ibv_create_cq on an unknown context");
	if (channel && !known(s.comp_channels, channel, "ibv_create_cq"))
		return fail_null<ibv_cq>(EINVAL);
	s.cq_creations.push_back({nullptr, cqe, cq_context, channel, comp_vector});
	if (auto err = enter(Call::ibv_create_cq))
		return fail_null<ibv_cq>(*err);
	if (cqe < 1)
		return fail_null<ibv_cq>(EINVAL);
	ibv_cq *cq = s.cqs.make();
	cq->context = context;
	cq->channel = channel;
	cq->cq_context = cq_context;
	cq->cqe = cqe;
	cq->handle = next_handle();
	s.cq_creations.back().cq = cq;
	return cq;
}

int ibv_destroy_cq(ibv_cq *cq)
{
	State &s = state();
	if (!known(s.cqs, cq, "ibv_destroy_cq"))
		return EINVAL;
	s.cq_calls.push_back({Call::ibv_destroy_cq, cq, 0});
	if (s.cqs.extra(cq).unacked_events)
		misuse("ibv_destroy_cq with unacknowledged events (rdma-core would wait forever)");
	if (auto err = enter(Call::ibv_destroy_cq)) {
		s.cqs.drop(cq);
		return *err;
	}
	auto qp_uses = [cq](const ibv_qp_ex &qpx, const QpExtra &) {
		return qpx.qp_base.send_cq == cq || qpx.qp_base.recv_cq == cq;
	};
	if (s.qps.count_if(qp_uses))
		return EBUSY;
	s.cqs.drop(cq);
	return 0;
}

int ibv_get_cq_event(ibv_comp_channel *channel, ibv_cq **cq, void **cq_context)
{
	State &s = state();
	if (!known(s.comp_channels, channel, "ibv_get_cq_event")) {
		errno = EINVAL;
		return -1;
	}
	if (auto err = enter(Call::ibv_get_cq_event)) {
		errno = *err;
		return -1;
	}
	for (auto it = s.cq_events.begin(); it != s.cq_events.end(); ++it) {
		if (!s.cqs.has(*it) || (*it)->channel != channel)
			continue;
		ibv_cq *fired = *it;
		s.cq_events.erase(it);
		++s.cqs.extra(fired).unacked_events;
		s.cq_calls.push_back({Call::ibv_get_cq_event, fired, 0});
		*cq = fired;
		*cq_context = fired->cq_context;
		return 0;
	}
	// as on a non-blocking channel with nothing pending
	errno = EAGAIN;
	return -1;
}

void ibv_ack_cq_events(ibv_cq *cq, unsigned int nevents)
{
	State &s = state();
	if (!known(s.cqs, cq, "ibv_ack_cq_events"))
		return;
	enter(Call::ibv_ack_cq_events);
	s.cq_calls.push_back({Call::ibv_ack_cq_events, cq, static_cast<int>(nevents)});
	unsigned &unacked = s.cqs.extra(cq).unacked_events;
	if (nevents > unacked) {
		misuse("ibv_ack_cq_events acknowledges more events than were got");
		unacked = 0;
		return;
	}
	unacked -= nevents;
}

ibv_srq *ibv_create_srq(ibv_pd *pd, ibv_srq_init_attr *attr)
{
	State &s = state();
	if (!known(s.pds, pd, "ibv_create_srq"))
		return fail_null<ibv_srq>(EINVAL);
	s.srq_creations.push_back({nullptr, pd, *attr});
	if (auto err = enter(Call::ibv_create_srq))
		return fail_null<ibv_srq>(*err);
	ibv_srq *srq = s.srqs.make();
	srq->context = pd->context;
	srq->pd = pd;
	srq->srq_context = attr->srq_context;
	srq->handle = next_handle();
	s.srq_creations.back().srq = srq;
	return srq;
}

int ibv_destroy_srq(ibv_srq *srq)
{
	State &s = state();
	if (!known(s.srqs, srq, "ibv_destroy_srq"))
		return EINVAL;
	if (auto err = enter(Call::ibv_destroy_srq)) {
		s.srqs.drop(srq);
		return *err;
	}
	if (s.qps.count_if([srq](const ibv_qp_ex &qpx, const QpExtra &) {
		    return qpx.qp_base.srq == srq;
	    }))
		return EBUSY;
	s.srqs.drop(srq);
	return 0;
}

} // extern "C"
