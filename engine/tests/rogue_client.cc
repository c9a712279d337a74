// SPDX-License-Identifier: BSD-3-Clause
// rogue_client IP PORT MODE -- connects to a server engine as its client
// would, then misbehaves:
//   gpspm-range    a GPSPM flush request for a range past the end of any
//                  server memory
//   gpspm-garbage  bytes that are no protobuf message, as a flush request
//   outside        an RDMA write just past the end of the server's memory
//   silent         connected, its queue pair then in the error state: it
//                  drops all that arrives, the connection still up, as a
//                  host gone without a word would
// Exits 0 when the server (or its RDMA device) did what it must: ended the
// connection within 30 s (gpspm-*) or 90 s (silent), or failed the write
// with a remote access error (outside); 1 otherwise; 2 on a local failure.
#include "gpspm_msg.hh"
#include "rogue.hh"
#include "workspace.hh"

#include <librpma.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using rogue::failed;

// the next connection event, or -1 after timeout_ms
int next_event(rpma_conn *conn, int timeout_ms, rpma_conn_event &ev)
{
	int fd;
	rpma_conn_get_event_fd(conn, &fd);
	pollfd pfd{fd, POLLIN, 0};
	if (poll(&pfd, 1, timeout_ms) <= 0)
		return -1;
	return rpma_conn_next_event(conn, &ev);
}

// silent: RDMA-CM directly, since rpma hands out no queue pair
int silent(const char *ip, const char *port)
{
	rdma_addrinfo hints{}, *ai;
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_qp_type = IBV_QPT_RC;
	if (rdma_getaddrinfo(ip, port, &hints, &ai)) {
		std::perror("rogue_client: rdma_getaddrinfo");
		return 2;
	}
	ibv_qp_init_attr attr{};
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	attr.qp_type = IBV_QPT_RC;
	rdma_cm_id *id;
	int ret = rdma_create_ep(&id, ai, nullptr, &attr);
	rdma_freeaddrinfo(ai);
	if (ret) {
		std::perror("rogue_client: rdma_create_ep");
		return 2;
	}
	rdma_conn_param param{};
	param.responder_resources = param.initiator_depth = 1;
	param.retry_count = param.rnr_retry_count = 7;
	// a synchronous id: returns once established
	if (rdma_connect(id, &param)) {
		std::perror("rogue_client: rdma_connect");
		return 2;
	}
	ibv_qp_attr qa{};
	qa.qp_state = IBV_QPS_ERR;
	if (ibv_modify_qp(id->qp, &qa, IBV_QP_STATE)) {
		std::perror("rogue_client: ibv_modify_qp");
		return 2;
	}
	std::printf("connected; the queue pair drops all from now on\n");
	const auto start = std::chrono::steady_clock::now();
	pollfd pfd{id->channel->fd, POLLIN, 0};
	rdma_cm_event *ev = nullptr;
	bool ended = poll(&pfd, 1, 90000) > 0 && rdma_get_cm_event(id->channel, &ev) == 0 &&
		     ev->event == RDMA_CM_EVENT_DISCONNECTED;
	if (ev)
		rdma_ack_cm_event(ev);
	std::printf("%s after %lld ms\n",
		    ended ? "the server ended the connection" : "the connection is still up",
		    static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
						   std::chrono::steady_clock::now() - start)
						   .count()));
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	return ended ? 0 : 1;
}

} // namespace

const char *const rogue::NAME = "rogue_client";

int main(int argc, char *argv[])
{
	const std::string mode = argc == 4 ? argv[3] : "";
	if (mode != "gpspm-range" && mode != "gpspm-garbage" && mode != "outside" &&
	    mode != "silent") {
		std::fprintf(stderr,
			     "usage: %s IP PORT "
			     "gpspm-range|gpspm-garbage|outside|silent\n",
			     argv[0]);
		return 2;
	}
	if (mode == "silent")
		return silent(argv[1], argv[2]);
	rpma_peer *peer;
	int ret = rogue::open_peer(argv[1], RPMA_UTIL_IBV_CONTEXT_REMOTE, &peer);
	if (ret)
		return ret;

	std::vector<char> buf(rpma_fio::MSG_ROOM);
	rpma_mr_local *mr;
	if ((ret = rpma_mr_reg(peer, buf.data(), buf.size(),
			       RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_WRITE_SRC, &mr)))
		return failed("rpma_mr_reg", ret);

	rpma_conn_req *req;
	rpma_conn *conn;
	if ((ret = rpma_conn_req_new(peer, argv[1], argv[2], nullptr, &req)))
		return failed("rpma_conn_req_new", ret);
	if ((ret = rpma_conn_req_connect(&req, nullptr, &conn)))
		return failed("rpma_conn_req_connect", ret);
	rpma_conn_event ev;
	if (next_event(conn, 30000, ev) || ev != RPMA_CONN_ESTABLISHED) {
		std::fprintf(stderr, "rogue_client: not connected\n");
		return 2;
	}

	bool as_expected;
	const auto start = std::chrono::steady_clock::now();
	if (mode == "outside") {
		rpma_conn_private_data pdata{};
		rpma_conn_get_private_data(conn, &pdata);
		auto ws = rpma_fio::decode_workspace(pdata.ptr, pdata.len);
		rpma_mr_remote *remote;
		size_t size;
		if (!ws) {
			std::fprintf(stderr, "rogue_client: no workspace from the server\n");
			return 2;
		}
		// rpma refuses a range past the region it was described, so the
		// rogue's descriptor overstates the server's by the write's length
		// (bytes 8-15, little-endian): only the remote device can refuse
		std::vector<unsigned char> desc(ws->descriptor.begin(), ws->descriptor.end());
		uint64_t real = 0;
		for (int i = 7; i >= 0; i--)
			real = real << 8 | desc[8 + i];
		size = real;
		const uint64_t overstated = real + buf.size();
		for (int i = 0; i < 8; i++)
			desc[8 + i] = static_cast<unsigned char>(overstated >> (8 * i));
		if ((ret = rpma_mr_remote_from_descriptor(desc.data(), desc.size(), &remote)))
			return failed("rpma_mr_remote_from_descriptor", ret);
		if ((ret = rpma_write(conn, remote, size, mr, 0, buf.size(),
				      RPMA_F_COMPLETION_ALWAYS, nullptr)))
			return failed("rpma_write", ret);
		rpma_cq *cq;
		rpma_conn_get_cq(conn, &cq);
		ibv_wc wc{};
		int got = 0;
		do {
			ret = rpma_cq_get_wc(cq, 1, &wc, &got);
		} while (ret == RPMA_E_NO_COMPLETION &&
			 std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
		as_expected = ret == 0 && wc.status == IBV_WC_REM_ACCESS_ERR;
		std::printf("a write of %zu bytes at offset %zu of %zu: %s\n", buf.size(), size,
			    size, ret ? rpma_err_2str(ret) : ibv_wc_status_str(wc.status));
		// An iWARP write completes once sent; the remote device refuses
		// it by ending the connection (a TERMINATE): docs/platforms.md,
		// "What differs on iWARP".
		ibv_context *dev = nullptr;
		if (ret == 0 && wc.status == IBV_WC_SUCCESS &&
		    rpma_utils_get_ibv_context(argv[1], RPMA_UTIL_IBV_CONTEXT_REMOTE, &dev) == 0 &&
		    dev->device->transport_type == IBV_TRANSPORT_IWARP) {
			as_expected = next_event(conn, 30000, ev) == 0 &&
				      ev != RPMA_CONN_ESTABLISHED;
			std::printf("iWARP: %s\n",
				    as_expected ? "the remote device ended the connection"
						: "the connection is still up");
		}
		rpma_mr_remote_delete(&remote);
	} else {
		size_t len;
		if (mode == "gpspm-range") {
			// one byte past the largest memory a server can have
			rpma_fio::FlushRequest flush{UINT64_MAX - 4095, 4096, 1};
			len = rpma_fio::pack_request(flush, buf.data(), buf.size());
		} else {
			len = 16;
			std::memset(buf.data(), 0xff, len);
		}
		if ((ret = rpma_send(conn, mr, 0, len, RPMA_F_COMPLETION_ON_ERROR, nullptr)))
			return failed("rpma_send", ret);
		std::printf("sent a %s request (%zu bytes)\n", argv[3], len);
		ret = next_event(conn, 30000, ev);
		as_expected = ret == 0 && ev != RPMA_CONN_ESTABLISHED;
		std::printf("%s\n", as_expected ? "the server ended the connection"
						: "the connection is still up");
	}
	std::printf("after %lld ms\n",
		    static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
						   std::chrono::steady_clock::now() - start)
						   .count()));
	rpma_conn_disconnect(conn);
	rpma_conn_delete(&conn);
	rpma_mr_dereg(&mr);
	rpma_peer_delete(&peer);
	return as_expected ? 0 : 1;
}
