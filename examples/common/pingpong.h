/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A counter bounced between a client and a server with send/recv: the
 * server answers every value with value + 1 until the client says it is
 * done. Examples 08, 12 and 12scch differ only in how the connections'
 * completion queues are configured.
 */

#ifndef RPMA_EXAMPLES_COMMON_PINGPONG_H
#define RPMA_EXAMPLES_COMMON_PINGPONG_H

#include <stddef.h>
#include <stdint.h>

#include <librpma.h>

/*
 * The server's side of one exchange, as an ex_msg_handler: answers a value
 * with value + 1 (returns the answer's length) or sees the client is done
 * (returns 0). arg points to a uint64_t counting the rounds played.
 */
int ex_pingpong_answer(const void *msg, size_t len, void *reply, void *arg);

/* parses the examples' common command line and runs the right side */
int ex_pingpong_main(
	int argc, char *argv[], int is_server, const struct rpma_conn_cfg *cfg);

#endif /* RPMA_EXAMPLES_COMMON_PINGPONG_H */
