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

} // namespace

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
