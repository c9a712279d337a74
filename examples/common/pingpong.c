// SPDX-License-Identifier: BSD-3-Clause

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "conn.h"
#include "err.h"
#include "msg.h"
#include "pingpong.h"

enum pp_type { PP_VALUE = 1, PP_DONE = 2 };

struct pp_msg {
	uint32_t type; /* enum pp_type */
	uint32_t reserved;
	uint64_t value;
};

int
ex_pingpong_answer(const void *msg, size_t len, void *reply, void *arg)
{
	uint64_t *rounds = arg;
	struct pp_msg in, out = {PP_VALUE, 0, 0};

	if (len < sizeof(in)) {
		EX_FAIL("a message of %zu bytes is too short", len);
		return -1;
	}
	memcpy(&in, msg, sizeof(in));
	if (in.type == PP_DONE) {
		printf("the client is done after %" PRIu64 " rounds\n",
			*rounds);
		return 0;
	}
	if (in.type != PP_VALUE) {
		EX_FAIL("unknown message type %" PRIu32, in.type);
		return -1;
	}
	out.value = in.value + 1;
	printf("got %" PRIu64 ", answering %" PRIu64 "\n", in.value, out.value);
	memcpy(reply, &out, sizeof(out));
	++*rounds;
	return (int)sizeof(out);
}

static int
serve(struct ex_server *srv, void *arg)
{
	const struct rpma_conn_cfg *cfg = arg;
	struct ex_msgs m;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	uint64_t rounds = 0;

	if (ex_msgs_new(srv->peer, &m))
		return -1;
	int result = -1;
	if (ex_next_conn_req(srv->ep, cfg, &req))
		goto out;
	if (ex_msgs_prepost(req, &m)) {
		(void)rpma_conn_req_delete(&req);
		goto out;
	}
	if (ex_establish(&req, NULL, 0, &conn))
		goto out;
	result = ex_msg_serve(conn, &m, ex_pingpong_answer, &rounds);
	if (ex_server_close(&conn))
		result = -1;
out:
	if (ex_msgs_delete(&m))
		result = -1;
	return result;
}

static int
pingpong_server(
	const char *addr, const char *port, const struct rpma_conn_cfg *cfg)
{
	/* serve() only reads the configuration */
	return ex_server_run(addr, port, serve, (void *)cfg);
}

struct game {
	uint64_t seed;
	uint64_t rounds;
};

static int
play(struct ex_msgs *m, struct rpma_conn *conn, const struct game *g)
{
	uint64_t value = g->seed;
	for (uint64_t i = 0; i < g->rounds; i++) {
		struct pp_msg out = {PP_VALUE, 0, value}, in;
		struct ibv_wc wc;

		memcpy(EX_MSG_SEND(m), &out, sizeof(out));
		if (ex_msg_exchange(conn, m, sizeof(out), &wc))
			return -1;
		memcpy(&in, EX_MSG_RECV(m), sizeof(in));
		if (wc.byte_len < sizeof(in) || in.type != PP_VALUE ||
			in.value != value + 1) {
			EX_FAIL("sent %" PRIu64 " but got a wrong answer",
				value);
			return -1;
		}
		printf("sent %" PRIu64 ", got %" PRIu64 "\n", value, in.value);
		value = in.value;
	}
	struct pp_msg done = {PP_DONE, 0, 0};
	memcpy(EX_MSG_SEND(m), &done, sizeof(done));
	return ex_msg_send(conn, m, sizeof(done));
}

static int
client_fn(struct rpma_peer *peer, struct rpma_conn *conn, void *arg)
{
	struct ex_msgs m;
	if (ex_msgs_new(peer, &m))
		return -1;
	int result = play(&m, conn, arg);
	if (ex_msgs_delete(&m))
		result = -1;
	return result;
}

static int
pingpong_client(const char *addr, const char *port,
	const struct rpma_conn_cfg *cfg, uint64_t seed, uint64_t rounds)
{
	struct game g = {seed, rounds};
	return ex_client_run(addr, port, cfg, NULL, 0, client_fn, &g);
}

int
ex_pingpong_main(
	int argc, char *argv[], int is_server, const struct rpma_conn_cfg *cfg)
{
	if (is_server) {
		if (argc != 3) {
			fprintf(stderr, "usage: %s <addr> <port>\n", argv[0]);
			return EXIT_FAILURE;
		}
		return pingpong_server(argv[1], argv[2], cfg);
	}
	uint64_t seed, rounds;
	if (argc != 5) {
		fprintf(stderr, "usage: %s <addr> <port> <seed> <rounds>\n",
			argv[0]);
		return EXIT_FAILURE;
	}
	/* the answers must not overflow */
	if (ex_parse_uint(argv[3], UINT32_MAX, &seed) ||
		ex_parse_uint(argv[4], 1000000, &rounds))
		return EXIT_FAILURE;
	return pingpong_client(argv[1], argv[2], cfg, seed, rounds);
}
