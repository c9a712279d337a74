// SPDX-License-Identifier: BSD-3-Clause
// apm_client.cc -- librpma_apm_client: Appliance Persistency Method. The
// client makes its writes persistent (or visible, for DRAM) by itself, with
// rpma_flush after the writes: no software runs on the server meanwhile.
#include "apm_flush.hh"
#include "client_ops.hh"
#include "flush_requests.hh"
#include "report.hh"

#include <cerrno>

namespace rpma_fio {
namespace {

class ApmClient final : public Client {
public:
	~ApmClient() override
	{
		drop_connection(); // before the notice's memory
	}

private:
	rpma_flush_type type_ = RPMA_FLUSH_TYPE_VISIBILITY;
	FlushRequests notice_;      // the end-of-run notice's message
	bool notice_taken_ = false; // the server posted a receive for it

	// a flush is an RDMA read: it orders every write posted before it
	InFlight::Merge flush_merge() const override { return InFlight::Merge::ANY; }

	QueueSizes queue_sizes(unsigned iodepth) const override
	{
		// An io_u needs at most a read or a write, plus a flush (the
		// end-of-run notice goes out with nothing else in flight). Each
		// of them may complete (a failure flushes them all), and so may
		// the receive the notice's messages post: one more.
		uint32_t sq = 2 * iodepth;
		return {sq, 1, sq + 1};
	}

	bool sends_end_notice() const override { return true; }

	// A server that posted a receive for the end-of-run notice (ours)
	// can tell a finished client from a killed one; an old server posts
	// none and gets no notice.
	Result connected(const Workspace &ws, unsigned) override
	{
		const Target &x = targets_[0];
		if (Result r = apm_flush_type(td_, x.conn, x.remote, ws, "librpma_gpspm_*", &type_);
		    r != Result::DONE)
			return r;
		if (ws.max_msg_num == 0)
			return Result::DONE;
		notice_taken_ = true;
		return notice_.setup(td_, peer_, x.conn, 1);
	}

	Result post_flush(const Flush &f) override
	{
		int ret = rpma_flush(targets_[0].conn, targets_[0].remote, f.offset, f.length,
				     type_, RPMA_F_COMPLETION_ALWAYS,
				     reinterpret_cast<const void *>(f.token));
		return ret ? rpma_failed(td_, "rpma_flush", ret) : Result::DONE;
	}

	Result message_completion(const ibv_wc &wc, unsigned, uint64_t *token) override
	{
		if (notice_taken_)
			return notice_.completion(wc, token);
		return fail(td_, EPROTO, "completion", "unexpected completion (opcode %d)",
			    wc.opcode);
	}

	void finish() override
	{
		if (notice_taken_)
			notice_.finish(END_OF_RUN_NOTICE, [this] { return poll_batch(); });
	}
};

std::unique_ptr<Client> make()
{
	return std::make_unique<ApmClient>();
}

}
}

ioengine_ops ioengine = rpma_fio::client_ops<rpma_fio::make>("librpma_apm_client");
