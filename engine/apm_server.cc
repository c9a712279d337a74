// SPDX-License-Identifier: BSD-3-Clause
// apm_server.cc -- librpma_apm_server: with the Appliance Persistency
// Method the client writes and flushes by itself, so serving is waiting for
// the client to disconnect, after its end-of-run notice if it promised one
// (end_notice.hh).
#include "conn_events.hh"
#include "end_notice.hh"
#include "many_server.hh"
#include "report.hh"
#include "server_ops.hh"

#include <cerrno>

namespace rpma_fio {
namespace {

class ApmServer final : public Server {
public:
	~ApmServer() override
	{
		close_connection(&conn_); // before the notice's receive buffer
	}

private:
	EndNotice notice_;

	uint16_t msg_slots() const override { return notice_.receives(); }

	Result accepting(rpma_conn_req *req) override { return notice_.expect(td_, peer_, req); }

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
				if (failed(link_check()) || failed(take_completions(cq)) ||
				    failed(liveness_check(0)))
					return Result::FAILED;
				continue;
			}
			if (failed(r))
				return r;
			notice_.drain(cq);
			if (!notice_.misuse().empty())
				return client_misbehaved(notice_.misuse());
			return connection_ended(ev, notice_.run_ended());
		}
	}

	// The probe's completion and the notice's, the only ones there are.
	Result take_completions(rpma_cq *cq)
	{
		ibv_wc wc[WC_BATCH];
		int got = 0;
		int ret = rpma_cq_get_wc(cq, WC_BATCH, wc, &got);
		if (ret == RPMA_E_NO_COMPLETION)
			return Result::DONE;
		if (ret)
			return rpma_failed(td_, "rpma_cq_get_wc", ret);
		for (int i = 0; i < got; i++) {
			if (notice_.take(wc[i])) {
				if (!notice_.misuse().empty())
					return client_misbehaved(notice_.misuse());
				continue;
			}
			if (!is_probe(wc[i])) {
				report(td_, "unexpected completion (opcode %d)", wc[i].opcode);
				return job_failed(td_, EPROTO, "completion");
			}
			if (Result p = probe_done(wc[i], notice_.run_ended()); p != Result::DONE)
				return p;
		}
		return Result::DONE;
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
