/* SPDX-License-Identifier: BSD-3-Clause */
/* What the two sides of example 05 agree on. */

#ifndef RPMA_EXAMPLES_05_FLUSH_TO_PERSISTENT_LAYOUT_H
#define RPMA_EXAMPLES_05_FLUSH_TO_PERSISTENT_LAYOUT_H

/* the bytes the client writes, and the seed of their pattern */
#define DATA_SIZE 4096
#define DATA_SEED 0x05f1u

/* the server's accept private data is a struct ex_apm_pdata */

#endif /* RPMA_EXAMPLES_05_FLUSH_TO_PERSISTENT_LAYOUT_H */
