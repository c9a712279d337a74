/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 14-memory-window: what server and client agree on.
 */

#ifndef RPMA_EXAMPLES_14_MEMORY_WINDOW_LAYOUT_H
#define RPMA_EXAMPLES_14_MEMORY_WINDOW_LAYOUT_H

/* the server's region; the window opens WINDOW_SIZE bytes at WINDOW_OFFSET */
#define REGION_SIZE 16384
#define WINDOW_OFFSET 4096
#define WINDOW_SIZE 8192
#define DATA_SEED 0x14a5u

/*
 * The server's accept private data is the descriptor of the window
 * (rpma_mw_get_descriptor), in a memory region's format.
 */

/* the exit status of a server that finds no type 2 windows (a skip) */
#define EXIT_NOT_CAPABLE 77

#endif /* RPMA_EXAMPLES_14_MEMORY_WINDOW_LAYOUT_H */
