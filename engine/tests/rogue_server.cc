// SPDX-License-Identifier: BSD-3-Clause
// rogue_server IP PORT MODE -- accepts one client engine as its server would
// (a workspace describing 1 MiB of memory the client may read and write),
// then misbehaves:
//   gpspm-bad-response  takes one flush request at a time (max_msg_num=1),
//                       answers the first with bytes that are no response
//                       and then nothing more, never posting another
//                       receive, the connection left up
// Prints "waiting for a client" once listening. Exits 0 once the client
// has disconnected (within 60 s of the bad answer), 1 if it has not, 2 on
// a local failure.
#include "gpspm_msg.hh"
#include "rogue.hh"
#include "workspace.hh"

#include <librpma.h>
#include <poll.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using rogue::failed;

bool readable(int fd, int timeout_ms)
{
	pollfd pfd{fd, POLLIN, 0};
	return poll(&pfd, 1, timeout_ms) > 0;
}

long long ms_since(std::chrono::steady_clock::time_point t)
{
	return std::chrono::duration_cast<std::chrono::milliseconds>(
		       std::chrono::steady_clock::now() - t)
		.count();
}

} // namespace

const char *const rogue::NAME = "rogue_server";

int main(int argc, char *argv[])
{
	const std::string mode = argc == 4 ? argv[3] : "";
	if (mode != "gpspm-bad-response") {
		std::fprintf(stderr, "usage: %s IP PORT gpspm-bad-response\n", argv[0]);
		return 2;
	}
	rpma_peer *peer;
	int ret = rogue::open_peer(argv[1], RPMA_UTIL_IBV_CONTEXT_LOCAL, &peer);
	if (ret)
		return ret;

	std::vector<char> mem(1 << 20), msgs(2 * rpma_fio::MSG_ROOM);
	rpma_mr_local *mem_mr, *msg_mr;
	if ((ret = rpma_mr_reg(peer, mem.data(), mem.size(),
			       RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
				       RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
			       &mem_mr)))
		return failed("rpma_mr_reg", ret);
	if ((ret = rpma_mr_reg(peer, msgs.data(), msgs.size(),
			       RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &msg_mr)))
		return failed("rpma_mr_reg", ret);
	size_t desc_size;
	rpma_mr_get_descriptor_size(mem_mr, &desc_size);
	std::vector<uint8_t> desc(desc_size);
	rpma_mr_get_descriptor(mem_mr, desc.data());
	auto ws = rpma_fio::encode_workspace(1, false, desc);
	if (!ws) {
		std::fprintf(stderr, "rogue_server: the descriptor does not fit\n");
		return 2;
	}

	rpma_ep *ep;
	if ((ret = rpma_ep_listen(peer, argv[1], argv[2], &ep)))
		return failed("rpma_ep_listen", ret);
	std::printf("waiting for a client\n");
	std::fflush(stdout);
	rpma_conn_cfg *cfg;
	rpma_conn_cfg_new(&cfg);
	rpma_conn_cfg_set_rq_size(cfg, 1);
	rpma_conn_req *req;
	if ((ret = rpma_ep_next_conn_req(ep, cfg, &req)))
		return failed("rpma_ep_next_conn_req", ret);
	if ((ret = rpma_conn_req_recv(req, msg_mr, 0, rpma_fio::MSG_ROOM, nullptr)))
		return failed("rpma_conn_req_recv", ret);
	rpma_conn_private_data pdata{ws->data(), static_cast<uint8_t>(ws->size())};
	rpma_conn *conn;
	if ((ret = rpma_conn_req_connect(&req, &pdata, &conn)))
		return failed("rpma_conn_req_connect", ret);
	int ev_fd;
	rpma_conn_get_event_fd(conn, &ev_fd);
	rpma_conn_event ev;
	if (!readable(ev_fd, 30000) || rpma_conn_next_event(conn, &ev) ||
	    ev != RPMA_CONN_ESTABLISHED) {
		std::fprintf(stderr, "rogue_server: the client did not connect\n");
		return 2;
	}

	// the first flush request
	rpma_cq *cq;
	rpma_conn_get_cq(conn, &cq);
	ibv_wc wc{};
	int got = 0;
	const auto start = std::chrono::steady_clock::now();
	do {
		ret = rpma_cq_get_wc(cq, 1, &wc, &got);
	} while (ret == RPMA_E_NO_COMPLETION && ms_since(start) < 30000);
	if (ret || wc.status != IBV_WC_SUCCESS || !(wc.opcode & IBV_WC_RECV)) {
		std::fprintf(stderr, "rogue_server: no flush request came\n");
		return 2;
	}
	std::memset(&msgs[rpma_fio::MSG_ROOM], 0xff, 16);
	if ((ret = rpma_send(conn, msg_mr, rpma_fio::MSG_ROOM, 16, RPMA_F_COMPLETION_ON_ERROR,
			     nullptr)))
		return failed("rpma_send", ret);
	const auto answered = std::chrono::steady_clock::now();
	std::printf("answered a flush request of %u bytes with 16 bytes of 0xff\n", wc.byte_len);

	const bool gone = readable(ev_fd, 60000) && rpma_conn_next_event(conn, &ev) == 0;
	if (gone)
		std::printf("the client ended the connection (%s) %lld ms later\n",
			    rpma_utils_conn_event_2str(ev), ms_since(answered));
	else
		std::printf("the client is still connected %lld ms later\n", ms_since(answered));
	std::fflush(stdout);
	rpma_conn_disconnect(conn);
	rpma_conn_delete(&conn);
	rpma_conn_cfg_delete(&cfg);
	rpma_ep_shutdown(&ep);
	rpma_mr_dereg(&msg_mr);
	rpma_mr_dereg(&mem_mr);
	rpma_peer_delete(&peer);
	return gone ? 0 : 1;
}
