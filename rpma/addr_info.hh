// SPDX-License-Identifier: BSD-3-Clause
// Address resolution through rdma_getaddrinfo().
#ifndef RPMA_ADDR_INFO_HH
#define RPMA_ADDR_INFO_HH

#include "verbs.hh"

namespace rpma {

enum class AddressRole {
	passive, // an address to bind or listen on
	active,  // an address to connect to
};

// Resolves addr (and port, which may be null) for an RC connection over
// RDMA_PS_TCP; throws rpma::Error(RPMA_E_PROVIDER) on failure.
AddrInfoOwner resolve_address(const char *addr, const char *port, AddressRole role);

// The device that serves addr: bound to (passive) or routed to (active).
// The context belongs to librdmacm and outlives the lookup. Throws
// RPMA_E_PROVIDER, with ENODEV where the address (a wildcard) binds to no
// device.
ibv_context *device_for_address(const char *addr, AddressRole role);

} // namespace rpma

#endif
