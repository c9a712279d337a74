// SPDX-License-Identifier: BSD-3-Clause
/*
 * 01-connection, client: connects with a greeting, checks the server's
 * answer and disconnects.
 */

#include <stdlib.h>
#include <string.h>

#include "common/client.h"
#include "common/conn.h"
#include "common/err.h"
#include "hello.h"

static int
check_answer(struct rpma_peer *peer, struct rpma_conn *conn, void *arg)
{
	(void)peer;
	(void)arg;
	void *answer = NULL;
	if (ex_private_data(conn, sizeof(HELLO_FROM_SERVER), &answer))
		return -1;
	if (memcmp(answer, HELLO_FROM_SERVER, sizeof(HELLO_FROM_SERVER))) {
		EX_FAIL("unexpected answer from the server");
		return -1;
	}
	printf("server says: %s\n", (char *)answer);
	return 0;
}

int
main(int argc, char *argv[])
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s <addr> <port>\n", argv[0]);
		return EXIT_FAILURE;
	}
	return ex_client_run(argv[1], argv[2], NULL, HELLO_FROM_CLIENT,
		sizeof(HELLO_FROM_CLIENT), check_answer, NULL);
}
