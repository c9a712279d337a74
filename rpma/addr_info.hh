// SPDX-License-Identifier: BSD-3-Clause
// Address resolution through rdma_getaddrinfo().
#ifndef RPMA_ADDR_INFO_HH
#define RPMA_ADDR_INFO_HH

#include "verbs.hh"

namespace rpma {

enum class AddressRole {
	passive, // an address to bind or listen on
	active,	 // an address to connect to
};

// Resolves addr (and port, which may be null) for an RC connection over
// RDMA_PS_TCP; throws rpma::Error(RPMA_E_PROVIDER) on failure.
AddrInfoOwner resolve_address(const char *addr, const char *port, AddressRole role);

} // namespace rpma

#endif
