// SPDX-License-Identifier: BSD-3-Clause
/*
 * 10-send-with-imm, client: sends <imm> as the immediate data of one
 * message whose payload is <word>, or which has no payload at all.
 *
 * usage: client <addr> <port> <imm> [<word>]
 */

#include <stdlib.h>
#include <string.h>

#include "common/args.h"
#include "common/client.h"
#include "common/err.h"
#include "common/msg.h"
#include "layout.h"

static int
send_imm(struct rpma_peer *peer, struct rpma_conn *conn, void *arg)
{
	const struct client_pdata *msg = arg;
	struct ex_msgs m;
	if (ex_msgs_new(peer, &m))
		return -1;
	memcpy(EX_MSG_SEND(&m), msg->word, msg->word_len);
	/* a message without payload needs no memory region at all */
	int ret = rpma_send_with_imm(conn, msg->word_len ? m.mr : NULL,
		msg->word_len ? EX_MSG_SIZE : 0, msg->word_len,
		RPMA_F_COMPLETION_ALWAYS, msg->imm, NULL);
	int result = -1;
	if (ret)
		EX_ERR("rpma_send_with_imm", ret);
	else
		result = ex_await(conn, true, false, NULL);
	if (result == 0)
		printf("sent immediate value %u\n", msg->imm);
	if (ex_msgs_delete(&m))
		result = -1;
	return result;
}

int
main(int argc, char *argv[])
{
	struct client_pdata msg = {0};
	uint64_t imm;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: %s <addr> <port> <imm> [<word>]\n",
			argv[0]);
		return EXIT_FAILURE;
	}
	if (ex_parse_uint(argv[3], UINT32_MAX, &imm))
		return EXIT_FAILURE;
	msg.imm = (uint32_t)imm;
	if (argc == 5) {
		size_t len = strlen(argv[4]) + 1;
		if (len > WORD_MAX) {
			fprintf(stderr,
				"the word may have at most %d letters\n",
				WORD_MAX - 1);
			return EXIT_FAILURE;
		}
		memcpy(msg.word, argv[4], len);
		msg.word_len = (uint32_t)len;
	}
	return ex_client_run(
		argv[1], argv[2], NULL, &msg, sizeof(msg), send_imm, &msg);
}
