/* SPDX-License-Identifier: BSD-3-Clause */
/* What the two sides of example 09 agree on. */

#ifndef RPMA_EXAMPLES_09_FLUSH_TO_PERSISTENT_GPSPM_LAYOUT_H
#define RPMA_EXAMPLES_09_FLUSH_TO_PERSISTENT_GPSPM_LAYOUT_H

/* the bytes the client writes, and the seed of their pattern */
#define DATA_SIZE 8192
#define DATA_SEED 0x09abu

/* the client writes and has flushed this many bytes at a time */
#define CHUNK_SIZE 2048

/*
 * The server's accept private data is the descriptor of its region. Flush
 * requests and responses travel as gpspm.proto messages, one per send.
 */

#endif /* RPMA_EXAMPLES_09_FLUSH_TO_PERSISTENT_GPSPM_LAYOUT_H */
