// SPDX-License-Identifier: BSD-3-Clause
// apm_client.cc -- librpma_apm_client: Appliance Persistency Method. The
// client makes its writes persistent (or visible, for DRAM) by itself, with
// rpma_flush after the writes: no software runs on the server meanwhile.
#include "apm_flush.hh"
#include "client_ops.hh"
#include "report.hh"

#include <cerrno>

namespace rpma_fio {
namespace {

class ApmClient final : public Client {
	rpma_flush_type type_ = RPMA_FLUSH_TYPE_VISIBILITY;

	// a flush is an RDMA read: it orders every write posted before it
	InFlight::Merge flush_merge() const override { return InFlight::Merge::ANY; }

	QueueSizes queue_sizes(unsigned iodepth) const override
	{
		// an io_u needs at most a read or a write, plus a flush
		uint32_t sq = 2 * iodepth;
		return {sq, 1, sq};
	}

	Result connected(const Workspace &ws) override
	{
		return apm_flush_type(td_, conn_, remote_, ws, "librpma_gpspm_*", &type_);
	}

	Result post_flush(const Flush &f) override
	{
		int ret = rpma_flush(conn_, remote_, f.offset, f.length, type_,
				     RPMA_F_COMPLETION_ALWAYS,
				     reinterpret_cast<const void *>(f.token));
		return ret ? rpma_failed(td_, "rpma_flush", ret) : Result::DONE;
	}

	Result message_completion(const ibv_wc &wc, uint64_t *) override
	{
		report(td_, "unexpected completion (opcode %d)", wc.opcode);
		return job_failed(td_, EPROTO, "completion");
	}
};

std::unique_ptr<Client> make()
{
	return std::make_unique<ApmClient>();
}

}
}

ioengine_ops ioengine = rpma_fio::client_ops<rpma_fio::make>("librpma_apm_client");
