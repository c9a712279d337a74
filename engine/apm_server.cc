// SPDX-License-Identifier: BSD-3-Clause
// apm_server.cc -- librpma_apm_server: with the Appliance Persistency
// Method the client writes and flushes by itself, so serving is waiting for
// the client to disconnect.
#include "conn_events.hh"
#include "many_server.hh"
#include "server_ops.hh"
#include "report.hh"

namespace rpma_fio {
namespace {

class ApmServer final : public Server {
	Result serve() override
	{
		rpma_cq *cq;
		int ret = rpma_conn_get_cq(conn_, &cq);
		if (ret)
			return rpma_failed(td_, "rpma_conn_get_cq", ret);
		for (;;) {
			rpma_conn_event ev;
			const Result r = next_conn_event(td_, conn_, POLL_MS, &ev);
			if (r == Result::RETRY) {
				if (td_->terminate)
					return Result::DONE;
				// the client sends nothing: every quiet moment counts
				if (failed(link_check()) || failed(poll_probe(cq, true)) ||
				    failed(liveness_check(0)))
					return Result::FAILED;
				continue;
			}
			if (failed(r))
				return r;
			// no end-of-run message in APM: a disconnect is the end
			return connection_ended(ev, true);
		}
	}
};

std::unique_ptr<Server> make()
{
	return std::make_unique<ApmServer>();
}

}
}

ioengine_ops ioengine = rpma_fio::server_ops<rpma_fio::make, rpma_fio::make_apm_many>(
	"librpma_apm_server");
