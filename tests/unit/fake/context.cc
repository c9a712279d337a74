// SPDX-License-Identifier: BSD-3-Clause
// The device context and what rdma-core's inline functions reach through it:
// the data-path table (context->ops) and the extended verbs_context, which
// rdma-core lays out just before the ibv_context it hands out.
#include <cstring>

#include "state.hh"

namespace fake::detail {

namespace {

std::vector<uint8_t> inline_bytes(const ibv_send_wr &wr)
{
	std::vector<uint8_t> data;
	for (int i = 0; i < wr.num_sge; ++i) {
		const auto *from = reinterpret_cast<const uint8_t *>(wr.sg_list[i].addr);
		data.insert(data.end(), from, from + wr.sg_list[i].length);
	}
	return data;
}

size_t chain_length(const ibv_send_wr *wr)
{
	size_t n = 0;
	for (; wr; wr = wr->next)
		++n;
	return n;
}

size_t chain_length(const ibv_recv_wr *wr)
{
	size_t n = 0;
	for (; wr; wr = wr->next)
		++n;
	return n;
}

// What a provider checks before queueing a send: the QP's capabilities.
int check_send(const ibv_qp_cap &cap, const ibv_send_wr &wr)
{
	if (wr.num_sge < 0 || static_cast<uint32_t>(wr.num_sge) > cap.max_send_sge) {
		misuse("ibv_post_send with more sges than the QP's max_send_sge");
		return EINVAL;
	}
	if ((wr.send_flags & IBV_SEND_INLINE) && inline_bytes(wr).size() > cap.max_inline_data) {
		misuse("ibv_post_send with more inline bytes than the QP's max_inline_data");
		return EINVAL;
	}
	return 0;
}

bool registered_for_binding(const ibv_mr *mr)
{
	const auto &regs = state().registrations;
	for (auto reg = regs.rbegin(); reg != regs.rend(); ++reg)
		if (reg->mr == mr)
			return reg->access & IBV_ACCESS_MW_BIND;
	return false;
}

// What a provider checks before queueing a bind of a type 2 window: the QP
// is ready to send (RTS) and of the window's domain, the region was
// registered for binding and holds the range.
int check_bind(ibv_qp *qp, ibv_qp_state qp_state, const ibv_send_wr &wr)
{
	State &s = state();
	if (wr.opcode != IBV_WR_BIND_MW)
		return 0;
	const ibv_mw *mw = wr.bind_mw.mw;
	const ibv_mr *mr = wr.bind_mw.bind_info.mr;
	if (!s.mws.has(mw) || !s.mrs.has(mr)) {
		misuse("a bind of an unknown window or region");
		return EINVAL;
	}
	if (qp_state != IBV_QPS_RTS) {
		misuse("a bind posted on a QP that is not in RTS");
		return EINVAL;
	}
	const auto begin = reinterpret_cast<uintptr_t>(mr->addr);
	const ibv_mw_bind_info &info = wr.bind_mw.bind_info;
	if (mw->pd != qp->pd || mr->pd != qp->pd || !registered_for_binding(mr) ||
	    info.length == 0 || info.addr < begin || info.addr + info.length > begin + mr->length) {
		misuse("a bind that a device refuses (domain, region's rights or range)");
		return EINVAL;
	}
	return 0;
}

int post_send(ibv_qp *qp, ibv_send_wr *wr, ibv_send_wr **bad_wr)
{
	State &s = state();
	auto *qpx = reinterpret_cast<ibv_qp_ex *>(qp);
	if (!s.qps.has(qpx)) {
		misuse("ibv_post_send on an unknown QP");
		return EINVAL;
	}
	int err = enter(Call::ibv_post_send).value_or(0);
	for (const ibv_send_wr *w = wr; !err && w; w = w->next)
		err = check_send(s.qps.extra(qpx).cap, *w);
	for (const ibv_send_wr *w = wr; !err && w; w = w->next)
		err = check_bind(qp, s.qps.extra(qpx).qp_state, *w);
	if (err) {
		*bad_wr = wr;
		return err;
	}
	const size_t length = chain_length(wr);
	for (const ibv_send_wr *w = wr; w; w = w->next) {
		SendWr rec{};
		rec.qp = qp;
		rec.wr_id = w->wr_id;
		rec.opcode = w->opcode;
		rec.send_flags = w->send_flags;
		rec.imm_data = w->imm_data;
		rec.remote_addr = w->wr.rdma.remote_addr;
		rec.rkey = w->wr.rdma.rkey;
		rec.sges = copy_sges(w->sg_list, w->num_sge);
		if (w->send_flags & IBV_SEND_INLINE)
			rec.data = inline_bytes(*w);
		rec.chain_length = w == wr ? length : 0;
		if (w->opcode == IBV_WR_BIND_MW) {
			rec.remote_addr = 0;
			rec.rkey = 0;
			rec.bind_mw = w->bind_mw.mw;
			rec.bind_rkey = w->bind_mw.rkey;
			rec.bind_info = w->bind_mw.bind_info;
			MwExtra &extra = s.mws.extra(w->bind_mw.mw);
			extra.bound_qp = qp;
			extra.bound_mr = w->bind_mw.bind_info.mr;
		}
		s.sends.push_back(std::move(rec));
	}
	return 0;
}

void record_recvs(ibv_qp *qp, ibv_srq *srq, const ibv_recv_wr *wr)
{
	const size_t length = chain_length(wr);
	for (const ibv_recv_wr *w = wr; w; w = w->next)
		state().recvs.push_back({qp, srq, w->wr_id, copy_sges(w->sg_list, w->num_sge),
					 w == wr ? length : 0});
}

int post_recv(ibv_qp *qp, ibv_recv_wr *wr, ibv_recv_wr **bad_wr)
{
	State &s = state();
	if (!s.qps.has(reinterpret_cast<ibv_qp_ex *>(qp))) {
		misuse("ibv_post_recv on an unknown QP");
		return EINVAL;
	}
	int err = enter(Call::ibv_post_recv).value_or(0);
	// receives of a QP attached to an SRQ are posted to the SRQ
	if (!err && qp->srq)
		err = EINVAL;
	if (err) {
		*bad_wr = wr;
		return err;
	}
	record_recvs(qp, nullptr, wr);
	return 0;
}

int post_srq_recv(ibv_srq *srq, ibv_recv_wr *wr, ibv_recv_wr **bad_wr)
{
	if (!state().srqs.has(srq)) {
		misuse("ibv_post_srq_recv on an unknown SRQ");
		return EINVAL;
	}
	if (auto err = enter(Call::ibv_post_srq_recv)) {
		*bad_wr = wr;
		return *err;
	}
	record_recvs(nullptr, srq, wr);
	return 0;
}

int poll_cq(ibv_cq *cq, int num_entries, ibv_wc *wc)
{
	State &s = state();
	if (!s.cqs.has(cq)) {
		misuse("ibv_poll_cq on an unknown CQ");
		return -EINVAL;
	}
	s.cq_calls.push_back({Call::ibv_poll_cq, cq, num_entries});
	if (auto err = enter(Call::ibv_poll_cq))
		return -*err;
	if (s.poll_override) {
		s.poll_override = false;
		return s.poll_result;
	}
	auto &queued = s.cqs.extra(cq).wcs;
	int n = 0;
	for (; n < num_entries && !queued.empty(); ++n) {
		wc[n] = queued.front();
		queued.pop_front();
	}
	return n;
}

int req_notify_cq(ibv_cq *cq, int solicited_only)
{
	State &s = state();
	if (!s.cqs.has(cq)) {
		misuse("ibv_req_notify_cq on an unknown CQ");
		return EINVAL;
	}
	s.cq_calls.push_back({Call::ibv_req_notify_cq, cq, solicited_only});
	return enter(Call::ibv_req_notify_cq).value_or(0);
}

int query_device_ex(ibv_context *context, const ibv_query_device_ex_input *,
		    ibv_device_attr_ex *attr, size_t attr_size)
{
	if (context != fake::context())
		misuse("ibv_query_device_ex on an unknown context");
	if (auto err = enter(Call::ibv_query_device_ex))
		return *err;
	std::memcpy(attr, &state().attr, std::min(attr_size, sizeof(*attr)));
	return 0;
}

int advise_mr(ibv_pd *pd, ibv_advise_mr_advice advice, uint32_t flags, ibv_sge *sg_list,
	      uint32_t num_sge)
{
	State &s = state();
	if (!s.pds.has(pd)) {
		misuse("ibv_advise_mr with an unknown PD");
		return EINVAL;
	}
	s.advices.push_back({pd, advice, flags, std::vector<ibv_sge>(sg_list, sg_list + num_sge)});
	return enter(Call::ibv_advise_mr).value_or(0);
}

ibv_mw *alloc_mw(ibv_pd *pd, ibv_mw_type type)
{
	State &s = state();
	if (!s.pds.has(pd)) {
		misuse("ibv_alloc_mw of an unknown PD");
		errno = EINVAL;
		return nullptr;
	}
	if (auto err = enter(Call::ibv_alloc_mw)) {
		errno = *err;
		return nullptr;
	}
	ibv_mw *mw = s.mws.make();
	mw->context = pd->context;
	mw->pd = pd;
	mw->type = type;
	mw->handle = next_handle();
	// a pool index and a key byte, as rxe makes them
	mw->rkey = (mw->handle << 8) | 0x5a;
	return mw;
}

int dealloc_mw(ibv_mw *mw)
{
	State &s = state();
	if (!s.mws.has(mw)) {
		misuse("ibv_dealloc_mw of an unknown or freed ibv_mw");
		return EINVAL;
	}
	auto err = enter(Call::ibv_dealloc_mw);
	s.mws.drop(mw);
	return err.value_or(0);
}

} // namespace

void install_mw_ops(State &s)
{
	s.vctx.context.ops.alloc_mw = s.mw_supported ? alloc_mw : nullptr;
	s.vctx.context.ops.dealloc_mw = dealloc_mw;
}

void init_context(State &s)
{
	s.device.node_type = IBV_NODE_CA;
	s.device.transport_type = IBV_TRANSPORT_IB;
	std::strcpy(s.device.name, "fake0");
	std::strcpy(s.device.dev_name, "uverbs0");

	verbs_context &v = s.vctx;
	v.sz = sizeof(verbs_context);
	v.query_device_ex = query_device_ex;
	v.advise_mr = advise_mr;
	s.advise_mr = advise_mr;

	ibv_context &c = v.context;
	c.device = &s.device;
	c.abi_compat = __VERBS_ABI_IS_EXTENDED;
	c.num_comp_vectors = 1;
	c.cmd_fd = -1;
	c.async_fd = -1;
	c.ops.post_send = post_send;
	c.ops.post_recv = post_recv;
	c.ops.post_srq_recv = post_srq_recv;
	c.ops.poll_cq = poll_cq;
	c.ops.req_notify_cq = req_notify_cq;
}

} // namespace fake::detail
