// SPDX-License-Identifier: BSD-3-Clause
#include "end_notice.hh"
#include "conn_events.hh"
#include "report.hh"
#include "wire_format.hh"

#include <optional>

namespace rpma_fio {

Result EndNotice::expect(thread_data *td, rpma_peer *peer, rpma_conn_req *req)
{
	rpma_conn_private_data pdata{};
	rpma_conn_req_get_private_data(req, &pdata);
	// this request's alone: an earlier one may have never completed
	expected_ = promises_end_notice(pdata.ptr, pdata.len);
	came_ = false;
	misuse_.clear();
	if (!expected_)
		return Result::DONE;
	// registered once: a request that could not be accepted may be
	// followed by another one of the same client
	int ret = mr_ ? 0 : rpma_mr_reg(peer, buf_.data(), buf_.size(), RPMA_MR_USAGE_RECV, &mr_);
	if (ret)
		return rpma_failed(td, "rpma_mr_reg", ret);
	ret = rpma_conn_req_recv(req, mr_, 0, buf_.size(), this);
	return ret ? rpma_failed(td, "rpma_conn_req_recv", ret) : Result::DONE;
}

bool EndNotice::take(const ibv_wc &wc)
{
	if (wc.wr_id != reinterpret_cast<uintptr_t>(this))
		return false;
	if (wc.status == IBV_WC_SUCCESS && !holds_message(wc)) {
		misuse_ = why_no_message(wc);
	} else if (wc.status == IBV_WC_SUCCESS) {
		const std::optional<FlushRequest> notice = unpack_request(buf_.data(), wc.byte_len);
		came_ = notice && notice->ends_run();
	}
	return true;
}

void EndNotice::drain(rpma_cq *cq)
{
	ibv_wc wc[WC_BATCH];
	int got = 0;
	while (!came_ && rpma_cq_get_wc(cq, WC_BATCH, wc, &got) == 0)
		for (int i = 0; i < got; i++)
			take(wc[i]);
}

}
