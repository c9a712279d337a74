// SPDX-License-Identifier: BSD-3-Clause
/*
 * 12-receive-completion-queue, client: the ping-pong of example 08, with
 * receive completions collected from a separate receive completion queue.
 *
 * usage: client <addr> <port> <seed> <rounds>
 */

#include <stdlib.h>

#include "cfg.h"
#include "common/pingpong.h"

int
main(int argc, char *argv[])
{
	struct rpma_conn_cfg *cfg = NULL;
	if (rcq_cfg_new(&cfg))
		return EXIT_FAILURE;
	int result = ex_pingpong_main(argc, argv, 0, cfg);
	(void)rpma_conn_cfg_delete(&cfg);
	return result;
}
