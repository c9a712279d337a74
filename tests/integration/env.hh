// SPDX-License-Identifier: BSD-3-Clause
// Where the tests find the RDMA device and which ports they use.

#ifndef RPMA_TESTS_INTEGRATION_ENV_HH
#define RPMA_TESTS_INTEGRATION_ENV_HH

#include <string>

namespace it {

// Bound on any single wait. Generous: the suite also runs in a TCG-emulated
// VM, 10-50x slower than hardware; a hang must still end as a failure.
constexpr int TIMEOUT_MS = 20000;

// RPMA_TEST_IP: an address of the RDMA device under test (not 127.0.0.1)
const char *test_ip();

// this program's own executable, for starting peer processes; set once by
// main() (under valgrind /proc/self/exe would name valgrind itself)
extern std::string self_exe;

// a port no other test of this run uses: RPMA_TEST_PORT (default 7204) + n
std::string next_port();

} // namespace it

#endif
