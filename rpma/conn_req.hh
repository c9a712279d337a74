// SPDX-License-Identifier: BSD-3-Clause
// A connection request: the active side's outgoing one, or an incoming one
// taken from an endpoint. Its queues exist already; connect() turns it into
// a connection.
#ifndef RPMA_CONN_REQ_HH
#define RPMA_CONN_REQ_HH

#include <memory>

#include "conn_cfg.hh"
#include "conn_queues.hh"
#include "private_data.hh"
#include "verbs.hh"

namespace rpma {

class Conn;
class MrLocal;
class Mw;
class Peer;

class ConnReq {
public:
	// Resolves addr:port within cfg.timeout_ms and creates the queues;
	// RPMA_E_INVAL, before resolving, for shares_channel_with_srq_rcq(cfg).
	static std::unique_ptr<ConnReq> outgoing(Peer &peer, const char *addr, const char *port,
						 const ConnCfg::Values &cfg);

	// Takes over the CM id of a CONNECT_REQUEST event; a request that cannot
	// be made is rejected.
	static std::unique_ptr<ConnReq> incoming(Peer &peer, CmIdOwner id, PrivateData private_data,
						 const ConnCfg::Values &cfg);

	ConnReq(const ConnReq &) = delete;
	ConnReq &operator=(const ConnReq &) = delete;
	~ConnReq() { release(); }

	// The caller checked that dst holds the range (MrLocal::holds).
	int recv(const MrLocal &dst, size_t offset, size_t len, const void *op_context) noexcept;
	rpma_conn_private_data private_data() const noexcept { return private_data_.view(); }

	// Reserves `mw` for a binding over [offset, offset + len) of `mr`
	// granting `usage`, posted by connect() before the request is accepted
	// (Mw::reserve); RPMA_E_INVAL for an outgoing request, whose queue pair
	// librdmacm readies only when the peer accepts.
	int bind_mw(Mw &mw, const MrLocal &mr, size_t offset, size_t len, int usage) noexcept;

	// Connects (active) or accepts (passive) with the given private data.
	// The request's resources move into the connection. An incoming request
	// with windows reserved has its queue pair moved to RTS and the windows
	// bound first, then is accepted: the peer learns their keys from the
	// private data only once they work. A bind that fails or does not
	// complete within the request's timeout throws RPMA_E_PROVIDER (errno
	// EIO or ETIMEDOUT), and the request is rejected.
	std::unique_ptr<Conn> connect(const rpma_conn_private_data *pdata);

	// Drops the request: destroys its queues, rejects an incoming request,
	// destroys the id; 0 or the first provider error code.
	int release() noexcept;

private:
	ConnReq(Peer &peer, CmIdOwner id, bool incoming, PrivateData private_data, int timeout_ms);

	// Moves the queue pair to RTS as librdmacm's rdma_accept() would, then
	// binds the reserved windows one by one, each waited for.
	void bind_reserved_windows();
	void move_to_rts();
	void wait_for_bind(int64_t deadline_ns);

	Peer &peer_;
	bool incoming_;
	int timeout_ms_;
	CmIdOwner id_;
	PrivateData private_data_;
	// Declared after the id so that it is destroyed before it.
	std::unique_ptr<ConnQueues> queues_;
};

} // namespace rpma

#endif
