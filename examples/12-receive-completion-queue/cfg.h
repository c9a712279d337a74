/* SPDX-License-Identifier: BSD-3-Clause */
/* The connection configuration both sides of example 12 use. */

#ifndef RPMA_EXAMPLES_12_RECEIVE_COMPLETION_QUEUE_CFG_H
#define RPMA_EXAMPLES_12_RECEIVE_COMPLETION_QUEUE_CFG_H

#include <librpma.h>

/* a configuration with a separate receive completion queue */
int rcq_cfg_new(struct rpma_conn_cfg **cfg_ptr);

#endif /* RPMA_EXAMPLES_12_RECEIVE_COMPLETION_QUEUE_CFG_H */
