// SPDX-License-Identifier: BSD-3-Clause
// The peer process of the fault tests: this same binary started with
// "--peer-server <port> <ready-fd>". It listens on RPMA_TEST_IP:<port>,
// writes one byte to <ready-fd> once it listens, accepts one connection
// with the descriptor of a writable region as private data, and then just
// waits to be killed.

#ifndef RPMA_TESTS_INTEGRATION_PEER_SERVER_HH
#define RPMA_TESTS_INTEGRATION_PEER_SERVER_HH

#include <cstddef>

namespace it {

// the size of the region the peer server exposes
constexpr size_t PEER_REGION_SIZE = 1 << 20;

int peer_server_main(int argc, char *argv[]);

} // namespace it

#endif
