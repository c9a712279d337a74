/* SPDX-License-Identifier: BSD-3-Clause */
/* What the two sides of example 10 agree on. */

#ifndef RPMA_EXAMPLES_10_SEND_WITH_IMM_LAYOUT_H
#define RPMA_EXAMPLES_10_SEND_WITH_IMM_LAYOUT_H

#include <stdint.h>

/* the longest word, NUL included, that fits a RoCE connect's 56 bytes */
#define WORD_MAX 48

/*
 * The client's connect private data announces what it will send, so the
 * server can check what arrives.
 */
struct client_pdata {
	uint32_t imm;      /* the immediate value, in host order */
	uint32_t word_len; /* 0: the message carries no payload */
	char word[WORD_MAX];
};

#endif /* RPMA_EXAMPLES_10_SEND_WITH_IMM_LAYOUT_H */
