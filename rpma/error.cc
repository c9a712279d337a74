// SPDX-License-Identifier: BSD-3-Clause
#include "error.hh"

#include <cerrno>
#include <cstring>

#include "log.hh"

namespace rpma {

namespace {
thread_local int provider_errno = 0;
}

int provider_error(const char *call, int err) noexcept
{
	RPMA_LOG_ERROR("%s failed: %s", call, std::strerror(err));
	provider_errno = err;
	errno = err;
	return RPMA_E_PROVIDER;
}

int last_provider_errno() noexcept
{
	return provider_errno;
}

void throw_provider(const char *call, int err)
{
	throw Error(provider_error(call, err));
}

void throw_logged_provider(int err)
{
	provider_errno = err;
	throw Error(RPMA_E_PROVIDER);
}

} // namespace rpma
