// SPDX-License-Identifier: BSD-3-Clause
/*
 * 10-send-with-imm, server: receives one message sent with immediate data
 * and checks the immediate value and the payload against what the client
 * announced in its connect private data.
 *
 * usage: server <addr> <port>
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "common/conn.h"
#include "common/err.h"
#include "common/msg.h"
#include "layout.h"

static int
check_message(const struct client_pdata *expected, const struct ibv_wc *wc,
	const void *payload)
{
	if (wc->opcode != IBV_WC_RECV || !(wc->wc_flags & IBV_WC_WITH_IMM)) {
		EX_FAIL("the message came without immediate data");
		return -1;
	}
	/* immediate data travels in network byte order */
	uint32_t imm = ntohl(wc->imm_data);
	if (imm != expected->imm) {
		EX_FAIL("immediate value %u, expected %u", imm, expected->imm);
		return -1;
	}
	if (wc->byte_len != expected->word_len ||
		memcmp(payload, expected->word, expected->word_len)) {
		EX_FAIL("the payload is not the announced word");
		return -1;
	}
	printf("received immediate value %u and %u bytes of payload%s%s\n", imm,
		expected->word_len, expected->word_len ? ": " : "",
		expected->word_len ? expected->word : "");
	return 0;
}

static int
serve(struct ex_server *srv, void *arg)
{
	(void)arg;
	struct ex_msgs m;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data pd;
	struct client_pdata expected;
	struct ibv_wc wc;

	if (ex_msgs_new(srv->peer, &m))
		return -1;
	int result = -1;
	if (ex_next_conn_req(srv->ep, NULL, &req))
		goto out;
	int ret = rpma_conn_req_get_private_data(req, &pd);
	if (ret || pd.len < sizeof(expected)) {
		EX_FAIL("the client did not announce its message");
		(void)rpma_conn_req_delete(&req);
		goto out;
	}
	memcpy(&expected, pd.ptr, sizeof(expected));
	if (expected.word_len > WORD_MAX) {
		EX_FAIL("the announced word is too long");
		(void)rpma_conn_req_delete(&req);
		goto out;
	}
	if (ex_msgs_prepost(req, &m)) {
		(void)rpma_conn_req_delete(&req);
		goto out;
	}
	if (ex_establish(&req, NULL, 0, &conn))
		goto out;
	result = ex_await(conn, false, true, &wc)
			 ? -1
			 : check_message(&expected, &wc, EX_MSG_RECV(&m));
	if (ex_server_close(&conn))
		result = -1;
out:
	if (ex_msgs_delete(&m))
		result = -1;
	return result;
}

int
main(int argc, char *argv[])
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s <addr> <port>\n", argv[0]);
		return EXIT_FAILURE;
	}
	return ex_server_run(argv[1], argv[2], serve, NULL);
}
