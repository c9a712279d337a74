// SPDX-License-Identifier: BSD-3-Clause

#include "env.hh"

#include <atomic>
#include <cstdlib>

namespace it {

std::string self_exe;

const char *test_ip()
{
	const char *ip = std::getenv("RPMA_TEST_IP");
	return ip ? ip : "";
}

std::string next_port()
{
	static std::atomic<int> used{0};
	const char *base = std::getenv("RPMA_TEST_PORT");
	int port = (base ? std::atoi(base) : 7204) + used++;
	return std::to_string(port);
}

} // namespace it
