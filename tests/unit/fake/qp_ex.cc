// SPDX-License-Identifier: BSD-3-Clause
// The extended QP interface (ibv_qp_ex): work requests built one call at a
// time between ibv_wr_start and ibv_wr_complete. The requests are recorded
// with the others in fake::sends() once ibv_wr_complete commits them.
#include "config.h"
#include "state.hh"

namespace fake::detail {

namespace {

QpExtra *building(ibv_qp_ex *qpx, const char *call)
{
	State &s = state();
	if (!s.qps.has(qpx)) {
		misuse(std::string(call) + " on an unknown QP");
		return nullptr;
	}
	QpExtra &extra = s.qps.extra(qpx);
	if (!extra.building) {
		misuse(std::string(call) + " outside ibv_wr_start/ibv_wr_complete");
		return nullptr;
	}
	return &extra;
}

void wr_start(ibv_qp_ex *qpx)
{
	State &s = state();
	if (!s.qps.has(qpx)) {
		misuse("ibv_wr_start on an unknown QP");
		return;
	}
	enter(Call::ibv_wr_start);
	QpExtra &extra = s.qps.extra(qpx);
	if (extra.building)
		misuse("ibv_wr_start twice");
	extra.building = true;
	extra.batch.clear();
}

int wr_complete(ibv_qp_ex *qpx)
{
	QpExtra *extra = building(qpx, "ibv_wr_complete");
	if (!extra)
		return EINVAL;
	extra->building = false;
	std::vector<SendWr> batch = std::move(extra->batch);
	extra->batch.clear();
	if (auto err = enter(Call::ibv_wr_complete))
		return *err;
	for (auto &wr : batch) {
		wr.chain_length = &wr == &batch.front() ? batch.size() : 0;
		state().sends.push_back(std::move(wr));
	}
	return 0;
}

void wr_abort(ibv_qp_ex *qpx)
{
	QpExtra *extra = building(qpx, "ibv_wr_abort");
	enter(Call::ibv_wr_abort);
	if (!extra)
		return;
	extra->building = false;
	extra->batch.clear();
}

// A request of the extended interface, as the batch records it.
SendWr extended_wr(ibv_qp_ex *qpx, ibv_wr_opcode opcode, uint32_t rkey, uint64_t remote_addr)
{
	SendWr wr{};
	wr.qp = &qpx->qp_base;
	wr.extended = true;
	wr.wr_id = qpx->wr_id;
	wr.opcode = opcode;
	wr.send_flags = qpx->wr_flags;
	wr.remote_addr = remote_addr;
	wr.rkey = rkey;
	return wr;
}

void wr_atomic_write(ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, const void *atomic_wr)
{
	QpExtra *extra = building(qpx, "ibv_wr_atomic_write");
	if (!extra)
		return;
	SendWr wr = extended_wr(qpx, IBV_WR_ATOMIC_WRITE, rkey, remote_addr);
	const auto *bytes = static_cast<const uint8_t *>(atomic_wr);
	wr.data.assign(bytes, bytes + 8);
	extra->batch.push_back(std::move(wr));
}

#if HAVE_DECL_IBV_WR_FLUSH
void wr_flush(ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, size_t len, uint8_t type,
	      uint8_t level)
{
	QpExtra *extra = building(qpx, "ibv_wr_flush");
	if (!extra)
		return;
	SendWr wr = extended_wr(qpx, IBV_WR_FLUSH, rkey, remote_addr);
	wr.flush_len = len;
	wr.flush_type = type;
	wr.flush_level = level;
	extra->batch.push_back(std::move(wr));
}
#endif

} // namespace

void init_qp_ex(ibv_qp_ex *qpx, uint64_t send_ops_flags)
{
	qpx->wr_start = wr_start;
	qpx->wr_complete = wr_complete;
	qpx->wr_abort = wr_abort;
	// as providers do, only the operations asked for are available
	if (send_ops_flags & IBV_QP_EX_WITH_ATOMIC_WRITE)
		qpx->wr_atomic_write = wr_atomic_write;
#if HAVE_DECL_IBV_WR_FLUSH
	if (send_ops_flags & IBV_QP_EX_WITH_FLUSH)
		qpx->wr_flush = wr_flush;
#endif
}

} // namespace fake::detail

using namespace fake;
using namespace fake::detail;

extern "C" ibv_qp_ex *ibv_qp_to_qp_ex(ibv_qp *qp)
{
	State &s = state();
	auto *qpx = reinterpret_cast<ibv_qp_ex *>(qp);
	if (!s.qps.has(qpx)) {
		misuse("ibv_qp_to_qp_ex of an unknown QP");
		return nullptr;
	}
	if (enter(Call::ibv_qp_to_qp_ex))
		return nullptr;
	return s.qps.extra(qpx).extended ? qpx : nullptr;
}
