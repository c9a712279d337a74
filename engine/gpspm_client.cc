// SPDX-License-Identifier: BSD-3-Clause
// gpspm_client.cc -- librpma_gpspm_client: General Purpose Server
// Persistency Method. After its writes the client asks the server, with a
// flush request message, to persist the range; the server answers when done.
#include "client_ops.hh"
#include "conn_events.hh"
#include "gpspm_msg.hh"
#include "report.hh"
#include "ring.hh"

#include <atomic>
#include <cerrno>
#include <optional>
#include <vector>

namespace rpma_fio {
namespace {

// Message buffers: `slots` receive buffers, then `slots` send buffers, each
// MSG_ROOM bytes. Receive k and send k are independent: a response lands in
// whichever receive the network takes next.
//
// A server answers the flush requests in the order they were sent (the old
// server did too, and the old client relied on it as well): a response
// must carry the op_context of the oldest request not answered yet. One
// that does not is a protocol error, which fails the job: taken as it
// came, it would complete writes not flushed yet, or reads the device may
// still be writing into.
class GpspmClient final : public Client {
public:
	~GpspmClient() override
	{
		drop_connection(); // before the messages' memory
		rpma_mr_dereg(&msg_mr_);
	}

private:
	std::vector<char> msgs_;
	rpma_mr_local *msg_mr_ = nullptr;
	uint32_t slots_ = 0;
	std::vector<bool> send_busy_;
	Ring<uint64_t> unanswered_; // the op_contexts of the requests, oldest first

	size_t recv_off(size_t k) const { return k * MSG_ROOM; }
	size_t send_off(size_t k) const { return (slots_ + k) * MSG_ROOM; }

	// the server persists the range asked for, nothing else
	InFlight::Merge flush_merge() const override { return InFlight::Merge::ADJACENT; }

	const char *persistence_without_flush() const override
	{
		return "flush by the server (GPSPM flush requests): native_ops= does not apply";
	}

	QueueSizes queue_sizes(unsigned iodepth) const override
	{
		// up to iodepth reads or writes, iodepth flush requests, and SEND
		// completions that may be reaped after the response they carried
		uint32_t sq = 3 * iodepth + 1;
		return {sq, iodepth, sq + iodepth};
	}

	Result connected(const Workspace &ws) override
	{
		if (ws.max_msg_num == 0) {
			report(td_, "the server takes no flush requests: is it a "
				    "librpma_gpspm_server (and not an APM one)?");
			return job_failed(td_, EPROTO, "connect");
		}
		// The server has max_msg_num receives posted: never have more
		// requests outstanding. A smaller server only slows the job down.
		slots_ = std::min<uint32_t>(td_->o.iodepth, ws.max_msg_num);
		int usage;
		rpma_mr_remote_get_flush_type(remote_, &usage);
		static std::atomic_flag told;
		if (ws.direct_write_to_pmem && (usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT) &&
		    !told.test_and_set())
			note("%s: the server writes to PMem directly: "
			     "librpma_apm_client/librpma_apm_server would need no "
			     "server CPU\n",
			     td_->io_ops->name);

		msgs_.assign(MSG_ROOM * 2 * slots_, 0);
		send_busy_.assign(slots_, false);
		unanswered_.reserve(slots_);
		int ret = rpma_mr_reg(peer_, msgs_.data(), msgs_.size(),
				      RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &msg_mr_);
		if (ret)
			return rpma_failed(td_, "rpma_mr_reg", ret);
		for (size_t k = 0; k < slots_; k++)
			if (Result r = post_recv(k); r != Result::DONE)
				return r;
		return Result::DONE;
	}

	Result post_recv(size_t k)
	{
		int ret = rpma_recv(conn_, msg_mr_, recv_off(k), MSG_ROOM,
				    reinterpret_cast<const void *>(k));
		return ret ? rpma_failed(td_, "rpma_recv", ret) : Result::DONE;
	}

	// none if all send buffers wait for their SEND completion
	std::optional<size_t> free_send_slot() const
	{
		for (size_t k = 0; k < slots_; k++)
			if (!send_busy_[k])
				return k;
		return std::nullopt;
	}

	Result send(const FlushRequest &req, size_t k)
	{
		size_t len = pack_request(req, &msgs_[send_off(k)], MSG_ROOM);
		int ret = rpma_send(conn_, msg_mr_, send_off(k), len, RPMA_F_COMPLETION_ALWAYS,
				    reinterpret_cast<const void *>(k));
		if (ret)
			return rpma_failed(td_, "rpma_send", ret);
		send_busy_[k] = true;
		return Result::DONE;
	}

	Result post_flush(const Flush &f) override
	{
		const std::optional<size_t> k = free_send_slot();
		if (unanswered_.full() || !k)
			return Result::RETRY;
		if (Result r = send({f.offset, f.length, f.token}, *k); r != Result::DONE)
			return r;
		(void)unanswered_.push(f.token); // not full: checked above
		return Result::DONE;
	}

	// A response that is not the answer due (EPROTO): says what it was.
	Result unexpected(uint64_t ctx)
	{
		const auto hex = [](uint64_t v) { return static_cast<unsigned long long>(v); };
		if (unanswered_.empty()) {
			report(td_,
			       "a flush response (op_context %#llx) came with no flush request "
			       "outstanding",
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

	Result message_completion(const ibv_wc &wc, uint64_t *token) override
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

	// The end-of-run notice: an all-zero request, which gets no response.
	// Only with no request outstanding: then the server has reposted the
	// receive of each, and one is free for the notice; else the SEND
	// would meet RNR NAKs, retried forever, until the deadline.
	void finish() override
	{
		if (!unanswered_.empty())
			return;
		const auto deadline = Clock::now() + std::chrono::milliseconds(GOODBYE_TIMEOUT_MS);
		std::optional<size_t> k;
		while (!(k = free_send_slot()) && Clock::now() < deadline)
			if (failed(poll_batch()))
				return;
		if (!k || send({0, 0, 0}, *k) != Result::DONE)
			return;
		while (send_busy_[*k] && Clock::now() < deadline)
			if (failed(poll_batch()))
				return;
	}
};

std::unique_ptr<Client> make()
{
	return std::make_unique<GpspmClient>();
}

}
}

ioengine_ops ioengine = rpma_fio::client_ops<rpma_fio::make>("librpma_gpspm_client");
