// SPDX-License-Identifier: BSD-3-Clause
// gpspm_client.cc -- librpma_gpspm_client: General Purpose Server
// Persistency Method. After its writes the client asks the server, with a
// flush request message, to persist the range; the server answers when done.
#include "client_ops.hh"
#include "flush_requests.hh"
#include "report.hh"

#include <atomic>
#include <cerrno>

namespace rpma_fio {
namespace {

class GpspmClient final : public Client {
public:
	~GpspmClient() override
	{
		drop_connection(); // before the messages' memory
	}

private:
	FlushRequests requests_;

	// the server persists the range asked for, nothing else
	InFlight::Merge flush_merge() const override { return InFlight::Merge::ADJACENT; }

	const char *persistence_without_flush() const override
	{
		return "flush by the server (GPSPM flush requests): native_ops= does not apply";
	}

	QueueSizes queue_sizes(unsigned iodepth) const override
	{
		// up to iodepth reads or writes and iodepth flush requests: an I/O
		// is done only once its flush request's SEND completed, and with it
		// every write before it (flush_requests.hh)
		uint32_t sq = 2 * iodepth;
		return {sq, iodepth, sq + iodepth};
	}

	Result connected(const Workspace &ws, unsigned) override
	{
		if (ws.max_msg_num == 0)
			return fail(td_, EPROTO, "connect",
				    "the server takes no flush requests: is it a "
				    "librpma_gpspm_server (and not an APM one)?");
		int usage;
		rpma_mr_remote_get_flush_type(targets_[0].remote, &usage);
		static std::atomic_flag told;
		if (ws.direct_write_to_pmem && (usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT) &&
		    !told.test_and_set())
			note("%s: the server writes to PMem directly: "
			     "librpma_apm_client/librpma_apm_server would need no "
			     "server CPU\n",
			     td_->io_ops->name);
		// The server has max_msg_num receives posted: never have more
		// requests outstanding. A smaller server only slows the job down.
		return requests_.setup(td_, peer_, targets_[0].conn,
				       std::min<uint32_t>(td_->o.iodepth, ws.max_msg_num));
	}

	Result post_flush(const Flush &f) override
	{
		return requests_.post({f.offset, f.length, f.token});
	}

	Result message_completion(const ibv_wc &wc, unsigned, uint64_t *token) override
	{
		return requests_.completion(wc, token);
	}

	// The end-of-run notice: an all-zero request.
	void finish() override
	{
		requests_.finish(END_OF_RUN_NOTICE, [this] { return poll_batch(); });
	}
};

std::unique_ptr<Client> make()
{
	return std::make_unique<GpspmClient>();
}

}
}

ioengine_ops ioengine = rpma_fio::client_ops<rpma_fio::make>("librpma_gpspm_client");
