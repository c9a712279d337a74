/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory registration wrappers that report their own failures. */

#ifndef RPMA_EXAMPLES_COMMON_MR_H
#define RPMA_EXAMPLES_COMMON_MR_H

#include <stddef.h>

#include <librpma.h>

/* the wire size of an MR descriptor (rpma_mr_get_descriptor_size) */
#define EX_MR_DESC_SIZE 21

int ex_mr_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage,
	struct rpma_mr_local **mr_ptr);

/* deregisters; 0, or -1 after printing why it failed */
int ex_mr_dereg(struct rpma_mr_local **mr_ptr);

/* writes mr's descriptor, which must be EX_MR_DESC_SIZE bytes, to desc */
int ex_mr_descriptor(const struct rpma_mr_local *mr, void *desc);

/* the remote region described by desc */
int ex_mr_remote(const void *desc, struct rpma_mr_remote **mr_ptr);

#endif /* RPMA_EXAMPLES_COMMON_MR_H */
