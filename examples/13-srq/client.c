// SPDX-License-Identifier: BSD-3-Clause
/*
 * 13-srq, client: the ping-pong client of example 08. Several of them play
 * against one server at once; the server receives all their messages
 * through its shared receive queue.
 *
 * usage: client <addr> <port> <seed> <rounds>
 */

#include "common/pingpong.h"

int
main(int argc, char *argv[])
{
	return ex_pingpong_main(argc, argv, 0, NULL);
}
