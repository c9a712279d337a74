// SPDX-License-Identifier: BSD-3-Clause
#include "addr_info.hh"

#include "error.hh"
#include "log.hh"

namespace rpma {

AddrInfoOwner resolve_address(const char *addr, const char *port, AddressRole role)
{
	rdma_addrinfo hints{};
	hints.ai_flags = role == AddressRole::passive ? RAI_PASSIVE : 0;
	hints.ai_qp_type = IBV_QPT_RC;
	hints.ai_port_space = RDMA_PS_TCP;
	rdma_addrinfo *info = nullptr;
	errno = 0;
	int ret;
	{
		// a name may wait for DNS here, and every CM id of the process
		// with it: addresses are numbers in every known use
		const auto lock = lock_librdmacm();
		ret = rdma_getaddrinfo(addr, port, &hints, &info);
	}
	if (ret)
		throw_provider("rdma_getaddrinfo()", errno_or(EIO));
	return AddrInfoOwner(info);
}

ibv_context *device_for_address(const char *addr, AddressRole role)
{
	const AddrInfoOwner info = resolve_address(addr, nullptr, role);
	const CmIdOwner id = create_cm_id(nullptr);
	if (role == AddressRole::passive) {
		if (rdma_bind_addr(id.get(), info->ai_src_addr))
			throw_provider("rdma_bind_addr()", errno_or(EIO));
	} else if (rdma_resolve_addr(id.get(), info->ai_src_addr, info->ai_dst_addr,
				     RPMA_DEFAULT_TIMEOUT_MS)) {
		throw_provider("rdma_resolve_addr()", errno_or(EIO));
	}
	if (!id->verbs) {
		RPMA_LOG_ERROR("no RDMA device serves the address %s", addr);
		throw_logged_provider(ENODEV);
	}
	return id->verbs;
}

} // namespace rpma
