// SPDX-License-Identifier: BSD-3-Clause

#include "cfg.h"
#include "common/err.h"

/* deep enough for the one receive a ping-pong has outstanding */
#define RCQ_SIZE 4

int
scch_cfg_new(struct rpma_conn_cfg **cfg_ptr)
{
	int ret = rpma_conn_cfg_new(cfg_ptr);
	if (ret) {
		EX_ERR("rpma_conn_cfg_new", ret);
		return -1;
	}
	/*
	 * one fd then wakes the application for both queues, and
	 * rpma_conn_wait tells which of them has completions
	 */
	if ((ret = rpma_conn_cfg_set_rcq_size(*cfg_ptr, RCQ_SIZE)))
		EX_ERR("rpma_conn_cfg_set_rcq_size", ret);
	else if ((ret = rpma_conn_cfg_set_compl_channel(*cfg_ptr, true)))
		EX_ERR("rpma_conn_cfg_set_compl_channel", ret);
	if (ret) {
		(void)rpma_conn_cfg_delete(cfg_ptr);
		return -1;
	}
	return 0;
}
