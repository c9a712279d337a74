// SPDX-License-Identifier: BSD-3-Clause
#include "flush_requests.hh"
#include "report.hh"

#include <cerrno>

namespace rpma_fio {

Result FlushRequests::setup(thread_data *td, rpma_peer *peer, rpma_conn *conn, uint32_t slots)
{
	td_ = td;
	conn_ = conn;
	slots_ = slots;
	layout_ = ClientMsgLayout(slots_);
	if (!msgs_.allocate(layout_.bytes()))
		return fail(td_, ENOMEM, "message buffers",
			    "cannot allocate %zu bytes of message buffers", layout_.bytes());
	sent_.assign(slots_, Sent{});
	unanswered_.reserve(slots_);
	int ret = rpma_mr_reg(peer, msgs_.data(), msgs_.size(),
			      RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &mr_);
	if (ret)
		return rpma_failed(td_, "rpma_mr_reg", ret);
	for (size_t k = 0; k < slots_; k++)
		if (Result r = post_recv(k); r != Result::DONE)
			return r;
	return Result::DONE;
}

Result FlushRequests::unexpected(uint64_t ctx)
{
	const auto hex = [](uint64_t v) { return static_cast<unsigned long long>(v); };
	if (unanswered_.empty())
		return fail(td_, EPROTO, "flush response",
			    "a flush response (op_context %#llx) came with no flush request "
			    "outstanding",
			    hex(ctx));
	for (size_t i = 1; i < unanswered_.size(); i++)
		if (unanswered_[i].ctx == ctx)
			return fail(td_, EPROTO, "flush response",
				    "the server answered the flush request of op_context %#llx "
				    "before the older one of op_context %#llx: a server must "
				    "answer in request order",
				    hex(ctx), hex(unanswered_.front().ctx));
	return fail(td_, EPROTO, "flush response",
		    "a flush response carries op_context %#llx, which no flush request "
		    "outstanding has (the oldest has %#llx)",
		    hex(ctx), hex(unanswered_.front().ctx));
}

}
