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
	msgs_.assign(MSG_ROOM * 2 * slots_, 0);
	send_busy_.assign(slots_, false);
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

Result FlushRequests::post_recv(size_t k)
{
	int ret = rpma_recv(conn_, mr_, recv_off(k), MSG_ROOM, reinterpret_cast<const void *>(k));
	return ret ? rpma_failed(td_, "rpma_recv", ret) : Result::DONE;
}

std::optional<size_t> FlushRequests::free_send_slot() const
{
	for (size_t k = 0; k < slots_; k++)
		if (!send_busy_[k])
			return k;
	return std::nullopt;
}

Result FlushRequests::send(const FlushRequest &req, size_t k)
{
	size_t len = pack_request(req, &msgs_[send_off(k)], MSG_ROOM);
	int ret = rpma_send(conn_, mr_, send_off(k), len, RPMA_F_COMPLETION_ALWAYS,
			    reinterpret_cast<const void *>(k));
	if (ret)
		return rpma_failed(td_, "rpma_send", ret);
	send_busy_[k] = true;
	return Result::DONE;
}

Result FlushRequests::post(const FlushRequest &req)
{
	const std::optional<size_t> k = free_send_slot();
	if (unanswered_.full() || !k)
		return Result::RETRY;
	if (Result r = send(req, *k); r != Result::DONE)
		return r;
	(void)unanswered_.push(req.op_context); // not full: checked above
	return Result::DONE;
}

Result FlushRequests::unexpected(uint64_t ctx)
{
	const auto hex = [](uint64_t v) { return static_cast<unsigned long long>(v); };
	if (unanswered_.empty()) {
		report(td_,
		       "a flush response (op_context %#llx) came with no flush request outstanding",
		       hex(ctx));
		return job_failed(td_, EPROTO, "flush response");
	}
	for (size_t i = 1; i < unanswered_.size(); i++)
		if (unanswered_[i] == ctx) {
			report(td_,
			       "the server answered the flush request of op_context %#llx "
			       "before the older one of op_context %#llx: a server must "
			       "answer in request order",
			       hex(ctx), hex(unanswered_.front()));
			return job_failed(td_, EPROTO, "flush response");
		}
	report(td_,
	       "a flush response carries op_context %#llx, which no flush request "
	       "outstanding has (the oldest has %#llx)",
	       hex(ctx), hex(unanswered_.front()));
	return job_failed(td_, EPROTO, "flush response");
}

Result FlushRequests::completion(const ibv_wc &wc, uint64_t *token)
{
	if (wc.opcode == IBV_WC_SEND) {
		send_busy_[wc.wr_id] = false;
		return Result::DONE;
	}
	size_t k = wc.wr_id;
	std::optional<uint64_t> ctx = unpack_response(&msgs_[recv_off(k)], wc.byte_len);
	if (!ctx) {
		report(td_, "cannot unpack the flush response (%u bytes)", wc.byte_len);
		return job_failed(td_, EPROTO, "flush response");
	}
	if (unanswered_.empty() || *ctx != unanswered_.front()) [[unlikely]]
		return unexpected(*ctx);
	unanswered_.pop();
	*token = *ctx;
	return post_recv(k);
}

}
