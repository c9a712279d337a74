// SPDX-License-Identifier: BSD-3-Clause
// gpspm_rogue_client IP PORT range|garbage -- connects to a GPSPM server as
// its client would and sends one bad flush request: a range past the end of
// any server memory, or bytes that are no protobuf message. The server must
// refuse it and end the connection; exits 0 once it did, 1 if the
// connection is still up after 30 s, 2 on a local failure.
#include "gpspm_msg.hh"

#include <librpma.h>
#include <poll.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

int failed(const char *what, int ret)
{
	std::fprintf(stderr, "gpspm_rogue_client: %s: %s\n", what, rpma_err_2str(ret));
	return 2;
}

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

} // namespace

int main(int argc, char *argv[])
{
	if (argc != 4 || (std::strcmp(argv[3], "range") && std::strcmp(argv[3], "garbage"))) {
		std::fprintf(stderr, "usage: %s IP PORT range|garbage\n", argv[0]);
		return 2;
	}
	ibv_context *dev;
	rpma_peer *peer;
	int ret = rpma_utils_get_ibv_context(argv[1], RPMA_UTIL_IBV_CONTEXT_REMOTE, &dev);
	if (ret)
		return failed("rpma_utils_get_ibv_context", ret);
	if ((ret = rpma_peer_new(dev, &peer)))
		return failed("rpma_peer_new", ret);

	std::vector<char> buf(rpma_fio::MSG_ROOM);
	rpma_mr_local *mr;
	if ((ret = rpma_mr_reg(peer, buf.data(), buf.size(), RPMA_MR_USAGE_SEND, &mr)))
		return failed("rpma_mr_reg", ret);
	size_t len;
	if (argv[3][0] == 'r') {
		// one byte past the largest memory a server can have
		rpma_fio::FlushRequest req{UINT64_MAX - 4095, 4096, 1};
		len = rpma_fio::pack_request(req, buf.data(), buf.size());
	} else {
		len = 16;
		std::memset(buf.data(), 0xff, len);
	}

	rpma_conn_req *req;
	rpma_conn *conn;
	if ((ret = rpma_conn_req_new(peer, argv[1], argv[2], nullptr, &req)))
		return failed("rpma_conn_req_new", ret);
	if ((ret = rpma_conn_req_connect(&req, nullptr, &conn)))
		return failed("rpma_conn_req_connect", ret);
	rpma_conn_event ev;
	if (next_event(conn, 30000, ev) || ev != RPMA_CONN_ESTABLISHED) {
		std::fprintf(stderr, "gpspm_rogue_client: not connected\n");
		return 2;
	}
	if ((ret = rpma_send(conn, mr, 0, len, RPMA_F_COMPLETION_ON_ERROR, nullptr)))
		return failed("rpma_send", ret);
	std::printf("sent a %s request (%zu bytes)\n", argv[3], len);

	const auto start = std::chrono::steady_clock::now();
	ret = next_event(conn, 30000, ev);
	const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
		std::chrono::steady_clock::now() - start).count();
	const bool ended = ret == 0 && ev != RPMA_CONN_ESTABLISHED;
	std::printf("%s after %lld ms\n", ended ? "the server ended the connection"
		: "the connection is still up", static_cast<long long>(ms));
	rpma_conn_disconnect(conn);
	rpma_conn_delete(&conn);
	rpma_mr_dereg(&mr);
	rpma_peer_delete(&peer);
	return ended ? 0 : 1;
}
