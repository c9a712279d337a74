// SPDX-License-Identifier: BSD-3-Clause
// Errors inside the library: constructors and set-up code throw rpma::Error
// carrying an RPMA_E_* code; the C API turns it back into a return value.
#ifndef RPMA_ERROR_HH
#define RPMA_ERROR_HH

#include <cerrno>
#include <exception>

#include "librpma.h"

namespace rpma {

class Error : public std::exception {
public:
	explicit Error(int code) noexcept : code_(code) {}
	int code() const noexcept { return code_; }
	const char *what() const noexcept override;

private:
	int code_;
};

// The words for an RPMA_E_* code (and 0), as rpma_err_2str() returns them.
const char *error_text(int code) noexcept;

// Logs "<call> failed: <strerror(err)>", sets errno to err, remembers it
// for this thread (last_provider_errno) and returns RPMA_E_PROVIDER.
int provider_error(const char *call, int err) noexcept;

// The err of this thread's latest provider_error(): the C API leaves it in
// errno with RPMA_E_PROVIDER, after destructors may have changed errno.
int last_provider_errno() noexcept;

// The same, thrown.
[[noreturn]] void throw_provider(const char *call, int err);

// Throws RPMA_E_PROVIDER for err, which the caller has already logged in
// words of its own.
[[noreturn]] void throw_logged_provider(int err);

// The errno-style result of a failed rdma-core call that may not set errno.
inline int errno_or(int fallback) noexcept
{
	return errno ? errno : fallback;
}

} // namespace rpma

#endif
