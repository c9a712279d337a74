// SPDX-License-Identifier: BSD-3-Clause
#include "error.hh"

#include <cstring>

#include "log.hh"

namespace rpma {

int provider_error(const char *call, int err) noexcept
{
	RPMA_LOG_ERROR("%s failed: %s", call, std::strerror(err));
	return RPMA_E_PROVIDER;
}

void throw_provider(const char *call, int err)
{
	throw Error(provider_error(call, err));
}

} // namespace rpma
