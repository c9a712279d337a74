// SPDX-License-Identifier: BSD-3-Clause

#include "apm.h"
#include "conn.h"
#include "err.h"
#include "flush.h"

int
ex_apm_pdata_make(const struct rpma_mr_local *mr, bool direct_write,
	struct ex_apm_pdata *pd)
{
	struct rpma_peer_cfg *pcfg = NULL;

	if (ex_mr_descriptor(mr, pd->mr))
		return -1;
	int ret = rpma_peer_cfg_new(&pcfg);
	if (ret) {
		EX_ERR("rpma_peer_cfg_new", ret);
		return -1;
	}
	if ((ret = rpma_peer_cfg_set_direct_write_to_pmem(pcfg, direct_write)))
		EX_ERR("rpma_peer_cfg_set_direct_write_to_pmem", ret);
	else if ((ret = rpma_peer_cfg_get_descriptor(pcfg, &pd->pcfg)))
		EX_ERR("rpma_peer_cfg_get_descriptor", ret);
	(void)rpma_peer_cfg_delete(&pcfg);
	return ret ? -1 : 0;
}

/* applies the server's peer configuration; tells if it writes to PMem */
static int
apply_peer_cfg(struct rpma_conn *conn, const uint8_t *desc, bool *direct_write)
{
	struct rpma_peer_cfg *pcfg = NULL;
	int ret = rpma_peer_cfg_from_descriptor(desc, 1, &pcfg);
	if (ret) {
		EX_ERR("rpma_peer_cfg_from_descriptor", ret);
		return -1;
	}
	if ((ret = rpma_conn_apply_remote_peer_cfg(conn, pcfg)))
		EX_ERR("rpma_conn_apply_remote_peer_cfg", ret);
	else if ((ret = rpma_peer_cfg_get_direct_write_to_pmem(
			  pcfg, direct_write)))
		EX_ERR("rpma_peer_cfg_get_direct_write_to_pmem", ret);
	(void)rpma_peer_cfg_delete(&pcfg);
	return ret ? -1 : 0;
}

int
ex_apm_pdata_use(struct rpma_conn *conn, struct rpma_mr_remote **dst,
	enum rpma_flush_type *type)
{
	struct ex_apm_pdata *pd = NULL;
	bool direct_write = false;

	if (ex_private_data(conn, sizeof(*pd), (void **)&pd) ||
		apply_peer_cfg(conn, &pd->pcfg, &direct_write) ||
		ex_mr_remote(pd->mr, dst))
		return -1;
	if (ex_flush_type(*dst, direct_write, type)) {
		(void)rpma_mr_remote_delete(dst);
		return -1;
	}
	return 0;
}
