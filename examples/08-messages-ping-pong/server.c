// SPDX-License-Identifier: BSD-3-Clause
/*
 * 08-messages-ping-pong, server: answers each counter value the client
 * sends with the next one, until the client says it is done. Its first
 * receive is posted before the connection is accepted (rpma_conn_req_recv),
 * so the client may send as soon as it is connected.
 *
 * usage: server <addr> <port>
 */

#include "common/pingpong.h"

int
main(int argc, char *argv[])
{
	return ex_pingpong_main(argc, argv, 1, NULL);
}
