// SPDX-License-Identifier: BSD-3-Clause
/*
 * 08-messages-ping-pong, client: sends <seed>, checks the answer is one
 * more, sends that on, <rounds> times, then tells the server it is done.
 *
 * usage: client <addr> <port> <seed> <rounds>
 */

#include "common/pingpong.h"

int
main(int argc, char *argv[])
{
	return ex_pingpong_main(argc, argv, 0, NULL);
}
