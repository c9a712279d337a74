// SPDX-License-Identifier: BSD-3-Clause
#include "error.hh"

#include <cerrno>
#include <cstring>

#include "log.hh"

namespace rpma {

namespace {
thread_local int provider_errno = 0;
}

const char *error_text(int code) noexcept
{
	switch (code) {
	case 0:
		return "Success";
	case RPMA_E_NOSUPP:
		return "Not supported";
	case RPMA_E_PROVIDER:
		return "Provider error occurred";
	case RPMA_E_NOMEM:
		return "Out of memory";
	case RPMA_E_INVAL:
		return "Invalid argument";
	case RPMA_E_NO_COMPLETION:
		return "No next completion available";
	case RPMA_E_NO_EVENT:
		return "No next event available";
	case RPMA_E_AGAIN:
		return "Temporary error, try again";
	case RPMA_E_SHARED_CHANNEL:
		return "Completion channel is shared";
	case RPMA_E_NOT_SHARED_CHNL:
		return "Completion channel is not shared";
	default:
		return "Unknown error";
	}
}

const char *Error::what() const noexcept
{
	return error_text(code_);
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
