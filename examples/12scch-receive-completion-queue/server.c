// SPDX-License-Identifier: BSD-3-Clause
/*
 * 12scch-receive-completion-queue, server: the ping-pong of example 08, with
 * a separate receive completion queue that shares one completion channel
 * with the main queue; completions are awaited with rpma_conn_wait.
 *
 * usage: server <addr> <port>
 */

#include <stdlib.h>

#include "cfg.h"
#include "common/pingpong.h"

int
main(int argc, char *argv[])
{
	struct rpma_conn_cfg *cfg = NULL;
	if (scch_cfg_new(&cfg))
		return EXIT_FAILURE;
	int result = ex_pingpong_main(argc, argv, 1, cfg);
	(void)rpma_conn_cfg_delete(&cfg);
	return result;
}
