// SPDX-License-Identifier: BSD-3-Clause
// rpma-bench -- the library's own latency, on the public librpma API only,
// to set next to perftest's (ib_write_lat, ib_read_lat, ib_send_lat) on the
// same device: whatever rpma-bench takes beyond perftest is librpma's (and
// this program's) overhead. Built only against librpma.h, so the same
// binary also runs on another librpma.so.0 (LD_LIBRARY_PATH), e.g. the
// reference librpma 1.2 that bench/prepare-reference unpacks.
//
//   rpma-bench server ADDR PORT [--size BYTES] [--wait]
//   rpma-bench client ADDR PORT [--iterations N] [--bs SIZE[,SIZE...]]
//                               [--ops write,read,send] [--wait] [--json]
//   rpma-bench server ADDR PORT --connections N [--windows]
//   rpma-bench client ADDR PORT --connections N [--one-by-one] [--json]
//
// The server exposes --size bytes of DRAM (default 1 MiB) and answers the
// client's messages, one connection, then exits. The client measures, for
// each block size and operation, N round trips (after N/10 unmeasured ones):
//   write  rpma_write + rpma_flush (visibility: an 8-byte RDMA read), waits
//          for the flush's completion: what one APM write with sync=1 costs;
//   read   rpma_read, waits for its completion;
//   send   rpma_recv posted, rpma_send, waits for the send's and the
//          server's answer's completions: a ping-pong through the server.
// Completions are polled (rpma_cq_get_wc in a loop), as perftest does;
// --wait sleeps in rpma_cq_wait instead. Prints one line per operation
// (avg, p50, p99, p99.9, min, max in microseconds), or one JSON object per
// line with --json.
//
// With --connections N nothing is measured but connecting: the client opens
// N connections to the server's one endpoint, and prints the wall time from
// its first rpma_conn_req_new to its last RPMA_CONN_ESTABLISHED, and that
// time's phases: rpma_conn_req_new (address and route resolution, the QP),
// rpma_conn_req_connect (the request sent) and the wait for ESTABLISHED.
// It sends all N requests before it waits for any of them, so that they
// proceed concurrently, as N fio jobs starting together would, or, with
// --one-by-one, waits for each connection before it requests the next. Once
// all N are established it disconnects them all; the server accepts the N
// requests as they come, keeps every connection until the client closes it,
// and exits. It hands each client a descriptor of its 1 MiB region in the
// accept's private data, as the fio engines' servers do: the region's own,
// or with --windows (our librpma only, an extension beyond upstream) a
// memory window's, bound on that client's request before the accept, so that
// the windows' cost of connecting shows beside none.
#include <librpma.h>

#include <infiniband/verbs.h>

#include <dlfcn.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const char *what, int ret)
{
	std::fprintf(stderr, "rpma-bench: %s: %s\n", what,
		     ret < 0 ? rpma_err_2str(ret) : std::strerror(ret));
	std::exit(1);
}

void check(int ret, const char *what)
{
	if (ret)
		die(what, ret);
}

// more than fio's jobs would ever open, few enough for a small device
constexpr int MAX_CONNECTIONS = 1024;

[[noreturn]] void usage()
{
	std::fprintf(
		stderr,
		"usage: rpma-bench server ADDR PORT [--size BYTES] [--wait]\n"
		"       rpma-bench client ADDR PORT [--iterations N] [--bs SIZE[,SIZE...]]\n"
		"                                   [--ops write,read,send] [--wait] [--json]\n"
		"       rpma-bench server ADDR PORT --connections N [--windows]\n"
		"       rpma-bench client ADDR PORT --connections N [--one-by-one] [--json]\n"
		"  (N: 1 to %d connections)\n",
		MAX_CONNECTIONS);
	std::exit(2);
}

size_t parse_size(const std::string &s)
{
	char *end = nullptr;
	unsigned long long v = std::strtoull(s.c_str(), &end, 0);
	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		end++;
		break;
	default:
		break;
	}
	if (end == s.c_str() || *end || !v) {
		std::fprintf(stderr, "rpma-bench: bad size '%s'\n", s.c_str());
		std::exit(2);
	}
	return v;
}

int parse_connections(const std::string &s)
{
	char *end = nullptr;
	long v = std::strtol(s.c_str(), &end, 10);
	if (end == s.c_str() || *end || v < 1 || v > MAX_CONNECTIONS) {
		std::fprintf(stderr, "rpma-bench: --connections needs 1 to %d, not '%s'\n",
			     MAX_CONNECTIONS, s.c_str());
		usage();
	}
	return static_cast<int>(v);
}

std::vector<std::string> split(const std::string &s)
{
	std::vector<std::string> out;
	size_t start = 0;
	for (;;) {
		size_t comma = s.find(',', start);
		out.push_back(s.substr(start, comma - start));
		if (comma == std::string::npos)
			return out;
		start = comma + 1;
	}
}

// Messages: 8 bytes, the first one tells the server what to do.
constexpr size_t MSG_SIZE = 8;
constexpr char MSG_PING = 'p';
constexpr char MSG_QUIT = 'q';

struct Options {
	std::string addr, port;
	size_t size = 1 << 20;
	int iterations = 1000;
	std::vector<size_t> bs{4096};
	std::vector<std::string> ops{"write", "read", "send"};
	bool wait = false;
	bool json = false;
	int connections = 0; // > 0: only connect (--connections)
	bool windows = false;
	bool one_by_one = false;
};

// The next completion of cq: busy polled, or slept for with --wait
ibv_wc next_wc(rpma_cq *cq, bool wait)
{
	ibv_wc wc;
	for (;;) {
		int ret = rpma_cq_get_wc(cq, 1, &wc, nullptr);
		if (!ret)
			break;
		if (ret != RPMA_E_NO_COMPLETION)
			die("rpma_cq_get_wc", ret);
		if (wait)
			check(rpma_cq_wait(cq), "rpma_cq_wait");
	}
	if (wc.status != IBV_WC_SUCCESS) {
		std::fprintf(stderr, "rpma-bench: completion failed: %s\n",
			     ibv_wc_status_str(wc.status));
		std::exit(1);
	}
	return wc;
}

void *alloc(size_t size)
{
	void *p = nullptr;
	if (posix_memalign(&p, 4096, size))
		die("posix_memalign", ENOMEM);
	std::memset(p, 0, size);
	return p;
}

// a peer on the device that serves (LOCAL) or reaches (REMOTE) addr
rpma_peer *open_peer(const std::string &addr, rpma_util_ibv_context_type type)
{
	ibv_context *ibv = nullptr;
	rpma_peer *peer = nullptr;
	check(rpma_utils_get_ibv_context(addr.c_str(), type, &ibv), "rpma_utils_get_ibv_context");
	check(rpma_peer_new(ibv, &peer), "rpma_peer_new");
	return peer;
}

// the accept's private data: the descriptor's size, then the descriptor
template <typename Object>
std::vector<unsigned char> descriptor_pdata(const Object *object,
					    int (*size_of)(const Object *, size_t *),
					    int (*get)(const Object *, void *))
{
	size_t size = 0;
	check(size_of(object, &size), "get_descriptor_size");
	std::vector<unsigned char> pdata(1 + size);
	pdata[0] = static_cast<unsigned char>(size);
	check(get(object, pdata.data() + 1), "get_descriptor");
	return pdata;
}

int run_server(const Options &o)
{
	rpma_peer *peer = open_peer(o.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);

	void *mem = alloc(o.size);
	rpma_mr_local *mr = nullptr;
	check(rpma_mr_reg(peer, mem, o.size,
			  RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
				  RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
			  &mr),
	      "rpma_mr_reg");
	// message slots: receive at 0, send at MSG_SIZE
	char *msg = static_cast<char *>(alloc(2 * MSG_SIZE));
	rpma_mr_local *msg_mr = nullptr;
	check(rpma_mr_reg(peer, msg, 2 * MSG_SIZE, RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV,
			  &msg_mr),
	      "rpma_mr_reg (messages)");

	std::vector<unsigned char> pdata = descriptor_pdata(mr, rpma_mr_get_descriptor_size,
							    rpma_mr_get_descriptor);

	rpma_ep *ep = nullptr;
	check(rpma_ep_listen(peer, o.addr.c_str(), o.port.c_str(), &ep), "rpma_ep_listen");
	std::printf("rpma-bench: server listening on %s:%s\n", o.addr.c_str(), o.port.c_str());
	std::fflush(stdout);
	rpma_conn_req *req = nullptr;
	check(rpma_ep_next_conn_req(ep, nullptr, &req), "rpma_ep_next_conn_req");
	check(rpma_conn_req_recv(req, msg_mr, 0, MSG_SIZE, nullptr), "rpma_conn_req_recv");
	rpma_conn_private_data pd{pdata.data(), static_cast<uint8_t>(pdata.size())};
	rpma_conn *conn = nullptr;
	check(rpma_conn_req_connect(&req, &pd, &conn), "rpma_conn_req_connect");
	rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	check(rpma_conn_next_event(conn, &ev), "rpma_conn_next_event");
	if (ev != RPMA_CONN_ESTABLISHED)
		die("the connection was not established", EPROTO);
	check(rpma_ep_shutdown(&ep), "rpma_ep_shutdown");

	rpma_cq *cq = nullptr;
	check(rpma_conn_get_cq(conn, &cq), "rpma_conn_get_cq");
	unsigned long pings = 0;
	for (;;) {
		ibv_wc wc = next_wc(cq, o.wait);
		if (wc.opcode == IBV_WC_SEND)
			continue;
		if (wc.opcode != IBV_WC_RECV)
			die("an unexpected completion", EPROTO);
		if (msg[0] == MSG_QUIT)
			break;
		// answer: the next receive first, then the reply
		check(rpma_recv(conn, msg_mr, 0, MSG_SIZE, nullptr), "rpma_recv");
		std::memcpy(msg + MSG_SIZE, msg, MSG_SIZE);
		check(rpma_send(conn, msg_mr, MSG_SIZE, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS,
				nullptr),
		      "rpma_send");
		pings++;
	}
	check(rpma_conn_next_event(conn, &ev), "rpma_conn_next_event");
	if (ev != RPMA_CONN_CLOSED)
		std::fprintf(stderr, "rpma-bench: server: %s, not closed\n",
			     rpma_utils_conn_event_2str(ev));
	rpma_conn_disconnect(conn);
	rpma_conn_delete(&conn);
	rpma_mr_dereg(&msg_mr);
	rpma_mr_dereg(&mr);
	rpma_peer_delete(&peer);
	std::free(msg);
	std::free(mem);
	std::printf("rpma-bench: server done, %lu messages answered\n", pings);
	return 0;
}

struct Client {
	rpma_conn *conn = nullptr;
	rpma_cq *cq = nullptr;
	rpma_mr_local *buf_mr = nullptr;
	rpma_mr_local *msg_mr = nullptr;
	rpma_mr_remote *remote = nullptr;
	char *msg = nullptr;
	bool wait = false;

	void write_flush(size_t len)
	{
		check(rpma_write(conn, remote, 0, buf_mr, 0, len, RPMA_F_COMPLETION_ON_ERROR,
				 nullptr),
		      "rpma_write");
		check(rpma_flush(conn, remote, 0, len, RPMA_FLUSH_TYPE_VISIBILITY,
				 RPMA_F_COMPLETION_ALWAYS, nullptr),
		      "rpma_flush");
		next_wc(cq, wait);
	}

	void read(size_t len)
	{
		check(rpma_read(conn, buf_mr, 0, remote, 0, len, RPMA_F_COMPLETION_ALWAYS, nullptr),
		      "rpma_read");
		next_wc(cq, wait);
	}

	void ping(char what)
	{
		check(rpma_recv(conn, msg_mr, MSG_SIZE, MSG_SIZE, nullptr), "rpma_recv");
		msg[0] = what;
		check(rpma_send(conn, msg_mr, 0, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS, nullptr),
		      "rpma_send");
		if (what == MSG_QUIT) { // no answer: only the send's completion
			next_wc(cq, wait);
			return;
		}
		for (int done = 0; done < 2; done++) // the send's and the answer's
			next_wc(cq, wait);
	}
};

double percentile(const std::vector<double> &sorted, double p)
{
	size_t i = static_cast<size_t>(
		std::lround(p / 100.0 * static_cast<double>(sorted.size() - 1)));
	return sorted[std::min(i, sorted.size() - 1)];
}

int run_client(const Options &o)
{
	rpma_peer *peer = open_peer(o.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);

	Client c;
	c.wait = o.wait;
	size_t max_bs = *std::max_element(o.bs.begin(), o.bs.end());
	void *buf = alloc(max_bs);
	check(rpma_mr_reg(peer, buf, max_bs, RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC,
			  &c.buf_mr),
	      "rpma_mr_reg");
	c.msg = static_cast<char *>(alloc(2 * MSG_SIZE));
	check(rpma_mr_reg(peer, c.msg, 2 * MSG_SIZE, RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV,
			  &c.msg_mr),
	      "rpma_mr_reg (messages)");

	// the server may not listen yet: retry a refused connection for 30 s
	rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
	for (;;) {
		rpma_conn_req *req = nullptr;
		check(rpma_conn_req_new(peer, o.addr.c_str(), o.port.c_str(), nullptr, &req),
		      "rpma_conn_req_new");
		check(rpma_conn_req_connect(&req, nullptr, &c.conn), "rpma_conn_req_connect");
		check(rpma_conn_next_event(c.conn, &ev), "rpma_conn_next_event");
		if (ev == RPMA_CONN_ESTABLISHED)
			break;
		rpma_conn_delete(&c.conn);
		if (ev != RPMA_CONN_REJECTED || std::chrono::steady_clock::now() > give_up) {
			std::fprintf(stderr, "rpma-bench: cannot connect: %s\n",
				     rpma_utils_conn_event_2str(ev));
			return 1;
		}
		struct timespec ts {
			0, 200L * 1000 * 1000
		};
		nanosleep(&ts, nullptr);
	}
	rpma_conn_private_data pd{};
	check(rpma_conn_get_private_data(c.conn, &pd), "rpma_conn_get_private_data");
	const unsigned char *p = static_cast<const unsigned char *>(pd.ptr);
	if (!p || pd.len < 1 || pd.len < 1u + p[0])
		die("the server's private data is too short", EPROTO);
	check(rpma_mr_remote_from_descriptor(p + 1, p[0], &c.remote),
	      "rpma_mr_remote_from_descriptor");
	size_t remote_size = 0;
	check(rpma_mr_remote_get_size(c.remote, &remote_size), "rpma_mr_remote_get_size");
	if (remote_size < max_bs)
		die("the server's memory is smaller than the largest block", EINVAL);
	check(rpma_conn_get_cq(c.conn, &c.cq), "rpma_conn_get_cq");

	const int warmup = std::max(1, o.iterations / 10);
	for (size_t bs : o.bs) {
		for (const std::string &op : o.ops) {
			if (op == "send" && bs != o.bs.front())
				continue; // messages have one size: measure them once
			auto one = [&] {
				if (op == "write")
					c.write_flush(bs);
				else if (op == "read")
					c.read(bs);
				else
					c.ping(MSG_PING);
			};
			for (int i = 0; i < warmup; i++)
				one();
			std::vector<double> us(o.iterations);
			for (int i = 0; i < o.iterations; i++) {
				auto t0 = std::chrono::steady_clock::now();
				one();
				auto t1 = std::chrono::steady_clock::now();
				us[i] = std::chrono::duration<double, std::micro>(t1 - t0).count();
			}
			double sum = 0;
			for (double v : us)
				sum += v;
			std::sort(us.begin(), us.end());
			const char *name = op == "write"  ? "write+flush"
					   : op == "read" ? "read"
							  : "send/recv";
			size_t size = op == "send" ? MSG_SIZE : bs;
			double avg = sum / static_cast<double>(us.size());
			if (o.json)
				std::printf(
					"{\"op\": \"%s\", \"bs\": %zu, \"iterations\": %d, "
					"\"avg_us\": %.2f, \"p50_us\": %.2f, \"p99_us\": %.2f, "
					"\"p99.9_us\": %.2f, \"min_us\": %.2f, \"max_us\": %.2f}\n",
					name, size, o.iterations, avg, percentile(us, 50),
					percentile(us, 99), percentile(us, 99.9), us.front(),
					us.back());
			else
				std::printf("%-12s %7zu B  n=%d  avg %9.2f  p50 %9.2f  p99 %9.2f  "
					    "p99.9 %9.2f  min %9.2f  max %9.2f us\n",
					    name, size, o.iterations, avg, percentile(us, 50),
					    percentile(us, 99), percentile(us, 99.9), us.front(),
					    us.back());
			std::fflush(stdout);
		}
	}

	c.ping(MSG_QUIT);
	check(rpma_conn_disconnect(c.conn), "rpma_conn_disconnect");
	check(rpma_conn_next_event(c.conn, &ev), "rpma_conn_next_event");
	rpma_conn_delete(&c.conn);
	rpma_mr_remote_delete(&c.remote);
	rpma_mr_dereg(&c.msg_mr);
	rpma_mr_dereg(&c.buf_mr);
	rpma_peer_delete(&peer);
	std::free(c.msg);
	std::free(buf);
	return 0;
}

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point from, Clock::time_point to)
{
	return std::chrono::duration<double>(to - from).count();
}

// the next event of conn must be want
void expect_event(rpma_conn *conn, rpma_conn_event want, const char *side)
{
	rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	check(rpma_conn_next_event(conn, &ev), "rpma_conn_next_event");
	if (ev != want) {
		std::fprintf(stderr, "rpma-bench: %s: %s, not %s\n", side,
			     rpma_utils_conn_event_2str(ev), rpma_utils_conn_event_2str(want));
		std::exit(1);
	}
}

// The memory windows' calls, found when the program runs: the same binary
// also runs on the reference librpma, which has no LIBRPMA_EXT_1.0 node
// that a link-time reference could bind to.
struct WindowCalls {
	decltype(&rpma_mr_reg_for_windows) reg_for_windows;
	decltype(&rpma_mw_new) mw_new;
	decltype(&rpma_mw_delete) mw_delete;
	decltype(&rpma_conn_req_bind_mw) bind;
	decltype(&rpma_mw_get_descriptor_size) descriptor_size;
	decltype(&rpma_mw_get_descriptor) descriptor;
};

template <typename Call> void find_call(Call *call, const char *name)
{
	*call = reinterpret_cast<Call>(dlsym(RTLD_DEFAULT, name));
	if (!*call) {
		std::fprintf(stderr, "rpma-bench: --windows: this librpma has no %s\n", name);
		std::exit(2);
	}
}

WindowCalls window_calls()
{
	WindowCalls w{};
	find_call(&w.reg_for_windows, "rpma_mr_reg_for_windows");
	find_call(&w.mw_new, "rpma_mw_new");
	find_call(&w.mw_delete, "rpma_mw_delete");
	find_call(&w.bind, "rpma_conn_req_bind_mw");
	find_call(&w.descriptor_size, "rpma_mw_get_descriptor_size");
	find_call(&w.descriptor, "rpma_mw_get_descriptor");
	return w;
}

// Each connection, once its client closes it. The client closes them in
// its own order, which need not be the order its requests came in: waiting
// for one while the client waits for another's answer would stall both
// until the CM gives up on the disconnect request (minutes, on rxe).
void close_as_the_client_does(std::vector<rpma_conn *> &conns)
{
	std::vector<pollfd> fds(conns.size());
	for (size_t i = 0; i < conns.size(); i++) {
		fds[i].events = POLLIN;
		check(rpma_conn_get_event_fd(conns[i], &fds[i].fd), "rpma_conn_get_event_fd");
	}
	for (size_t open = conns.size(); open;) {
		if (poll(fds.data(), fds.size(), -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll", errno);
		}
		for (size_t i = 0; i < conns.size(); i++) {
			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			expect_event(conns[i], RPMA_CONN_CLOSED, "server");
			check(rpma_conn_disconnect(conns[i]), "rpma_conn_disconnect");
			check(rpma_conn_delete(&conns[i]), "rpma_conn_delete");
			fds[i].fd = -1; // poll() passes over it now
			open--;
		}
	}
}

int serve_connections(const Options &o)
{
	rpma_peer *peer = open_peer(o.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);
	WindowCalls w{};
	if (o.windows)
		w = window_calls();
	constexpr int USAGE = RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
			      RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
	void *mem = alloc(o.size);
	rpma_mr_local *mr = nullptr;
	check(o.windows ? w.reg_for_windows(peer, mem, o.size, USAGE, &mr)
			: rpma_mr_reg(peer, mem, o.size, USAGE, &mr),
	      "registering the region");
	rpma_ep *ep = nullptr;
	check(rpma_ep_listen(peer, o.addr.c_str(), o.port.c_str(), &ep), "rpma_ep_listen");
	std::printf("rpma-bench: server listening on %s:%s for %d connections%s\n", o.addr.c_str(),
		    o.port.c_str(), o.connections, o.windows ? ", a memory window each" : "");
	std::fflush(stdout);
	// accept each request as it comes: the events of the ones accepted
	// already wait in their own connections meanwhile
	std::vector<rpma_conn *> conns(o.connections, nullptr);
	std::vector<rpma_mw *> windows(o.connections, nullptr);
	Clock::time_point first;
	for (size_t i = 0; i < conns.size(); i++) {
		rpma_conn_req *req = nullptr;
		check(rpma_ep_next_conn_req(ep, nullptr, &req), "rpma_ep_next_conn_req");
		if (i == 0)
			first = Clock::now();
		std::vector<unsigned char> pdata;
		if (o.windows) {
			check(w.mw_new(peer, &windows[i]), "rpma_mw_new");
			check(w.bind(req, windows[i], mr, 0, o.size, USAGE),
			      "rpma_conn_req_bind_mw");
			pdata = descriptor_pdata(windows[i], w.descriptor_size, w.descriptor);
		} else {
			pdata = descriptor_pdata(mr, rpma_mr_get_descriptor_size,
						 rpma_mr_get_descriptor);
		}
		rpma_conn_private_data pd{pdata.data(), static_cast<uint8_t>(pdata.size())};
		check(rpma_conn_req_connect(&req, &pd, &conns[i]), "rpma_conn_req_connect");
	}
	for (rpma_conn *conn : conns)
		expect_event(conn, RPMA_CONN_ESTABLISHED, "server");
	double up = seconds(first, Clock::now());
	check(rpma_ep_shutdown(&ep), "rpma_ep_shutdown");
	close_as_the_client_does(conns);
	for (rpma_mw *&mw : windows)
		if (mw)
			check(w.mw_delete(&mw), "rpma_mw_delete");
	check(rpma_mr_dereg(&mr), "rpma_mr_dereg");
	std::free(mem);
	rpma_peer_delete(&peer);
	std::printf("rpma-bench: server: %d connections established %.3f s after the first "
		    "request came\n",
		    o.connections, up);
	return 0;
}

int open_connections(const Options &o)
{
	rpma_peer *peer = open_peer(o.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);
	const size_t n = o.connections;
	std::vector<rpma_conn_req *> reqs(n, nullptr);
	std::vector<rpma_conn *> conns(n, nullptr);
	// the phases' wall time: rpma_conn_req_new, rpma_conn_req_connect,
	// the wait for ESTABLISHED (summed over the connections one by one)
	double phase[3] = {};
	auto timed = [&](int p, auto &&what) {
		auto from = Clock::now();
		what();
		phase[p] += seconds(from, Clock::now());
	};
	auto request = [&](size_t i) {
		check(rpma_conn_req_new(peer, o.addr.c_str(), o.port.c_str(), nullptr, &reqs[i]),
		      "rpma_conn_req_new");
	};
	auto connect = [&](size_t i) {
		check(rpma_conn_req_connect(&reqs[i], nullptr, &conns[i]), "rpma_conn_req_connect");
	};
	auto established = [&](size_t i) {
		expect_event(conns[i], RPMA_CONN_ESTABLISHED, "client");
	};
	auto start = Clock::now();
	if (o.one_by_one) {
		for (size_t i = 0; i < n; i++) {
			timed(0, [&] { request(i); });
			timed(1, [&] { connect(i); });
			timed(2, [&] { established(i); });
		}
	} else {
		timed(0, [&] {
			for (size_t i = 0; i < n; i++)
				request(i);
		});
		timed(1, [&] {
			for (size_t i = 0; i < n; i++)
				connect(i);
		});
		timed(2, [&] {
			for (size_t i = 0; i < n; i++)
				established(i);
		});
	}
	double total = seconds(start, Clock::now());
	auto closing = Clock::now();
	for (rpma_conn *&conn : conns) {
		check(rpma_conn_disconnect(conn), "rpma_conn_disconnect");
		expect_event(conn, RPMA_CONN_CLOSED, "client");
		check(rpma_conn_delete(&conn), "rpma_conn_delete");
	}
	double closed = seconds(closing, Clock::now());
	rpma_peer_delete(&peer);
	const char *mode = o.one_by_one ? "one-by-one" : "concurrent";
	if (o.json)
		std::printf("{\"mode\": \"%s\", \"connections\": %zu, \"total_s\": %.6f, "
			    "\"req_new_s\": %.6f, \"connect_s\": %.6f, \"established_s\": %.6f, "
			    "\"disconnect_s\": %.6f}\n",
			    mode, n, total, phase[0], phase[1], phase[2], closed);
	else
		std::printf("%zu connections, %s: all established in %.3f s (rpma_conn_req_new "
			    "%.3f, rpma_conn_req_connect %.3f, waiting %.3f); disconnected in "
			    "%.3f s\n",
			    n, mode, total, phase[0], phase[1], phase[2], closed);
	return 0;
}

}

int main(int argc, char *argv[])
{
	if (argc < 4)
		usage();
	std::string mode = argv[1];
	Options o;
	o.addr = argv[2];
	o.port = argv[3];
	for (int i = 4; i < argc; i++) {
		std::string a = argv[i];
		auto value = [&]() -> std::string {
			if (i + 1 >= argc)
				usage();
			return argv[++i];
		};
		if (a == "--size")
			o.size = parse_size(value());
		else if (a == "--iterations")
			o.iterations = std::max(1, std::atoi(value().c_str()));
		else if (a == "--bs") {
			o.bs.clear();
			for (const std::string &s : split(value()))
				o.bs.push_back(parse_size(s));
		} else if (a == "--ops") {
			o.ops = split(value());
			for (const std::string &op : o.ops)
				if (op != "write" && op != "read" && op != "send")
					usage();
		} else if (a == "--wait")
			o.wait = true;
		else if (a == "--json")
			o.json = true;
		else if (a == "--connections")
			o.connections = parse_connections(value());
		else if (a == "--one-by-one")
			o.one_by_one = true;
		else if (a == "--windows" && mode == "server")
			o.windows = true;
		else
			usage();
	}
	if ((o.one_by_one || o.windows) && !o.connections)
		usage(); // they say how to connect: nothing else to do
	if (o.connections && mode == "server")
		return serve_connections(o);
	if (o.connections && mode == "client")
		return open_connections(o);
	if (mode == "server")
		return run_server(o);
	if (mode == "client")
		return run_client(o);
	usage();
}
