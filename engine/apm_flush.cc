// SPDX-License-Identifier: BSD-3-Clause
#include "apm_flush.hh"
#include "report.hh"

#include <atomic>
#include <cerrno>

namespace rpma_fio {

namespace {

// The server said its PMem is written directly: let librpma believe it.
Result trust_direct_write(thread_data *td, rpma_conn *conn)
{
	rpma_peer_cfg *pcfg;
	int ret = rpma_peer_cfg_new(&pcfg);
	if (ret)
		return rpma_failed(td, "rpma_peer_cfg_new", ret);
	rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true);
	ret = rpma_conn_apply_remote_peer_cfg(conn, pcfg);
	rpma_peer_cfg_delete(&pcfg);
	return ret ? rpma_failed(td, "rpma_conn_apply_remote_peer_cfg", ret) : Result::DONE;
}

}

Result apm_flush_type(thread_data *td, rpma_conn *conn, rpma_mr_remote *remote, const Workspace &ws,
		      const char *gpspm, rpma_flush_type *type)
{
	int usage;
	rpma_mr_remote_get_flush_type(remote, &usage);
	if (usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT) {
		if (!ws.direct_write_to_pmem)
			return fail(td, EINVAL, "direct_write_to_pmem",
				    "the server's memory is persistent, but an APM "
				    "flush makes RDMA writes persistent only if they "
				    "reach PMem directly, which the server does not "
				    "declare (direct_write_to_pmem=1, with DDIO off); "
				    "use %s instead",
				    gpspm);
		*type = RPMA_FLUSH_TYPE_PERSISTENT;
		return trust_direct_write(td, conn);
	}
	if (usage & RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY) {
		static std::atomic_flag told;
		if (!told.test_and_set())
			note("%s: the server's memory is DRAM: flushes make "
			     "writes visible, not persistent\n",
			     td->io_ops->name);
		*type = RPMA_FLUSH_TYPE_VISIBILITY;
		return Result::DONE;
	}
	return fail(td, EPROTO, "connect",
		    "the server's memory can be flushed neither to "
		    "persistence nor to visibility");
}

}
