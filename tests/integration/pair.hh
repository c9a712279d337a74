// SPDX-License-Identifier: BSD-3-Clause
// A connected client/server pair inside one process and one thread: both
// ends are driven step by step, so a test sees each side's view of every
// operation without threads or timing games.

#ifndef RPMA_TESTS_INTEGRATION_PAIR_HH
#define RPMA_TESTS_INTEGRATION_PAIR_HH

#include <functional>
#include <string>
#include <vector>

#include "handles.hh"

namespace it {

// a peer on the device serving test_ip()
Peer new_peer(rpma_util_ibv_context_type type);

struct PairOptions {
	// the server side's peer; a new one if null (an SRQ needs its own)
	rpma_peer *server_peer = nullptr;
	const rpma_conn_cfg *client_cfg = nullptr;
	const rpma_conn_cfg *server_cfg = nullptr;
	std::vector<unsigned char> client_pdata; // sent with the request
	std::vector<unsigned char> server_pdata; // sent with the accept
	// runs on the incoming request before it is accepted
	std::function<void(rpma_conn_req *)> before_accept;
	// runs on the outgoing request before it is connected
	std::function<void(rpma_conn_req *)> before_connect;
	// RPMA_NATIVE_OPS while the client's peer is created (null: unset)
	const char *client_native_ops = nullptr;
};

// Members are destroyed bottom-up: connections before the endpoint and
// the peers. A test's own MRs, declared after its Pair, go first.
struct Pair {
	Peer client_peer; // a peer of its own, as a separate process would have
	Peer server_peer; // empty if PairOptions::server_peer was given
	Ep ep;
	Conn client;
	Conn server;
};

Pair connect_pair(const PairOptions &opts = {});

// the documented teardown, interleaved: the client disconnects, the server
// sees CLOSED and disconnects, the client sees CLOSED; both are deleted
void close_pair(Pair &pair);

// the descriptor of mr, as the remote side would receive it
MrRemote remote_of(const rpma_mr_local *mr);

MrLocal reg(rpma_peer *peer, void *ptr, size_t size, int usage);

// the main CQ and the receive CQ (nullptr when there is none)
rpma_cq *cq_of(const rpma_conn *conn);
rpma_cq *rcq_of(const rpma_conn *conn);

} // namespace it

#endif
