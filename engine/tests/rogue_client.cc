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
//   imm-gpspm      two flush requests, a long one and a short one (each
//                  answered), then an RDMA write with immediate data of up
//                  to 64 MiB into its region: the write takes the message
//                  slot the requests used, with the write's length, and the
//                  slot still holds the long request's tail, laid out to
//                  send a parser that trusts that length far past the slot
//   imm-apm        promises an APM server its end-of-run notice, then
//                  writes with immediate data instead
//   after-end      a GPSPM end-of-run notice, then (once "notice sent" is
//                  printed, after 3 s) bytes that are no flush request and
//                  a disconnect at once
//   probe-during-answer
//                  makes a GPSPM server's liveness probe fail while the
//                  server is answering it: its queue pair refuses RDMA
//                  writes (the probe is one), it sends max_msg_num flush
//                  requests with no receive posted for their answers (the
//                  server's device retries them, the probe queued behind),
//                  stays quiet for 7 s (the server probes a client quiet
//                  for 5 s), then sends one more request, posts the
//                  receives (the answers complete, the probe fails) and
//                  disconnects
//   gives-up [N]   sends a connection request and, at once, destroys its
//                  connection: a request the server (stopped meanwhile)
//                  finds already given up when it takes it; N times (1)
//   no-rtu         sends a connection request and never completes it: the
//                  server's answer is left unread, so that the last
//                  message of the handshake (the RTU) never goes out; holds
//                  it for 20 s
//   from SRC N     sends N connection requests from the local address SRC
//                  (a second address of the host, outside a server's
//                  allow=), each as fast as the server answers it: 0 if
//                  the server refused every one
//   leaked DESC REGIONS
//                  connects as a client (its own place), then uses what
//                  the test handed it: DESC, another client's descriptor
//                  as that client took it (engine_check.cc,
//                  ENGINE_CHECK_DESCRIPTOR_TO: its key and address), and
//                  REGIONS, the server's registrations (the key of the
//                  region under that range, ENGINE_CHECK_REGIONS_TO): with
//                  each key, an RDMA write over the whole range, then a
//                  read of its first 4 KiB; a write that succeeds is
//                  repeated for 3 s (the other client's verify is to see
//                  it). 0 if no foreign byte was read or written
//   guessing       guesses the keys of the server's other ranges: for each
//                  of the 8 pool indices around its own range's key (an
//                  rxe or mlx5 key is a pool index and 8 random bits),
//                  every one of the 256 keys, at the address its own
//                  range's arithmetic gives (a range of the same size, as
//                  many ranges away as the index is from its own); an
//                  8-byte read, and when it succeeds a write of the same
//                  bytes back. Each failed guess ends a connection, so
//                  each guess is made on a fresh one, made by hand: its
//                  queue pair brought up from the server's accept and the
//                  handshake's last message (the RTU) never sent, so that
//                  the server gives the place back when it goes (at once:
//                  it is rejected). 0 if no foreign byte was read or
//                  written
//   rooms-full     holds a GPSPM server's answers back (no receive posted
//                  for them) while it sends max_msg_num flush requests,
//                  then one more, which waits in the server for a send
//                  room; then posts the receives, takes every answer and
//                  ends its run as a client does (the end-of-run request,
//                  a disconnect)
// Exits 0 when the server (or its RDMA device) did what it must: ended the
// connection within 30 s (gpspm-*, imm-*) or 90 s (silent), or failed the
// write with a remote access error (outside); after-end and gives-up when
// it sent all (no-rtu: and held it); rooms-full when every answer came, in its
// request's order; 1 otherwise;
// 2 on a local failure.
#include "wire_format.hh"
#include "rogue.hh"

#include <librpma.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
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

// An RC connection made with RDMA-CM directly (rpma hands out no queue
// pair), queues of `depth` work requests: a synchronous id, returned once
// established, or nullptr after saying why.
rdma_cm_id *connect_raw(const char *ip, const char *port, uint32_t depth,
			const void *pdata = nullptr, uint8_t pdata_len = 0)
{
	rdma_addrinfo hints{}, *ai;
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_qp_type = IBV_QPT_RC;
	if (rdma_getaddrinfo(ip, port, &hints, &ai)) {
		std::perror("rogue_client: rdma_getaddrinfo");
		return nullptr;
	}
	ibv_qp_init_attr attr{};
	attr.cap.max_send_wr = attr.cap.max_recv_wr = depth;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	attr.qp_type = IBV_QPT_RC;
	rdma_cm_id *id;
	int ret = rdma_create_ep(&id, ai, nullptr, &attr);
	rdma_freeaddrinfo(ai);
	if (ret) {
		std::perror("rogue_client: rdma_create_ep");
		return nullptr;
	}
	rdma_conn_param param{};
	param.responder_resources = param.initiator_depth = 1;
	param.retry_count = param.rnr_retry_count = 7;
	param.private_data = pdata;
	param.private_data_len = pdata_len;
	if (rdma_connect(id, &param)) {
		std::perror("rogue_client: rdma_connect");
		return nullptr;
	}
	return id;
}

// Puts id's queue pair in the error state, which rpma does not do: it drops
// whatever comes from then on. false after saying why.
bool to_error_state(rdma_cm_id *id)
{
	ibv_qp_attr qa{};
	qa.qp_state = IBV_QPS_ERR;
	if (ibv_modify_qp(id->qp, &qa, IBV_QP_STATE)) {
		std::perror("rogue_client: ibv_modify_qp");
		return false;
	}
	return true;
}

// silent: its queue pair put in the error state
int silent(const char *ip, const char *port)
{
	rdma_cm_id *id = connect_raw(ip, port, 1);
	if (!id || !to_error_state(id))
		return 2;
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

// Waits up to 30 s for a completion of cq: 0 and *wc, or 1.
int next_completion(rpma_cq *cq, ibv_wc *wc)
{
	const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
	int ret;
	do {
		ret = rpma_cq_get_wc(cq, 1, wc, nullptr);
	} while (ret == RPMA_E_NO_COMPLETION && std::chrono::steady_clock::now() < end);
	return ret ? 1 : 0;
}

// Sends buf[0, len) from mr and waits for the server's answer (a receive
// posted at recv_off): 0, or 1 after saying why.
int ask(rpma_conn *conn, rpma_mr_local *mr, size_t len, size_t recv_off)
{
	int ret = rpma_recv(conn, mr, recv_off, rpma_fio::MSG_ROOM, nullptr);
	if (!ret)
		ret = rpma_send(conn, mr, 0, len, RPMA_F_COMPLETION_ALWAYS, nullptr);
	if (ret)
		return failed("rpma_send", ret), 1;
	rpma_cq *cq;
	rpma_conn_get_cq(conn, &cq);
	for (int got = 0; got < 2; got++) {
		ibv_wc wc{};
		if (next_completion(cq, &wc) || wc.status != IBV_WC_SUCCESS) {
			std::fprintf(stderr, "rogue_client: no answer to a request of %zu bytes\n",
				     len);
			return 1;
		}
	}
	return 0;
}

// The long request: an unknown length-delimited field 4 first, whose
// payload holds at byte STALE_AT (where a short request ends) the tag of a
// field 5 of `skip` bytes, then the three fields of a flush of [0, +4096).
// Read alone it is a good request; read after a short request overwrote
// its first bytes, with a length of `len`, field 5 sends the parser to
// len - 1 bytes past the slot's start.
constexpr size_t STALE_AT = rpma_fio::FLUSH_REQUEST_SIZE;

size_t long_request(char *buf, size_t len)
{
	auto *p = reinterpret_cast<uint8_t *>(buf);
	constexpr size_t PAYLOAD = 100; // one byte of varint
	std::memset(p, 0, 2 + PAYLOAD);
	p[0] = 4 << 3 | 2;
	p[1] = PAYLOAD;
	uint8_t *stale = p + STALE_AT;
	*stale++ = 5 << 3 | 2;
	// the varint takes 4 bytes for any skip below 2^28
	uint64_t skip = len - (STALE_AT + 1 + 4) - 1;
	for (int i = 0; i < 4; i++, skip >>= 7)
		*stale++ = static_cast<uint8_t>((skip & 0x7f) | (i < 3 ? 0x80 : 0));
	const rpma_fio::FlushRequest flush{0, 4096, 1};
	return 2 + PAYLOAD +
	       rpma_fio::pack_request(flush, p + 2 + PAYLOAD, rpma_fio::FLUSH_REQUEST_SIZE);
}

// The server's region, from its workspace: nullptr after saying why.
rpma_mr_remote *server_region(rpma_conn *conn, size_t *size)
{
	rpma_conn_private_data pdata{};
	rpma_conn_get_private_data(conn, &pdata);
	auto ws = rpma_fio::decode_workspace(pdata.ptr, pdata.len);
	rpma_mr_remote *remote = nullptr;
	if (!ws) {
		std::fprintf(stderr, "rogue_client: no workspace from the server\n");
		return nullptr;
	}
	int ret = rpma_mr_remote_from_descriptor(ws->descriptor.data(), ws->descriptor.size(),
						 &remote);
	if (ret) {
		failed("rpma_mr_remote_from_descriptor", ret);
		return nullptr;
	}
	rpma_mr_remote_get_size(remote, size);
	return remote;
}

// imm-gpspm, imm-apm: 0 once the write went out, else 1. The memory is
// the caller's (*buf, *mr), kept until the server has ended the connection.
int write_with_imm(rpma_peer *peer, rpma_conn *conn, bool requests_first, std::vector<char> *buf,
		   rpma_mr_local **mr)
{
	size_t size = 0;
	rpma_mr_remote *remote = server_region(conn, &size);
	if (!remote)
		return 1;
	const size_t len = std::min<size_t>(size, size_t{64} << 20);
	buf->resize(len);
	int ret = rpma_mr_reg(peer, buf->data(), buf->size(),
			      RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV | RPMA_MR_USAGE_WRITE_SRC,
			      mr);
	if (ret) {
		rpma_mr_remote_delete(&remote);
		return failed("rpma_mr_reg", ret), 1;
	}
	int status = 0;
	if (requests_first) {
		const size_t long_len = long_request(buf->data(), len);
		status = ask(conn, *mr, long_len, rpma_fio::MSG_ROOM);
		const size_t short_len = rpma_fio::pack_request({0, 4096, 2}, buf->data(),
								rpma_fio::FLUSH_REQUEST_SIZE);
		if (!status)
			status = ask(conn, *mr, short_len, rpma_fio::MSG_ROOM);
		if (!status)
			std::printf("sent a request of %zu bytes, then one of %zu, both answered\n",
				    long_len, short_len);
	}
	if (!status && (ret = rpma_write_with_imm(conn, remote, 0, *mr, 0, len,
						  RPMA_F_COMPLETION_ON_ERROR, 0, nullptr))) {
		failed("rpma_write_with_imm", ret);
		status = 1;
	}
	if (!status)
		std::printf("wrote %zu bytes with immediate data\n", len);
	std::fflush(stdout);
	rpma_mr_remote_delete(&remote);
	return status;
}

// after-end: 0 once the notice, the bytes and the disconnect went out
int after_end(rpma_peer *peer, rpma_conn *conn)
{
	std::vector<char> buf(rpma_fio::MSG_ROOM);
	rpma_mr_local *mr;
	int ret = rpma_mr_reg(peer, buf.data(), buf.size(), RPMA_MR_USAGE_SEND, &mr);
	if (ret)
		return failed("rpma_mr_reg", ret), 1;
	rpma_cq *cq;
	rpma_conn_get_cq(conn, &cq);
	ibv_wc wc{};
	const size_t len = rpma_fio::pack_request({0, 0, 0}, buf.data(), buf.size());
	if ((ret = rpma_send(conn, mr, 0, len, RPMA_F_COMPLETION_ALWAYS, nullptr)) ||
	    next_completion(cq, &wc) || wc.status != IBV_WC_SUCCESS)
		return std::fprintf(stderr, "rogue_client: the notice did not go out\n"), 1;
	std::printf("notice sent\n");
	std::fflush(stdout);
	std::this_thread::sleep_for(std::chrono::seconds(3));
	std::memset(buf.data(), 0xff, 16);
	if ((ret = rpma_send(conn, mr, 0, 16, RPMA_F_COMPLETION_ALWAYS, nullptr)) ||
	    next_completion(cq, &wc) || wc.status != IBV_WC_SUCCESS)
		return std::fprintf(stderr, "rogue_client: the bytes did not go out\n"), 1;
	rpma_conn_disconnect(conn);
	std::printf("sent 16 bytes that are no request, and disconnected\n");
	rpma_mr_dereg(&mr);
	return 0;
}

// the server's workspace in the accept of a synchronous id, or nullopt
std::optional<rpma_fio::Workspace> accepted_workspace(rdma_cm_id *id)
{
	if (!id->event || !id->event->param.conn.private_data)
		return std::nullopt;
	return rpma_fio::decode_workspace(id->event->param.conn.private_data,
					  id->event->param.conn.private_data_len);
}

// The next completion of cq, polled for up to 30 s: 0 and *wc, or 1.
int poll_one(ibv_cq *cq, ibv_wc *wc)
{
	const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
	int got;
	while ((got = ibv_poll_cq(cq, 1, wc)) == 0 && std::chrono::steady_clock::now() < end)
		std::this_thread::sleep_for(std::chrono::microseconds(100));
	return got == 1 ? 0 : 1;
}

// Posts `n` signaled sends of flush requests of [0, +4096), op_contexts
// from *next on, and waits for their completions: 0, or 1.
int send_requests(rdma_cm_id *id, ibv_mr *mr, char *buf, unsigned n, uint64_t *next)
{
	for (unsigned i = 0; i < n; i++) {
		char *msg = buf + i * rpma_fio::MSG_ROOM;
		const size_t len = rpma_fio::pack_request({0, 4096, (*next)++}, msg,
							  rpma_fio::MSG_ROOM);
		if (rdma_post_send(id, nullptr, msg, len, mr, IBV_SEND_SIGNALED)) {
			std::perror("rogue_client: rdma_post_send");
			return 1;
		}
	}
	for (unsigned got = 0; got < n; got++) {
		ibv_wc wc;
		if (poll_one(id->send_cq, &wc) || wc.status != IBV_WC_SUCCESS) {
			std::fprintf(stderr, "rogue_client: a request did not go out\n");
			return 1;
		}
	}
	return 0;
}

// The message slots of the GPSPM server that accepted id (its workspace's
// max_msg_num), or 0 after saying why.
unsigned gpspm_slots(rdma_cm_id *id)
{
	const std::optional<rpma_fio::Workspace> ws = accepted_workspace(id);
	if (!ws || ws->max_msg_num == 0 || ws->max_msg_num > 128) {
		std::fprintf(stderr, "rogue_client: no GPSPM workspace from the server\n");
		return 0;
	}
	return ws->max_msg_num;
}

// A connection to a GPSPM server made with verbs directly: its message
// slots, and registered room for twice slots + 1 messages.
struct RawGpspm {
	rdma_cm_id *id = nullptr;
	unsigned slots = 0;
	std::vector<char> buf;
	ibv_mr *mr = nullptr;

	// false after saying why; promising an APM server the end-of-run
	// notice, its one receive is the slot
	bool connect(const char *ip, const char *port, bool promise_notice = false)
	{
		const auto promise = rpma_fio::encode_end_notice_request();
		const auto len = static_cast<uint8_t>(promise_notice ? promise.size() : 0);
		if (!(id = connect_raw(ip, port, 256, promise.data(), len)) ||
		    !(slots = gpspm_slots(id)))
			return false;
		buf.resize(size_t{2} * (slots + 1) * rpma_fio::MSG_ROOM);
		if (!(mr = rdma_reg_msgs(id, buf.data(), buf.size())))
			std::perror("rogue_client: rdma_reg_msgs");
		return mr != nullptr;
	}

	// The end of the run, as a client ends it (the all-zero request, or
	// notice), its SEND completed: the server has it. false if not.
	bool send_end()
	{
		const size_t len = rpma_fio::pack_request({0, 0, 0}, buf.data(),
							  rpma_fio::MSG_ROOM);
		ibv_wc wc;
		return rdma_post_send(id, nullptr, buf.data(), len, mr, IBV_SEND_SIGNALED) == 0 &&
		       poll_one(id->send_cq, &wc) == 0 && wc.status == IBV_WC_SUCCESS;
	}
};

// probe-during-answer: verbs directly, since rpma sets no queue pair's
// access flags. 0 once it all went out, else 1 (2: local).
int probe_during_answer(const char *ip, const char *port)
{
	RawGpspm raw;
	if (!raw.connect(ip, port))
		return 2;
	auto &[id, slots, buf, mr] = raw;
	ibv_qp_attr qa{};
	qa.qp_access_flags = 0; // no RDMA write: the server's probe fails
	if (ibv_modify_qp(id->qp, &qa, IBV_QP_ACCESS_FLAGS)) {
		std::perror("rogue_client: ibv_modify_qp");
		return 2;
	}
	uint64_t next = 1;
	if (send_requests(id, mr, buf.data(), slots, &next))
		return 1;
	std::printf("%u requests sent, their answers held\n", slots);
	std::fflush(stdout);
	std::this_thread::sleep_for(std::chrono::seconds(7));
	if (send_requests(id, mr, buf.data(), 1, &next))
		return 1;
	char *recv = buf.data() + (slots + 1) * rpma_fio::MSG_ROOM;
	for (unsigned i = 0; i < slots; i++)
		if (rdma_post_recv(id, nullptr, recv + i * rpma_fio::MSG_ROOM, rpma_fio::MSG_ROOM,
				   mr)) {
			std::perror("rogue_client: rdma_post_recv");
			return 2;
		}
	unsigned answers = 0;
	for (; answers < slots; answers++) {
		ibv_wc wc;
		if (poll_one(id->recv_cq, &wc) || wc.status != IBV_WC_SUCCESS)
			break;
	}
	// the probe, behind the answers, fails now; the disconnect follows
	std::this_thread::sleep_for(std::chrono::milliseconds(50));
	rdma_disconnect(id);
	std::printf("one more request sent, %u answers taken, disconnected\n", answers);
	std::this_thread::sleep_for(std::chrono::seconds(2));
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	return answers == slots ? 0 : 1;
}

// rooms-full: verbs directly, to hold the answers back.
int rooms_full(const char *ip, const char *port)
{
	RawGpspm raw;
	if (!raw.connect(ip, port))
		return 2;
	auto &[id, slots, buf, mr] = raw;
	uint64_t next = 1;
	if (send_requests(id, mr, buf.data(), slots, &next))
		return 1;
	// the server answers them, its device retrying each answer
	std::this_thread::sleep_for(std::chrono::milliseconds(500));
	if (send_requests(id, mr, buf.data(), 1, &next))
		return 1;
	std::printf("%u requests sent, their answers held, then one more\n", slots);
	std::fflush(stdout);
	std::this_thread::sleep_for(std::chrono::milliseconds(500));
	char *recv = buf.data() + (slots + 1) * rpma_fio::MSG_ROOM;
	for (unsigned i = 0; i <= slots; i++) {
		char *room = recv + i * rpma_fio::MSG_ROOM;
		if (rdma_post_recv(id, room, room, rpma_fio::MSG_ROOM, mr)) {
			std::perror("rogue_client: rdma_post_recv");
			return 2;
		}
	}
	const auto posted = std::chrono::steady_clock::now();
	uint64_t expected = 1;
	for (; expected <= slots + 1; expected++) {
		ibv_wc wc;
		if (poll_one(id->recv_cq, &wc) || wc.status != IBV_WC_SUCCESS)
			break;
		const std::optional<uint64_t> op = rpma_fio::unpack_response(
			reinterpret_cast<const char *>(wc.wr_id), wc.byte_len);
		if (op != expected) {
			std::printf("answer %llu: op_context %lld, not %llu\n",
				    (unsigned long long)expected, op ? (long long)*op : -1LL,
				    (unsigned long long)expected);
			break;
		}
	}
	const uint64_t answers = expected - 1;
	const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
				std::chrono::steady_clock::now() - posted)
				.count();
	// the end of the run, as a client ends it, then the disconnect
	const bool end = raw.send_end();
	rdma_disconnect(id);
	std::printf("%llu of %u answers in order (%lld ms after the receives were posted), "
		    "end-of-run request %s, disconnected\n",
		    (unsigned long long)answers, slots + 1, (long long)ms, end ? "sent" : "failed");
	std::this_thread::sleep_for(std::chrono::seconds(1));
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	return answers == slots + 1 && end ? 0 : 1;
}

// gpspm-ends-then-silent, apm-ends-then-silent: the end-of-run request or
// notice (its SEND completed: the server has it), then the queue pair in
// the error state, which drops whatever comes, the server's probes too,
// and no disconnect: as a client whose disconnect request was lost on the
// way. Sleeps until killed (at most a minute). 0 once the request went
// out, else 1 (2: local).
int ends_then_silent(const char *ip, const char *port, bool apm)
{
	RawGpspm raw;
	if (!raw.connect(ip, port, apm))
		return 2;
	if (!raw.send_end())
		return 1;
	if (!to_error_state(raw.id))
		return 2;
	std::printf("end-of-run request sent, then silent\n");
	std::fflush(stdout);
	std::this_thread::sleep_for(std::chrono::seconds(60));
	return 0;
}

// A stranger that reaches the port: `count` connection requests, each
// given up at once, or (no_rtu) one left incomplete for 20 s.
int stranger(const char *ip, const char *port, unsigned long count, bool no_rtu)
{
	rpma_peer *peer;
	int ret = rogue::open_peer(ip, RPMA_UTIL_IBV_CONTEXT_REMOTE, &peer);
	if (ret)
		return ret;
	for (unsigned long i = 0; i < count; i++) {
		rpma_conn_req *req;
		rpma_conn *conn;
		if ((ret = rpma_conn_req_new(peer, ip, port, nullptr, &req)))
			return failed("rpma_conn_req_new", ret);
		if ((ret = rpma_conn_req_connect(&req, nullptr, &conn)))
			return failed("rpma_conn_req_connect", ret);
		if (no_rtu) {
			// its answer, and the RTU that reading it sends, wait
			std::printf("a connection request sent, its handshake left incomplete\n");
			std::fflush(stdout);
			std::this_thread::sleep_for(std::chrono::seconds(20));
		}
		(void)rpma_conn_delete(&conn); // not connected: what it ends may fail
	}
	if (!no_rtu)
		std::printf("%lu connection requests sent and given up\n", count);
	rpma_peer_delete(&peer);
	return 0;
}

// from SRC N: synchronous ids (no channel, no queue pair: a stranger needs
// neither to send a request), each request waited for until the server
// answers it.
int from_source(const char *ip, const char *port, const char *src, unsigned long count)
{
	rdma_addrinfo hints{}, *dst = nullptr, *from = nullptr;
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_qp_type = IBV_QPT_RC;
	if (rdma_getaddrinfo(ip, port, &hints, &dst)) {
		std::perror("rogue_client: rdma_getaddrinfo");
		return 2;
	}
	hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(src, nullptr, &hints, &from)) {
		std::perror("rogue_client: rdma_getaddrinfo (the source)");
		return 2;
	}
	unsigned long refused = 0, accepted = 0, other = 0;
	int other_errno = 0;
	const auto start = std::chrono::steady_clock::now();
	for (unsigned long i = 0; i < count; i++) {
		rdma_cm_id *id;
		if (rdma_create_id(nullptr, &id, nullptr, RDMA_PS_TCP)) {
			std::perror("rogue_client: rdma_create_id");
			return 2;
		}
		if (rdma_resolve_addr(id, from->ai_src_addr, dst->ai_dst_addr, 2000) ||
		    rdma_resolve_route(id, 2000)) {
			std::perror("rogue_client: resolving the server from the source");
			return 2;
		}
		// no queue pair, none is ever used; a number of its own for each
		// request, as distinct hosts' would be: the CM rejects a request
		// that repeats one of a connection still in its time-wait as
		// stale, before the server sees it. And out of the device's own
		// range: this rogue shares the device (its GUID) with the honest
		// clients, and a request naming one of their queue pairs makes the
		// CM disconnect that client as stale (rxe numbers them cyclically
		// below 0x20000, so a suite's later cases reach the thousands)
		rdma_conn_param param{};
		param.qp_num = static_cast<uint32_t>(0xff0000 + i) & 0xffffff;
		param.responder_resources = param.initiator_depth = 1;
		if (rdma_connect(id, &param) == 0)
			accepted++; // not connected: the server took it
		else if (errno == ECONNREFUSED)
			refused++;
		else if (other++ == 0)
			other_errno = errno;
		rdma_destroy_id(id);
	}
	std::printf("%lu connection requests from %s in %lld ms: %lu refused, %lu accepted, "
		    "%lu otherwise (%s)\n",
		    count, src,
		    static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
						   std::chrono::steady_clock::now() - start)
						   .count()),
		    refused, accepted, other, other ? std::strerror(other_errno) : "-");
	rdma_freeaddrinfo(from);
	rdma_freeaddrinfo(dst);
	return refused == count ? 0 : 1;
}

// DESC's bytes (hex on one line), or none after saying why.
std::optional<std::vector<uint8_t>> hex_file(const char *path)
{
	FILE *f = std::fopen(path, "r");
	if (!f) {
		std::perror(path);
		return std::nullopt;
	}
	std::vector<uint8_t> bytes;
	unsigned int b;
	while (std::fscanf(f, "%2x", &b) == 1)
		bytes.push_back(static_cast<uint8_t>(b));
	std::fclose(f);
	if (bytes.size() < 21) {
		std::fprintf(stderr, "rogue_client: %s holds no descriptor\n", path);
		return std::nullopt;
	}
	return bytes;
}

uint64_t le(const std::vector<uint8_t> &b, size_t at, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | b[at + i];
	return v;
}

// The rkey of the registration in REGIONS ("ADDRESS LENGTH RKEY ACCESS",
// hex) that holds addr, or none.
std::optional<uint32_t> region_key(const char *path, uint64_t addr)
{
	FILE *f = std::fopen(path, "r");
	if (!f) {
		std::perror(path);
		return std::nullopt;
	}
	unsigned long a, len;
	unsigned int rkey, access;
	std::optional<uint32_t> key;
	while (std::fscanf(f, "%lx %lx %x %x", &a, &len, &rkey, &access) == 4)
		if (addr >= a && addr < a + len)
			key = rkey;
	std::fclose(f);
	return key;
}

// One RDMA write or read of len bytes at the start of the range that desc
// describes: the completion's status, or "not posted: ..." when the
// connection refused the post (after an earlier failure ended it).
std::string try_access(rpma_conn *conn, const std::vector<uint8_t> &desc, rpma_mr_local *mr,
		       size_t len, bool write)
{
	rpma_mr_remote *remote;
	int ret = rpma_mr_remote_from_descriptor(desc.data(), desc.size(), &remote);
	if (ret)
		return std::string("no descriptor: ") + rpma_err_2str(ret);
	ret = write ? rpma_write(conn, remote, 0, mr, 0, len, RPMA_F_COMPLETION_ALWAYS, nullptr)
		    : rpma_read(conn, mr, 0, remote, 0, len, RPMA_F_COMPLETION_ALWAYS, nullptr);
	rpma_mr_remote_delete(&remote);
	if (ret)
		return std::string("not posted: ") + rpma_err_2str(ret);
	rpma_cq *cq;
	rpma_conn_get_cq(conn, &cq);
	ibv_wc wc{};
	if (next_completion(cq, &wc))
		return "no completion within 30 s";
	return ibv_wc_status_str(wc.status);
}

// leaked DESC REGIONS: the caller's connection, established.
int leaked(rpma_peer *peer, rpma_conn *conn, const char *desc_file, const char *regions_file)
{
	const std::optional<std::vector<uint8_t>> handed = hex_file(desc_file);
	if (!handed)
		return 2;
	const uint64_t addr = le(*handed, 0, 8), size = le(*handed, 8, 8);
	const auto leaked_key = static_cast<uint32_t>(le(*handed, 16, 4));
	const std::optional<uint32_t> under = region_key(regions_file, addr);
	if (!under) {
		std::fprintf(stderr, "rogue_client: no registration of the server holds 0x%llx\n",
			     static_cast<unsigned long long>(addr));
		return 2;
	}
	size_t own_size = 0;
	if (rpma_mr_remote *own = server_region(conn, &own_size))
		rpma_mr_remote_delete(&own);
	const size_t len = std::min<size_t>(size, size_t{1} << 20);
	std::vector<char> buf(len, 'R');
	rpma_mr_local *mr;
	int ret = rpma_mr_reg(peer, buf.data(), buf.size(),
			      RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC, &mr);
	if (ret)
		return failed("rpma_mr_reg", ret);
	std::printf("handed [0x%llx, +%llu) with key 0x%x; the region under it has key 0x%x; "
		    "its own range is %zu bytes\n",
		    static_cast<unsigned long long>(addr), static_cast<unsigned long long>(size),
		    leaked_key, *under, own_size);
	uint64_t foreign_read = 0, foreign_written = 0;
	bool wrote = false;
	for (const uint32_t key : {leaked_key, *under}) {
		std::vector<uint8_t> desc = *handed;
		for (int i = 0; i < 4; i++)
			desc[16 + i] = static_cast<uint8_t>(key >> (8 * i));
		const char *whose = key == leaked_key ? "the leaked key" : "the region's key";
		std::string status = try_access(conn, desc, mr, len, true);
		if (status == ibv_wc_status_str(IBV_WC_SUCCESS)) {
			foreign_written += len;
			wrote = true;
		}
		std::printf("write of %zu bytes with %s 0x%x: %s\n", len, whose, key,
			    status.c_str());
		const size_t rlen = std::min<size_t>(len, 4096);
		std::memset(buf.data(), 0, rlen);
		status = try_access(conn, desc, mr, rlen, false);
		if (status == ibv_wc_status_str(IBV_WC_SUCCESS))
			foreign_read += rlen;
		std::printf("read of %zu bytes with %s 0x%x: %s\n", rlen, whose, key,
			    status.c_str());
		std::memset(buf.data(), 'R', len);
		if (wrote) {
			// what the other client's verification is to find
			const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
			unsigned n = 0;
			while (std::chrono::steady_clock::now() < end &&
			       try_access(conn, desc, mr, len, true) ==
				       ibv_wc_status_str(IBV_WC_SUCCESS)) {
				foreign_written += len;
				n++;
				std::this_thread::sleep_for(std::chrono::milliseconds(20));
			}
			std::printf("wrote the range %u times more in 3 s\n", n);
			break;
		}
	}
	rpma_conn_event ev;
	const bool ended = next_event(conn, 10000, ev) == 0 && ev != RPMA_CONN_ESTABLISHED;
	std::printf("foreign bytes: %llu read, %llu written; its connection %s\n",
		    static_cast<unsigned long long>(foreign_read),
		    static_cast<unsigned long long>(foreign_written),
		    ended ? "ended" : "still up after 10 s");
	std::fflush(stdout);
	rpma_mr_dereg(&mr);
	return foreign_read == 0 && foreign_written == 0 ? 0 : 1;
}

// The next event of a channel within 30 s, of type `want` (acked unless
// keep), or nullptr after saying what came instead.
rdma_cm_event *expect_event(rdma_event_channel *ch, rdma_cm_event_type want, bool keep = false)
{
	pollfd pfd{ch->fd, POLLIN, 0};
	rdma_cm_event *ev = nullptr;
	if (poll(&pfd, 1, 30000) <= 0 || rdma_get_cm_event(ch, &ev)) {
		std::fprintf(stderr, "rogue_client: no %s within 30 s\n", rdma_event_str(want));
		return nullptr;
	}
	if (ev->event != want) {
		std::fprintf(stderr, "rogue_client: %s instead of %s\n", rdma_event_str(ev->event),
			     rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return nullptr;
	}
	if (!keep) {
		rdma_ack_cm_event(ev);
		return reinterpret_cast<rdma_cm_event *>(1);
	}
	return ev;
}

// One connection of guessing: the RTU never sent (see the mode's words).
struct HalfConnection {
	rdma_event_channel *ch = nullptr;
	rdma_cm_id *id = nullptr;
	ibv_qp *qp = nullptr;

	// false after saying why; *ws: the server's workspace
	bool open(const rdma_addrinfo *dst, ibv_pd *pd, ibv_cq *cq, rpma_fio::Workspace *ws)
	{
		if (!(ch = rdma_create_event_channel()) ||
		    rdma_create_id(ch, &id, nullptr, RDMA_PS_TCP) ||
		    rdma_resolve_addr(id, nullptr, dst->ai_dst_addr, 2000) ||
		    !expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED) ||
		    rdma_resolve_route(id, 2000) || !expect_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED))
			return false;
		if (id->verbs != pd->context) {
			std::fprintf(stderr, "rogue_client: the route left the device\n");
			return false;
		}
		ibv_qp_init_attr attr{};
		attr.send_cq = attr.recv_cq = cq;
		attr.cap.max_send_wr = attr.cap.max_recv_wr = 2;
		attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
		attr.qp_type = IBV_QPT_RC;
		if (!(qp = ibv_create_qp(pd, &attr))) {
			std::perror("rogue_client: ibv_create_qp");
			return false;
		}
		// a queue pair of its own (not the id's): RDMA-CM then leaves
		// its states and the handshake's end to the program
		rdma_conn_param param{};
		param.qp_num = qp->qp_num;
		param.responder_resources = param.initiator_depth = 1;
		param.retry_count = param.rnr_retry_count = 7;
		if (rdma_connect(id, &param)) {
			std::perror("rogue_client: rdma_connect");
			return false;
		}
		rdma_cm_event *ev = expect_event(ch, RDMA_CM_EVENT_CONNECT_RESPONSE, true);
		if (!ev)
			return false;
		auto decoded = rpma_fio::decode_workspace(ev->param.conn.private_data,
							  ev->param.conn.private_data_len);
		rdma_ack_cm_event(ev);
		if (!decoded) {
			std::fprintf(stderr, "rogue_client: no workspace from the server\n");
			return false;
		}
		*ws = *decoded;
		for (const ibv_qp_state state : {IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS}) {
			ibv_qp_attr qa{};
			int mask = 0;
			qa.qp_state = state;
			if (rdma_init_qp_attr(id, &qa, &mask) || ibv_modify_qp(qp, &qa, mask)) {
				std::perror("rogue_client: bringing the queue pair up");
				return false;
			}
		}
		return true; // no rdma_establish(): the RTU never goes
	}

	~HalfConnection()
	{
		if (qp)
			ibv_destroy_qp(qp);
		if (id)
			rdma_destroy_id(id); // rejects the server's accept
		if (ch)
			rdma_destroy_event_channel(ch);
	}
};

// An RDMA read or write of 8 bytes at addr with rkey through qp: true if
// it completed well.
bool guess_one(ibv_qp *qp, ibv_cq *cq, ibv_mr *mr, uint64_t addr, uint32_t rkey, bool write)
{
	ibv_sge sge{reinterpret_cast<uintptr_t>(mr->addr), 8, mr->lkey};
	ibv_send_wr wr{}, *bad;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(qp, &wr, &bad))
		return false;
	ibv_wc wc{};
	return poll_one(cq, &wc) == 0 && wc.status == IBV_WC_SUCCESS;
}

// guessing: on a place of the server's, connection after connection.
int guessing(const char *ip, const char *port)
{
	rdma_addrinfo hints{}, *dst;
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_qp_type = IBV_QPT_RC;
	if (rdma_getaddrinfo(ip, port, &hints, &dst)) {
		std::perror("rogue_client: rdma_getaddrinfo");
		return 2;
	}
	ibv_context *dev;
	if (int ret = rpma_utils_get_ibv_context(ip, RPMA_UTIL_IBV_CONTEXT_REMOTE, &dev))
		return failed("rpma_utils_get_ibv_context", ret);
	ibv_pd *pd = ibv_alloc_pd(dev);
	ibv_cq *cq = pd ? ibv_create_cq(dev, 4, nullptr, nullptr, 0) : nullptr;
	static char bytes[8];
	ibv_mr *mr = cq ? ibv_reg_mr(pd, bytes, sizeof(bytes),
				     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)
			: nullptr;
	if (!mr) {
		std::perror("rogue_client: the local resources");
		return 2;
	}
	constexpr int AROUND = 4;
	uint64_t own_addr = 0, own_size = 0;
	uint32_t own_key = 0;
	uint64_t tried = 0, connections = 0, foreign_read = 0, foreign_written = 0;
	const auto start = std::chrono::steady_clock::now();
	auto half = std::make_unique<HalfConnection>();
	bool up = false;
	for (int d = -AROUND; d <= AROUND; d++) {
		for (uint32_t low = 0; low < 256 && d != 0; low++) {
			if (!up) {
				half = std::make_unique<HalfConnection>();
				rpma_fio::Workspace ws;
				// the server may be giving the last place back
				for (int attempt = 0; !(up = half->open(dst, pd, cq, &ws));
				     attempt++) {
					if (attempt == 50)
						return 2;
					half = std::make_unique<HalfConnection>();
					std::this_thread::sleep_for(std::chrono::milliseconds(100));
				}
				connections++;
				const std::vector<uint8_t> desc(ws.descriptor.begin(),
								ws.descriptor.end());
				if (desc.size() < 21) {
					std::fprintf(stderr, "rogue_client: no descriptor\n");
					return 2;
				}
				own_addr = le(desc, 0, 8);
				own_size = le(desc, 8, 8);
				own_key = static_cast<uint32_t>(le(desc, 16, 4));
			}
			const uint32_t index = (own_key >> 8) + d;
			const uint32_t key = index << 8 | low;
			const uint64_t addr = own_addr + d * static_cast<int64_t>(own_size);
			tried++;
			if (!guess_one(half->qp, cq, mr, addr, key, false)) {
				// the queue pair is in error now: the next guess
				// needs a fresh connection
				ibv_wc flushed;
				while (ibv_poll_cq(cq, 1, &flushed) > 0) {
				}
				half.reset();
				up = false;
				continue;
			}
			foreign_read += sizeof(bytes);
			if (guess_one(half->qp, cq, mr, addr, key, true))
				foreign_written += sizeof(bytes);
			std::printf("key 0x%x at 0x%llx (%+d ranges away) opens another's range\n",
				    key, static_cast<unsigned long long>(addr), d);
			std::fflush(stdout);
		}
	}
	half.reset();
	std::printf("guessed %llu keys of 8 pool indices around its own (0x%x) on %llu "
		    "connections in %lld s; foreign bytes: %llu read, %llu written\n",
		    static_cast<unsigned long long>(tried), own_key,
		    static_cast<unsigned long long>(connections),
		    static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(
						   std::chrono::steady_clock::now() - start)
						   .count()),
		    static_cast<unsigned long long>(foreign_read),
		    static_cast<unsigned long long>(foreign_written));
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_freeaddrinfo(dst);
	return foreign_read == 0 && foreign_written == 0 ? 0 : 1;
}

} // namespace

const char *const rogue::NAME = "rogue_client";

int main(int argc, char *argv[])
{
	const std::string mode = argc >= 4 ? argv[3] : "";
	if (mode == "probe-during-answer" && argc == 4)
		return probe_during_answer(argv[1], argv[2]);
	if (mode == "rooms-full" && argc == 4)
		return rooms_full(argv[1], argv[2]);
	if ((mode == "gpspm-ends-then-silent" || mode == "apm-ends-then-silent") && argc == 4)
		return ends_then_silent(argv[1], argv[2], mode == "apm-ends-then-silent");
	if (mode == "gives-up" && argc == 5)
		return stranger(argv[1], argv[2], std::strtoul(argv[4], nullptr, 10), false);
	if (mode == "no-rtu" && argc == 4)
		return stranger(argv[1], argv[2], 1, true);
	if (mode == "guessing" && argc == 4)
		return guessing(argv[1], argv[2]);
	if (mode == "from" && argc == 6)
		return from_source(argv[1], argv[2], argv[4], std::strtoul(argv[5], nullptr, 10));
	if (mode == "leaked" && argc != 6) {
		std::fprintf(stderr, "usage: %s IP PORT leaked DESC REGIONS\n", argv[0]);
		return 2;
	}
	if ((argc != 4 && mode != "leaked") ||
	    (mode != "gpspm-range" && mode != "leaked" && mode != "gpspm-garbage" &&
	     mode != "outside" && mode != "silent" && mode != "imm-gpspm" && mode != "imm-apm" &&
	     mode != "after-end" && mode != "probe-during-answer" && mode != "rooms-full" &&
	     mode != "gives-up")) {
		std::fprintf(stderr,
			     "usage: %s IP PORT "
			     "gpspm-range|gpspm-garbage|outside|silent|imm-gpspm|imm-apm|after-end|"
			     "probe-during-answer|rooms-full|gpspm-ends-then-silent|"
			     "apm-ends-then-silent|gives-up [N]|no-rtu|from SRC N|leaked DESC "
			     "REGIONS|guessing\n",
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
	auto promise = rpma_fio::encode_end_notice_request();
	rpma_conn_private_data notice{promise.data(), static_cast<uint8_t>(promise.size())};
	if ((ret = rpma_conn_req_connect(&req, mode == "imm-apm" ? &notice : nullptr, &conn)))
		return failed("rpma_conn_req_connect", ret);
	if (mode == "gives-up") {
		(void)rpma_conn_delete(&conn); // not connected: what it ends may fail
		std::printf("a connection request sent and given up\n");
		return 0;
	}
	rpma_conn_event ev;
	if (next_event(conn, 30000, ev) || ev != RPMA_CONN_ESTABLISHED) {
		std::fprintf(stderr, "rogue_client: not connected\n");
		return 2;
	}

	bool as_expected;
	const auto start = std::chrono::steady_clock::now();
	std::vector<char> imm_buf;
	rpma_mr_local *imm_mr = nullptr;
	if (mode == "leaked") {
		ret = leaked(peer, conn, argv[4], argv[5]);
		if (ret == 2)
			return 2;
		as_expected = ret == 0;
	} else if (mode == "after-end") {
		as_expected = after_end(peer, conn) == 0;
	} else if (mode == "imm-gpspm" || mode == "imm-apm") {
		as_expected = write_with_imm(peer, conn, mode == "imm-gpspm", &imm_buf, &imm_mr) ==
			      0;
		if (as_expected) {
			ret = next_event(conn, 30000, ev);
			as_expected = ret == 0 && ev != RPMA_CONN_ESTABLISHED;
			std::printf("%s\n", as_expected ? "the server ended the connection"
							: "the connection is still up");
		}
	} else if (mode == "outside") {
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
	rpma_mr_dereg(&imm_mr);
	rpma_mr_dereg(&mr);
	rpma_peer_delete(&peer);
	return as_expected ? 0 : 1;
}
