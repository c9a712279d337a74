// SPDX-License-Identifier: BSD-3-Clause
// apm_client.cc -- librpma_apm_client: Appliance Persistency Method. The
// client makes its writes persistent (or visible, for DRAM) by itself, with
// rpma_flush after the writes: no software runs on the server meanwhile.
#include "client_ops.hh"
#include "report.hh"

#include <atomic>
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
		int usage;
		rpma_mr_remote_get_flush_type(remote_, &usage);
		if (usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT) {
			if (!ws.direct_write_to_pmem) {
				report(td_, "the server's memory is persistent, but an APM "
					    "flush makes RDMA writes persistent only if they "
					    "reach PMem directly, which the server does not "
					    "declare (direct_write_to_pmem=1, with DDIO off); "
					    "use librpma_gpspm_* instead");
				return job_failed(td_, EINVAL, "direct_write_to_pmem");
			}
			return trust_direct_write();
		}
		if (usage & RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY) {
			static std::atomic_flag told;
			if (!told.test_and_set())
				note("%s: the server's memory is DRAM: flushes make "
				     "writes visible, not persistent\n",
				     td_->io_ops->name);
			type_ = RPMA_FLUSH_TYPE_VISIBILITY;
			return Result::DONE;
		}
		report(td_, "the server's memory can be flushed neither to "
			    "persistence nor to visibility");
		return job_failed(td_, EPROTO, "connect");
	}

	// The server said its PMem is written directly: let librpma believe it.
	Result trust_direct_write()
	{
		rpma_peer_cfg *pcfg;
		int ret = rpma_peer_cfg_new(&pcfg);
		if (ret)
			return rpma_failed(td_, "rpma_peer_cfg_new", ret);
		rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true);
		ret = rpma_conn_apply_remote_peer_cfg(conn_, pcfg);
		rpma_peer_cfg_delete(&pcfg);
		if (ret)
			return rpma_failed(td_, "rpma_conn_apply_remote_peer_cfg", ret);
		type_ = RPMA_FLUSH_TYPE_PERSISTENT;
		return Result::DONE;
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
