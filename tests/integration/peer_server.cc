// SPDX-License-Identifier: BSD-3-Clause

#include "peer_server.hh"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <vector>

#include <cppunit/Exception.h>

#include "check.hh"
#include "pair.hh"
#include "wait.hh"

namespace it {

namespace {

// a peer that is never killed still goes away
constexpr unsigned LIFETIME_S = 120;

void serve(const char *port, int ready_fd)
{
	Peer peer = new_peer(RPMA_UTIL_IBV_CONTEXT_LOCAL);
	std::vector<unsigned char> mem(PEER_REGION_SIZE, 0);
	MrLocal mr = reg(peer.get(), mem.data(), mem.size(),
			 RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC);
	unsigned char desc[21];
	RPMA_OK(rpma_mr_get_descriptor(mr.get(), desc));

	rpma_ep *ep_raw = nullptr;
	RPMA_OK(rpma_ep_listen(peer.get(), test_ip(), port, &ep_raw));
	Ep ep(ep_raw);
	CPPUNIT_ASSERT(write(ready_fd, "L", 1) == 1);

	rpma_conn_req *req = next_conn_req(ep.get(), nullptr);
	rpma_conn_private_data pd{desc, sizeof(desc)};
	rpma_conn *conn_raw = nullptr;
	RPMA_OK(rpma_conn_req_connect(&req, &pd, &conn_raw));
	Conn conn(conn_raw);
	expect_event(conn.get(), RPMA_CONN_ESTABLISHED);
	for (;;)
		pause();
}

} // namespace

int peer_server_main(int argc, char *argv[])
{
	if (argc != 4) {
		std::fprintf(stderr, "usage: %s --peer-server <port> <ready-fd>\n", argv[0]);
		return 2;
	}
	alarm(LIFETIME_S);
	try {
		serve(argv[2], std::atoi(argv[3]));
	} catch (const std::exception &e) {
		std::fprintf(stderr, "peer server: %s\n", e.what());
	}
	return 1;
}

} // namespace it
