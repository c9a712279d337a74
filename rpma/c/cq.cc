// SPDX-License-Identifier: BSD-3-Clause
#include "../cq.hh"
#include "api.hh"

using namespace rpma;
using namespace rpma::c;

RPMA_EXPORT int rpma_cq_get_fd(const rpma_cq *cq, int *fd)
{
	if (!cq || !fd)
		return RPMA_E_INVAL;
	*fd = impl(cq)->fd();
	return 0;
}

RPMA_EXPORT int rpma_cq_wait(rpma_cq *cq)
{
	if (!cq)
		return RPMA_E_INVAL;
	return impl(cq)->wait();
}

RPMA_EXPORT int rpma_cq_get_wc(rpma_cq *cq, int num_entries, ibv_wc *wc, int *num_entries_got)
{
	if (!cq || !wc || num_entries < 1 || (num_entries > 1 && !num_entries_got)) [[unlikely]]
		return RPMA_E_INVAL;
	return impl(cq)->get_wc(num_entries, wc, num_entries_got);
}
