// SPDX-License-Identifier: BSD-3-Clause
#include "addr_info.hh"

#include "error.hh"

namespace rpma {

AddrInfoOwner resolve_address(const char *addr, const char *port, AddressRole role)
{
	rdma_addrinfo hints{};
	hints.ai_flags = role == AddressRole::passive ? RAI_PASSIVE : 0;
	hints.ai_qp_type = IBV_QPT_RC;
	hints.ai_port_space = RDMA_PS_TCP;
	rdma_addrinfo *info = nullptr;
	errno = 0;
	if (rdma_getaddrinfo(addr, port, &hints, &info))
		throw_provider("rdma_getaddrinfo()", errno_or(EIO));
	return AddrInfoOwner(info);
}

} // namespace rpma
