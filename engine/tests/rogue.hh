// SPDX-License-Identifier: BSD-3-Clause
// rogue.hh -- what the misbehaving peers of the engine tests
// (rogue_client.cc, rogue_server.cc) share.
#ifndef RPMA_ENGINE_TESTS_ROGUE_HH
#define RPMA_ENGINE_TESTS_ROGUE_HH

#include <librpma.h>

#include <cstdio>

namespace rogue {

extern const char *const NAME; // of the program, for its messages

// A local failure: says so, returns the exit status for it.
inline int failed(const char *what, int ret)
{
	std::fprintf(stderr, "%s: %s: %s\n", NAME, what, rpma_err_2str(ret));
	return 2;
}

// The peer on the device of `ip`: 0, or the exit status after failed().
inline int open_peer(const char *ip, rpma_util_ibv_context_type type, rpma_peer **peer)
{
	ibv_context *dev;
	int ret = rpma_utils_get_ibv_context(ip, type, &dev);
	if (ret)
		return failed("rpma_utils_get_ibv_context", ret);
	if ((ret = rpma_peer_new(dev, peer)))
		return failed("rpma_peer_new", ret);
	return 0;
}

} // namespace rogue

#endif
