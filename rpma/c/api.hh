// SPDX-License-Identifier: BSD-3-Clause
// The glue of the C API: opaque handles to C++ objects and back, and the
// guard that turns exceptions into error codes at the boundary. Each shim
// includes the headers of the classes it uses.
#ifndef RPMA_C_API_HH
#define RPMA_C_API_HH

#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

#include "config.h"

#include "../error.hh"
#include "../log.hh"
#include "librpma.h"

#define RPMA_EXPORT extern "C" __attribute__((visibility("default")))

namespace rpma {
class Conn;
class ConnCfg;
class ConnReq;
class Cq;
class Ep;
class MrLocal;
class MrRemote;
class Mw;
class Peer;
class PeerCfg;
class Srq;
class SrqCfg;
} // namespace rpma

namespace rpma::c {

// Which C++ class stands behind each opaque C type. The C types are never
// defined: a handle is the object's address.
template <typename Handle> struct Impl;
// one line a handle (clang-format would spread each over three)
// clang-format off
template <> struct Impl<rpma_peer> { using type = Peer; };
template <> struct Impl<rpma_peer_cfg> { using type = PeerCfg; };
template <> struct Impl<rpma_conn_cfg> { using type = ConnCfg; };
template <> struct Impl<rpma_srq_cfg> { using type = SrqCfg; };
template <> struct Impl<rpma_mr_local> { using type = MrLocal; };
template <> struct Impl<rpma_mr_remote> { using type = MrRemote; };
template <> struct Impl<rpma_cq> { using type = Cq; };
template <> struct Impl<rpma_srq> { using type = Srq; };
template <> struct Impl<rpma_conn_req> { using type = ConnReq; };
template <> struct Impl<rpma_ep> { using type = Ep; };
template <> struct Impl<rpma_conn> { using type = Conn; };
template <> struct Impl<rpma_mw> { using type = Mw; };
// clang-format on

template <typename Handle> auto *impl(Handle *handle) noexcept
{
	using Object = typename Impl<std::remove_const_t<Handle>>::type;
	if constexpr (std::is_const_v<Handle>)
		return reinterpret_cast<const Object *>(handle);
	else
		return reinterpret_cast<Object *>(handle);
}

template <typename Handle, typename Object> Handle *handle(Object *object) noexcept
{
	static_assert(std::is_same_v<typename Impl<Handle>::type, Object>);
	return reinterpret_cast<Handle *>(object);
}

// Runs body() and maps what it throws to an error code. With
// RPMA_E_PROVIDER, errno is the provider's error (EADDRINUSE, ...), so that
// a caller can tell its user more than "provider error".
template <typename Body> int guarded(Body &&body) noexcept
{
	int ret;
	try {
		ret = body();
	} catch (const Error &error) {
		ret = error.code();
	} catch (const std::bad_alloc &) {
		ret = RPMA_E_NOMEM;
	} catch (...) {
		RPMA_LOG_ERROR("unexpected exception");
		ret = RPMA_E_UNKNOWN;
	}
	if (ret == RPMA_E_PROVIDER)
		errno = last_provider_errno();
	return ret;
}

// Creates an object and publishes its handle through *out only on success.
template <typename Handle, typename Factory> int create(Handle **out, Factory &&factory) noexcept
{
	return guarded([&] {
		*out = handle<Handle>(factory().release());
		return 0;
	});
}

// The delete/dereg contract: NULL handle pointer is INVAL, a NULL handle a
// no-op; the object is freed and the pointer cleared even when releasing
// its resources fails (then the provider error is returned).
template <typename Handle, typename Release> int destroy(Handle **ptr, Release &&release) noexcept
{
	if (!ptr)
		return RPMA_E_INVAL;
	if (!*ptr)
		return 0;
	std::unique_ptr<typename Impl<Handle>::type> object(impl(*ptr));
	*ptr = nullptr;
	return release(*object);
}

// The same for objects that hold no provider resources.
template <typename Handle> int destroy(Handle **ptr) noexcept
{
	return destroy(ptr, [](auto &) { return 0; });
}

} // namespace rpma::c

#endif
