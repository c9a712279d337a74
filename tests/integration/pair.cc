// SPDX-License-Identifier: BSD-3-Clause

#include "pair.hh"

#include <cstdlib>

#include "check.hh"
#include "env.hh"
#include "wait.hh"

namespace it {

Peer new_peer(rpma_util_ibv_context_type type)
{
	ibv_context *ctx = nullptr;
	RPMA_OK(rpma_utils_get_ibv_context(test_ip(), type, &ctx));
	rpma_peer *peer = nullptr;
	RPMA_OK(rpma_peer_new(ctx, &peer));
	return Peer(peer);
}

// empty private data is sent as none at all
static const rpma_conn_private_data *pdata_of(const std::vector<unsigned char> &bytes,
					      rpma_conn_private_data *pd)
{
	if (bytes.empty())
		return nullptr;
	pd->ptr = const_cast<unsigned char *>(bytes.data());
	pd->len = (uint8_t)bytes.size();
	return pd;
}

Pair connect_pair(const PairOptions &opts)
{
	Pair p;
	std::string port = next_port();
	rpma_peer *server_peer = opts.server_peer;
	if (!server_peer) {
		p.server_peer = new_peer(RPMA_UTIL_IBV_CONTEXT_LOCAL);
		server_peer = p.server_peer.get();
	}
	// the native operations are the initiator's choice, made per peer;
	// the server's peer above never has them
	if (opts.client_native_ops)
		setenv("RPMA_NATIVE_OPS", opts.client_native_ops, 1);
	p.client_peer = new_peer(RPMA_UTIL_IBV_CONTEXT_REMOTE);
	unsetenv("RPMA_NATIVE_OPS");
	rpma_ep *ep = nullptr;
	RPMA_OK(rpma_ep_listen(server_peer, test_ip(), port.c_str(), &ep));
	p.ep.reset(ep);

	rpma_conn_req *creq = nullptr;
	RPMA_OK(rpma_conn_req_new(p.client_peer.get(), test_ip(), port.c_str(), opts.client_cfg,
				  &creq));
	ConnReq client_req(creq);
	if (opts.before_connect)
		opts.before_connect(creq);
	rpma_conn_private_data cpd, spd;
	rpma_conn *conn = nullptr;
	creq = client_req.release(); // consumed by connect, success or not
	RPMA_OK(rpma_conn_req_connect(&creq, pdata_of(opts.client_pdata, &cpd), &conn));
	p.client.reset(conn);

	ConnReq server_req(next_conn_req(p.ep.get(), opts.server_cfg));
	if (opts.before_accept)
		opts.before_accept(server_req.get());
	rpma_conn_req *sreq = server_req.release();
	RPMA_OK(rpma_conn_req_connect(&sreq, pdata_of(opts.server_pdata, &spd), &conn));
	p.server.reset(conn);

	// The client first: librdmacm answers the server's accept (the RTU
	// that establishes the server's side) only while the client takes
	// its event.
	expect_event(p.client.get(), RPMA_CONN_ESTABLISHED);
	expect_event(p.server.get(), RPMA_CONN_ESTABLISHED);
	return p;
}

void close_pair(Pair &p)
{
	RPMA_OK(rpma_conn_disconnect(p.client.get()));
	// the client's side closes only once the server has answered (DREP)
	expect_event(p.server.get(), RPMA_CONN_CLOSED);
	RPMA_OK(rpma_conn_disconnect(p.server.get()));
	expect_event(p.client.get(), RPMA_CONN_CLOSED);
	rpma_conn *conn = p.client.release();
	RPMA_OK(rpma_conn_delete(&conn));
	CPPUNIT_ASSERT(conn == nullptr);
	conn = p.server.release();
	RPMA_OK(rpma_conn_delete(&conn));
	CPPUNIT_ASSERT(conn == nullptr);
}

MrRemote remote_of(const rpma_mr_local *mr)
{
	size_t size = 0;
	RPMA_OK(rpma_mr_get_descriptor_size(mr, &size));
	std::vector<unsigned char> desc(size);
	RPMA_OK(rpma_mr_get_descriptor(mr, desc.data()));
	rpma_mr_remote *remote = nullptr;
	RPMA_OK(rpma_mr_remote_from_descriptor(desc.data(), size, &remote));
	return MrRemote(remote);
}

MrLocal reg(rpma_peer *peer, void *ptr, size_t size, int usage)
{
	rpma_mr_local *mr = nullptr;
	RPMA_OK(rpma_mr_reg(peer, ptr, size, usage, &mr));
	return MrLocal(mr);
}

rpma_cq *cq_of(const rpma_conn *conn)
{
	rpma_cq *cq = nullptr;
	RPMA_OK(rpma_conn_get_cq(conn, &cq));
	CPPUNIT_ASSERT(cq != nullptr);
	return cq;
}

rpma_cq *rcq_of(const rpma_conn *conn)
{
	rpma_cq *rcq = nullptr;
	RPMA_OK(rpma_conn_get_rcq(conn, &rcq));
	return rcq;
}

} // namespace it
