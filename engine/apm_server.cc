// SPDX-License-Identifier: BSD-3-Clause
// apm_server.cc -- librpma_apm_server: with the Appliance Persistency
// Method the clients write and flush by themselves, so serving is watching
// each connection until its client disconnects, after its end-of-run
// notice if it promised one (end_notice.hh).
#include "end_notice.hh"
#include "server.hh"
#include "server_ops.hh"

#include <cerrno>

namespace rpma_fio {
namespace {

class ApmServer final : public Server {
	// A client's end-of-run notice.
	struct ServedClient : Connection {
		~ServedClient() override
		{
			close_connection(&conn); // before the notice's receive buffer
		}

		EndNotice notice;
	};
	static ServedClient &client(Connection &c) { return static_cast<ServedClient &>(c); }
	static const ServedClient &client(const Connection &c)
	{
		return static_cast<const ServedClient &>(c);
	}

	std::unique_ptr<Connection> new_connection() const override
	{
		return std::make_unique<ServedClient>();
	}

	Result accepting(Connection &c, rpma_conn_req *req) override
	{
		return client(c).notice.expect(td_, peer_, req);
	}

	uint16_t receives(const Connection &c) const override
	{
		return client(c).notice.receives();
	}

	// The probe's completion and the notice's are the only ones there are.
	Result completion(Connection &c, const ibv_wc &wc) override
	{
		EndNotice &notice = client(c).notice;
		if (!notice.take(wc))
			lose(c, EPROTO, "sent what an APM client does not (opcode %d)", wc.opcode);
		else if (!notice.misuse().empty())
			lose(c, EPROTO, "%s", notice.misuse().c_str());
		return Result::DONE;
	}

	// an old client promises no notice: nothing said
	bool said_end(const Connection &c) const override { return client(c).notice.came(); }

	bool ended_run(Connection &c) override
	{
		EndNotice &notice = client(c).notice;
		if (c.cq)
			notice.drain(c.cq);
		if (!notice.misuse().empty())
			lose(c, EPROTO, "%s", notice.misuse().c_str());
		return notice.run_ended();
	}
};

std::unique_ptr<Server> make()
{
	return std::make_unique<ApmServer>();
}

}
}

ioengine_ops ioengine = rpma_fio::server_ops<rpma_fio::make>("librpma_apm_server");
