// SPDX-License-Identifier: BSD-3-Clause
#include "../conn.hh"
#include "../peer_cfg.hh"
#include "api.hh"

using namespace rpma;
using namespace rpma::c;

RPMA_EXPORT int rpma_conn_get_event_fd(const rpma_conn *conn, int *fd)
{
	if (!conn || !fd)
		return RPMA_E_INVAL;
	*fd = impl(conn)->event_fd();
	return 0;
}

RPMA_EXPORT int rpma_conn_next_event(rpma_conn *conn, rpma_conn_event *event)
{
	if (!conn || !event)
		return RPMA_E_INVAL;
	return impl(conn)->next_event(event);
}

RPMA_EXPORT int rpma_conn_get_private_data(const rpma_conn *conn, rpma_conn_private_data *pdata)
{
	if (!conn || !pdata)
		return RPMA_E_INVAL;
	*pdata = impl(conn)->private_data();
	return 0;
}

RPMA_EXPORT int rpma_conn_apply_remote_peer_cfg(rpma_conn *conn, const rpma_peer_cfg *pcfg)
{
	if (!conn || !pcfg)
		return RPMA_E_INVAL;
	impl(conn)->set_direct_write_to_pmem(impl(pcfg)->direct_write_to_pmem());
	return 0;
}

RPMA_EXPORT int rpma_conn_get_qp_num(const rpma_conn *conn, uint32_t *qp_num)
{
	if (!conn || !qp_num)
		return RPMA_E_INVAL;
	*qp_num = impl(conn)->qp_num();
	return 0;
}

RPMA_EXPORT int rpma_conn_get_cq(const rpma_conn *conn, rpma_cq **cq_ptr)
{
	if (!conn || !cq_ptr)
		return RPMA_E_INVAL;
	*cq_ptr = handle<rpma_cq>(impl(conn)->cq());
	return 0;
}

RPMA_EXPORT int rpma_conn_get_rcq(const rpma_conn *conn, rpma_cq **rcq_ptr)
{
	if (!conn || !rcq_ptr)
		return RPMA_E_INVAL;
	*rcq_ptr = handle<rpma_cq>(impl(conn)->rcq());
	return 0;
}

RPMA_EXPORT int rpma_conn_get_compl_fd(const rpma_conn *conn, int *fd)
{
	if (!conn || !fd)
		return RPMA_E_INVAL;
	ibv_comp_channel *channel = impl(conn)->shared_channel();
	if (!channel)
		return RPMA_E_NOT_SHARED_CHNL;
	*fd = channel->fd;
	return 0;
}

// flags is reserved, as in upstream
RPMA_EXPORT int rpma_conn_wait(rpma_conn *conn, int, rpma_cq **cq, bool *is_rcq)
{
	if (!conn || !cq)
		return RPMA_E_INVAL;
	Cq *fired = nullptr;
	int ret = impl(conn)->wait(&fired, is_rcq);
	if (ret == 0 || ret == RPMA_E_PROVIDER)
		*cq = handle<rpma_cq>(fired);
	return ret;
}

RPMA_EXPORT int rpma_conn_disconnect(rpma_conn *conn)
{
	if (!conn)
		return RPMA_E_INVAL;
	return impl(conn)->disconnect();
}

RPMA_EXPORT int rpma_conn_delete(rpma_conn **conn_ptr)
{
	return destroy(conn_ptr, [](Conn &conn) { return conn.release(); });
}
