/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Appliance persistency method (APM) setup shared by examples 05 and 07:
 * the server announces its region and whether its platform writes straight
 * to PMem; the client makes its flushes as strong as that allows.
 */

#ifndef RPMA_EXAMPLES_COMMON_APM_H
#define RPMA_EXAMPLES_COMMON_APM_H

#include <stdbool.h>
#include <stdint.h>

#include <librpma.h>

#include "mr.h"

/* the server's accept private data */
struct ex_apm_pdata {
	uint8_t mr[EX_MR_DESC_SIZE]; /* the region to write */
	uint8_t pcfg; /* the server's peer configuration descriptor */
};

/* server: describes mr, with direct_write as the peer configuration */
int ex_apm_pdata_make(const struct rpma_mr_local *mr, bool direct_write,
	struct ex_apm_pdata *pd);

/*
 * client: takes the server's region from the connection's private data and
 * applies its peer configuration; *type is the strongest flush allowed.
 */
int ex_apm_pdata_use(struct rpma_conn *conn, struct rpma_mr_remote **dst,
	enum rpma_flush_type *type);

#endif /* RPMA_EXAMPLES_COMMON_APM_H */
