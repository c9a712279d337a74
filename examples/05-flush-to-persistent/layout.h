/* SPDX-License-Identifier: BSD-3-Clause */
/* What the two sides of example 05 agree on. */

#ifndef EXAMPLES_05_LAYOUT_H
#define EXAMPLES_05_LAYOUT_H

/* the bytes the client writes, and the seed of their pattern */
#define DATA_SIZE 4096
#define DATA_SEED 0x05f1u

/* the server's accept private data is a struct ex_apm_pdata */

#endif /* EXAMPLES_05_LAYOUT_H */
