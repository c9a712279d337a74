/* SPDX-License-Identifier: BSD-3-Clause */
/* What the two sides of example 02 agree on. */

#ifndef RPMA_EXAMPLES_02_READ_LAYOUT_H
#define RPMA_EXAMPLES_02_READ_LAYOUT_H

/* the bytes the server exposes, and the seed of their pattern */
#define DATA_SIZE 8192
#define DATA_SEED 0x02eau

/* the server's accept private data is the descriptor of its region */

#endif /* RPMA_EXAMPLES_02_READ_LAYOUT_H */
