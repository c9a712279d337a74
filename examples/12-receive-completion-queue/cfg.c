// SPDX-License-Identifier: BSD-3-Clause

#include "common/err.h"
#include "cfg.h"

/* deep enough for the one receive a ping-pong has outstanding */
#define RCQ_SIZE 4

int
rcq_cfg_new(struct rpma_conn_cfg **cfg_ptr)
{
	int ret = rpma_conn_cfg_new(cfg_ptr);
	if (ret) {
		EX_ERR("rpma_conn_cfg_new", ret);
		return -1;
	}
	/* receives now complete on their own queue, sends on the main one */
	ret = rpma_conn_cfg_set_rcq_size(*cfg_ptr, RCQ_SIZE);
	if (ret) {
		EX_ERR("rpma_conn_cfg_set_rcq_size", ret);
		(void)rpma_conn_cfg_delete(cfg_ptr);
		return -1;
	}
	return 0;
}
