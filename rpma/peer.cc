// SPDX-License-Identifier: BSD-3-Clause
#include "peer.hh"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "config.h"
#include "error.hh"
#include "log.hh"

namespace rpma {

namespace {

ibv_device_attr_ex query_device(ibv_context *context)
{
	ibv_device_attr_ex attr{};
	int ret = ibv_query_device_ex(context, nullptr, &attr);
	if (ret)
		throw_provider("ibv_query_device_ex()", ret);
	return attr;
}

bool supports_rc_odp(const ibv_device_attr_ex &attr)
{
	constexpr uint32_t rc_needed = IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ;
	return (attr.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
	       (attr.odp_caps.per_transport_caps.rc_odp_caps & rc_needed) == rc_needed;
}

bool supports_mw_type2(const ibv_device_attr_ex &attr)
{
	return attr.orig_attr.device_cap_flags &
	       (IBV_DEVICE_MEM_WINDOW_TYPE_2A | IBV_DEVICE_MEM_WINDOW_TYPE_2B);
}

uint8_t clamp_u8(int value)
{
	return static_cast<uint8_t>(value < 0 ? 0 : value > UINT8_MAX ? UINT8_MAX : value);
}

// Kernel capability bits (IB_UVERBS_DEVICE_*): rdma-core names no
// IBV_DEVICE_* alias for them.
constexpr uint64_t DEVICE_FLUSH_GLOBAL = 1ULL << 38;
constexpr uint64_t DEVICE_FLUSH_PERSISTENT = 1ULL << 39;
constexpr uint64_t DEVICE_ATOMIC_WRITE = 1ULL << 40;

bool device_has_atomic_write([[maybe_unused]] const ibv_device_attr_ex &attr)
{
#if HAVE_DECL_IBV_WR_ATOMIC_WRITE
	return attr.device_cap_flags_ex & DEVICE_ATOMIC_WRITE;
#else
	return false;
#endif
}

bool device_has_flush([[maybe_unused]] const ibv_device_attr_ex &attr)
{
#if HAVE_DECL_IBV_WR_FLUSH
	constexpr uint64_t both = DEVICE_FLUSH_GLOBAL | DEVICE_FLUSH_PERSISTENT;
	return (attr.device_cap_flags_ex & both) == both;
#else
	return false;
#endif
}

// The native operations the application says its responders execute:
// RPMA_NATIVE_OPS, a list of "atomic_write" and "flush" (or "all"),
// separated by commas or spaces. Unknown words are reported and ignored.
NativeOps native_ops_wanted()
{
	NativeOps wanted;
	const char *env = std::getenv("RPMA_NATIVE_OPS");
	if (!env)
		return wanted;
	std::string_view rest(env);
	while (!rest.empty()) {
		size_t end = rest.find_first_of(", ");
		std::string_view word = rest.substr(0, end);
		rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
		if (word == "atomic_write" || word == "all")
			wanted.atomic_write = true;
		if (word == "flush" || word == "all")
			wanted.flush = true;
		if (!word.empty() && word != "atomic_write" && word != "flush" && word != "all" &&
		    word != "none")
			RPMA_LOG_WARNING("RPMA_NATIVE_OPS: unknown operation '%.*s' ignored",
					 static_cast<int>(word.size()), word.data());
	}
	return wanted;
}

} // namespace

bool is_odp_capable_device(ibv_context *context)
{
	return supports_rc_odp(query_device(context));
}

bool is_mw_type2_capable_device(ibv_context *context)
{
	return supports_mw_type2(query_device(context));
}

Peer::Peer(ibv_context *context) : Peer(context, native_ops_wanted(), "RPMA_NATIVE_OPS") {}

Peer::Peer(ibv_context *context, NativeOps wanted)
	: Peer(context, wanted, "rpma_peer_new_with_native_ops")
{
}

Peer::Peer(ibv_context *context, NativeOps wanted, const char *wanted_by) : context_(context)
{
	const ibv_device_attr_ex attr = query_device(context);
	odp_capable_ = supports_rc_odp(attr);
	atomic_write_capable_ = device_has_atomic_write(attr);
	native_atomic_write_ = wanted.atomic_write && atomic_write_capable_;
	flush_responder_ = device_has_flush(attr);
	native_flush_ = wanted.flush && flush_responder_;
	mw_type2_capable_ = supports_mw_type2(attr);
	max_responder_resources_ = clamp_u8(attr.orig_attr.max_qp_rd_atom);
	max_initiator_depth_ = clamp_u8(attr.orig_attr.max_qp_init_rd_atom);
	// "not enabled (RPMA_NATIVE_OPS)", or by the peer's creator
	char not_enabled[64];
	std::snprintf(not_enabled, sizeof(not_enabled), "not enabled (%s)", wanted_by);
	if (!native_atomic_write_)
		RPMA_LOG_INFO("Native atomic write is %s - an inline, fenced RDMA write will be "
			      "used instead",
			      wanted.atomic_write ? "not supported" : not_enabled);
	if (!native_flush_)
		RPMA_LOG_INFO("Native flush is %s - an 8-byte RDMA read will be used instead",
			      wanted.flush ? "not supported" : not_enabled);

	errno = 0;
	pd_ = PdOwner(ibv_alloc_pd(context));
	if (!pd_) {
		int err = errno;
		if (err == ENOMEM)
			throw Error(RPMA_E_NOMEM);
		if (err == 0) {
			RPMA_LOG_ERROR("ibv_alloc_pd() failed without an errno");
			throw Error(RPMA_E_UNKNOWN);
		}
		throw_provider("ibv_alloc_pd()", err);
	}
}

int Peer::access_for(int usage) const noexcept
{
	int access = 0;
	if (usage & RPMA_MR_USAGE_READ_SRC)
		access |= IBV_ACCESS_REMOTE_READ;
	if (usage & RPMA_MR_USAGE_READ_DST) {
		access |= IBV_ACCESS_LOCAL_WRITE;
		// an iWARP read response lands as a tagged write
		if (context_->device && context_->device->transport_type == IBV_TRANSPORT_IWARP)
			access |= IBV_ACCESS_REMOTE_WRITE;
	}
	if (usage & (RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_RECV))
		access |= IBV_ACCESS_LOCAL_WRITE;
	if (usage & RPMA_MR_USAGE_WRITE_DST)
		access |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
	// An emulating initiator flushes with an RDMA read; a native one needs
	// the flush access of the type, which only a capable device grants.
	if (usage & (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT))
		access |= IBV_ACCESS_REMOTE_READ;
#if HAVE_DECL_IBV_WR_FLUSH
	if (flush_responder_ && (usage & RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY))
		access |= IBV_ACCESS_FLUSH_GLOBAL;
	if (flush_responder_ && (usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT))
		access |= IBV_ACCESS_FLUSH_PERSISTENT;
#endif
	return access;
}

} // namespace rpma
