// SPDX-License-Identifier: BSD-3-Clause
// rogue_server IP PORT MODE -- accepts one client engine as its server would
// (a workspace describing 1 MiB of memory the client may read and write),
// then misbehaves:
//   gpspm-bad-response  takes one flush request at a time (max_msg_num=1),
//                       answers the first with bytes that are no response
//                       and then nothing more, never posting another
//                       receive, the connection left up
//   gpspm-wrong-context takes up to 16 flush requests at a time, answers
//                       the first with a well-formed response whose
//                       op_context is 1 (no request's) and then nothing
//                       more, the connection left up
//   gpspm-out-of-order  takes up to 16 flush requests at a time, answers
//                       the second (with its own op_context) and not the
//                       first, then dies: disconnects and exits 1 s later
// Prints "waiting for a client" once listening. Exits 0 once the client
// has disconnected (within 60 s of the answer; gpspm-out-of-order: once
// it has answered and disconnected), 1 if it has not, 2 on a local failure.
#include "wire_format.hh"
#include "rogue.hh"

#include <librpma.h>
#include <poll.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using rogue::failed;
using Clock = std::chrono::steady_clock;

bool readable(int fd, int timeout_ms)
{
	pollfd pfd{fd, POLLIN, 0};
	return poll(&pfd, 1, timeout_ms) > 0;
}

long long ms_since(Clock::time_point t)
{
	return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

// The next completion of the kind wanted (a receive, or a send when
// `send`), within 30 s; the others are skipped. False if none came.
bool next_wc(rpma_cq *cq, bool send, ibv_wc *wc)
{
	const auto start = Clock::now();
	while (ms_since(start) < 30000) {
		int got = 0;
		int ret = rpma_cq_get_wc(cq, 1, wc, &got);
		if (ret == RPMA_E_NO_COMPLETION)
			continue;
		if (ret || wc->status != IBV_WC_SUCCESS)
			return false;
		if ((wc->opcode == IBV_WC_SEND) == send)
			return true;
	}
	return false;
}

} // namespace

const char *const rogue::NAME = "rogue_server";

int main(int argc, char *argv[])
{
	const std::string mode = argc == 4 ? argv[3] : "";
	if (mode != "gpspm-bad-response" && mode != "gpspm-wrong-context" &&
	    mode != "gpspm-out-of-order") {
		std::fprintf(stderr,
			     "usage: %s IP PORT "
			     "gpspm-bad-response|gpspm-wrong-context|gpspm-out-of-order\n",
			     argv[0]);
		return 2;
	}
	const uint16_t slots = mode == "gpspm-bad-response" ? 1 : 16;
	constexpr size_t ROOM = rpma_fio::MSG_ROOM;
	rpma_peer *peer;
	int ret = rogue::open_peer(argv[1], RPMA_UTIL_IBV_CONTEXT_LOCAL, &peer);
	if (ret)
		return ret;

	// receive k at k * ROOM, then the one send buffer
	std::vector<char> mem(1 << 20), msgs((slots + 1) * ROOM);
	const size_t send_off = slots * ROOM;
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
	auto ws = rpma_fio::encode_workspace(slots, false, desc);
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
	rpma_conn_cfg_set_rq_size(cfg, slots);
	rpma_conn_cfg_set_sq_size(cfg, slots);
	rpma_conn_cfg_set_cq_size(cfg, 2 * slots);
	rpma_conn_req *req;
	if ((ret = rpma_ep_next_conn_req(ep, cfg, &req)))
		return failed("rpma_ep_next_conn_req", ret);
	for (size_t k = 0; k < slots; k++)
		if ((ret = rpma_conn_req_recv(req, msg_mr, k * ROOM, ROOM,
					      reinterpret_cast<const void *>(k))))
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

	rpma_cq *cq;
	rpma_conn_get_cq(conn, &cq);
	ibv_wc wc{};
	if (!next_wc(cq, false, &wc)) {
		std::fprintf(stderr, "rogue_server: no flush request came\n");
		return 2;
	}
	const auto first = rpma_fio::unpack_request(&msgs[wc.wr_id * ROOM], wc.byte_len);
	if (mode == "gpspm-bad-response") {
		std::memset(&msgs[send_off], 0xff, 16);
		if ((ret = rpma_send(conn, msg_mr, send_off, 16, RPMA_F_COMPLETION_ON_ERROR,
				     nullptr)))
			return failed("rpma_send", ret);
		std::printf("answered a flush request of %u bytes with 16 bytes of 0xff\n",
			    wc.byte_len);
	} else if (mode == "gpspm-wrong-context") {
		if (!first) {
			std::fprintf(stderr, "rogue_server: the request does not unpack\n");
			return 2;
		}
		size_t len = rpma_fio::pack_response(1, &msgs[send_off], ROOM);
		if ((ret = rpma_send(conn, msg_mr, send_off, len, RPMA_F_COMPLETION_ON_ERROR,
				     nullptr)))
			return failed("rpma_send", ret);
		std::printf("answered the flush request of op_context %#llx with op_context 1\n",
			    (unsigned long long)first->op_context);
	} else {
		if (!next_wc(cq, false, &wc)) {
			std::fprintf(stderr, "rogue_server: no second flush request came\n");
			return 2;
		}
		const auto second = rpma_fio::unpack_request(&msgs[wc.wr_id * ROOM], wc.byte_len);
		if (!first || !second) {
			std::fprintf(stderr, "rogue_server: the requests do not unpack\n");
			return 2;
		}
		size_t len = rpma_fio::pack_response(second->op_context, &msgs[send_off], ROOM);
		if ((ret = rpma_send(conn, msg_mr, send_off, len, RPMA_F_COMPLETION_ALWAYS,
				     nullptr)))
			return failed("rpma_send", ret);
		if (!next_wc(cq, true, &wc)) {
			std::fprintf(stderr, "rogue_server: the answer did not go out\n");
			return 2;
		}
		std::printf("answered the second flush request [%llu, +%llu) op_context %#llx, "
			    "not the first [%llu, +%llu) op_context %#llx\n",
			    (unsigned long long)second->offset, (unsigned long long)second->length,
			    (unsigned long long)second->op_context,
			    (unsigned long long)first->offset, (unsigned long long)first->length,
			    (unsigned long long)first->op_context);
		std::fflush(stdout);
		std::this_thread::sleep_for(std::chrono::seconds(1));
		std::printf("dying: disconnecting\n");
	}
	const auto answered = Clock::now();

	bool gone = true;
	if (mode != "gpspm-out-of-order") {
		gone = readable(ev_fd, 60000) && rpma_conn_next_event(conn, &ev) == 0;
		if (gone)
			std::printf("the client ended the connection (%s) %lld ms later\n",
				    rpma_utils_conn_event_2str(ev), ms_since(answered));
		else
			std::printf("the client is still connected %lld ms later\n",
				    ms_since(answered));
	}
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
