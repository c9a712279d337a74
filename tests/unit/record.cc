// SPDX-License-Identifier: BSD-3-Clause
// Which RPMA_E_* codes the unit tests saw each public function return. The
// programs are linked with --wrap=<function> for every RECORD below (the
// list in Makefile.am is read from this file), so each call of the C API
// passes through a recorder. With RPMA_UNIT_ERRORS_DIR set (make check
// sets it, and runs whole suites), a program writes what it saw there as it
// exits; the manual's check compares each page's ERRORS with the union
// (docs/man/mancheck.py errors).
#include <errno.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "librpma.h"

namespace unit {

namespace {

constexpr struct {
	int code;
	const char *name;
} codes[] = {
	{RPMA_E_UNKNOWN, "RPMA_E_UNKNOWN"},
	{RPMA_E_NOSUPP, "RPMA_E_NOSUPP"},
	{RPMA_E_PROVIDER, "RPMA_E_PROVIDER"},
	{RPMA_E_NOMEM, "RPMA_E_NOMEM"},
	{RPMA_E_INVAL, "RPMA_E_INVAL"},
	{RPMA_E_NO_COMPLETION, "RPMA_E_NO_COMPLETION"},
	{RPMA_E_NO_EVENT, "RPMA_E_NO_EVENT"},
	{RPMA_E_AGAIN, "RPMA_E_AGAIN"},
	{RPMA_E_SHARED_CHANNEL, "RPMA_E_SHARED_CHANNEL"},
	{RPMA_E_NOT_SHARED_CHNL, "RPMA_E_NOT_SHARED_CHNL"},
};
constexpr size_t CODE_COUNT = sizeof(codes) / sizeof(codes[0]);

// One per wrapped function, linked at static initialisation: recording
// allocates nothing, so it works inside out_of_memory() too.
struct Seen {
	const char *function;
	bool called = false;
	bool returned[CODE_COUNT] = {};
	// any other non-zero result, printed as a number
	int other = 0;
	Seen *next;

	explicit Seen(const char *name) : function(name), next(first) { first = this; }
	static inline Seen *first = nullptr;
};

int note(Seen &seen, int ret) noexcept
{
	seen.called = true;
	if (ret == 0)
		return ret;
	for (size_t i = 0; i < CODE_COUNT; ++i)
		if (codes[i].code == ret) {
			seen.returned[i] = true;
			return ret;
		}
	seen.other = ret;
	return ret;
}

bool write_seen_errors(const std::string &path)
{
	std::FILE *out = std::fopen(path.c_str(), "w");
	if (!out)
		return false;
	// "<function>" for a call that succeeded, "<function> <code>" for
	// each code it returned
	for (const Seen *seen = Seen::first; seen; seen = seen->next) {
		if (!seen->called)
			continue;
		std::fprintf(out, "%s\n", seen->function);
		for (size_t i = 0; i < CODE_COUNT; ++i)
			if (seen->returned[i])
				std::fprintf(out, "%s %s\n", seen->function, codes[i].name);
		if (seen->other)
			std::fprintf(out, "%s %d\n", seen->function, seen->other);
	}
	return std::fclose(out) == 0;
}

// Defined after every Seen: destroyed before them.
struct WriteAtExit {
	~WriteAtExit()
	{
		const char *dir = std::getenv("RPMA_UNIT_ERRORS_DIR");
		if (!dir)
			return;
		const std::string path = std::string(dir) + "/" + program_invocation_short_name +
					 ".txt";
		if (!write_seen_errors(path))
			std::fprintf(stderr, "cannot write the codes seen to %s\n", path.c_str());
	}
};

} // namespace

} // namespace unit

// The wrapper of one function; the static_assert keeps its parameter list
// the header's.
#define RECORD(name, params, args)                                              \
	extern "C" decltype(name) __real_##name;                                \
	extern "C" int __wrap_##name params;                                    \
	static_assert(std::is_same_v<decltype(__wrap_##name), decltype(name)>); \
	namespace {                                                             \
	unit::Seen seen_##name(#name);                                          \
	}                                                                       \
	int __wrap_##name params                                                \
	{                                                                       \
		return unit::note(seen_##name, __real_##name args);             \
	}

RECORD(rpma_atomic_write,
       (struct rpma_conn * conn, struct rpma_mr_remote *dst, size_t dst_offset, const char src[8],
	int flags, const void *op_context),
       (conn, dst, dst_offset, src, flags, op_context))
RECORD(rpma_conn_apply_remote_peer_cfg, (struct rpma_conn * conn, const struct rpma_peer_cfg *pcfg),
       (conn, pcfg))
RECORD(rpma_conn_cfg_delete, (struct rpma_conn_cfg * *cfg_ptr), (cfg_ptr))
RECORD(rpma_conn_cfg_get_compl_channel, (const struct rpma_conn_cfg *cfg, bool *shared),
       (cfg, shared))
RECORD(rpma_conn_cfg_get_cq_size, (const struct rpma_conn_cfg *cfg, uint32_t *cq_size),
       (cfg, cq_size))
RECORD(rpma_conn_cfg_get_rcq_size, (const struct rpma_conn_cfg *cfg, uint32_t *rcq_size),
       (cfg, rcq_size))
RECORD(rpma_conn_cfg_get_rq_size, (const struct rpma_conn_cfg *cfg, uint32_t *rq_size),
       (cfg, rq_size))
RECORD(rpma_conn_cfg_get_sq_size, (const struct rpma_conn_cfg *cfg, uint32_t *sq_size),
       (cfg, sq_size))
RECORD(rpma_conn_cfg_get_srq, (const struct rpma_conn_cfg *cfg, struct rpma_srq **srq_ptr),
       (cfg, srq_ptr))
RECORD(rpma_conn_cfg_get_timeout, (const struct rpma_conn_cfg *cfg, int *timeout_ms),
       (cfg, timeout_ms))
RECORD(rpma_conn_cfg_new, (struct rpma_conn_cfg * *cfg_ptr), (cfg_ptr))
RECORD(rpma_conn_cfg_set_compl_channel, (struct rpma_conn_cfg * cfg, bool shared), (cfg, shared))
RECORD(rpma_conn_cfg_set_cq_size, (struct rpma_conn_cfg * cfg, uint32_t cq_size), (cfg, cq_size))
RECORD(rpma_conn_cfg_set_rcq_size, (struct rpma_conn_cfg * cfg, uint32_t rcq_size), (cfg, rcq_size))
RECORD(rpma_conn_cfg_set_rq_size, (struct rpma_conn_cfg * cfg, uint32_t rq_size), (cfg, rq_size))
RECORD(rpma_conn_cfg_set_sq_size, (struct rpma_conn_cfg * cfg, uint32_t sq_size), (cfg, sq_size))
RECORD(rpma_conn_cfg_set_srq, (struct rpma_conn_cfg * cfg, struct rpma_srq *srq), (cfg, srq))
RECORD(rpma_conn_cfg_set_timeout, (struct rpma_conn_cfg * cfg, int timeout_ms), (cfg, timeout_ms))
RECORD(rpma_conn_delete, (struct rpma_conn * *conn_ptr), (conn_ptr))
RECORD(rpma_conn_disconnect, (struct rpma_conn * conn), (conn))
RECORD(rpma_conn_get_compl_fd, (const struct rpma_conn *conn, int *fd), (conn, fd))
RECORD(rpma_conn_get_cq, (const struct rpma_conn *conn, struct rpma_cq **cq_ptr), (conn, cq_ptr))
RECORD(rpma_conn_get_event_fd, (const struct rpma_conn *conn, int *fd), (conn, fd))
RECORD(rpma_conn_get_private_data,
       (const struct rpma_conn *conn, struct rpma_conn_private_data *pdata), (conn, pdata))
RECORD(rpma_conn_get_qp_num, (const struct rpma_conn *conn, uint32_t *qp_num), (conn, qp_num))
RECORD(rpma_conn_get_rcq, (const struct rpma_conn *conn, struct rpma_cq **rcq_ptr), (conn, rcq_ptr))
RECORD(rpma_conn_next_event, (struct rpma_conn * conn, enum rpma_conn_event *event), (conn, event))
RECORD(rpma_conn_req_connect,
       (struct rpma_conn_req * *req_ptr, const struct rpma_conn_private_data *pdata,
	struct rpma_conn **conn_ptr),
       (req_ptr, pdata, conn_ptr))
RECORD(rpma_conn_req_delete, (struct rpma_conn_req * *req_ptr), (req_ptr))
RECORD(rpma_conn_req_get_private_data,
       (const struct rpma_conn_req *req, struct rpma_conn_private_data *pdata), (req, pdata))
RECORD(rpma_conn_req_new,
       (struct rpma_peer * peer, const char *addr, const char *port,
	const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr),
       (peer, addr, port, cfg, req_ptr))
RECORD(rpma_conn_req_recv,
       (struct rpma_conn_req * req, struct rpma_mr_local *dst, size_t offset, size_t len,
	const void *op_context),
       (req, dst, offset, len, op_context))
RECORD(rpma_conn_wait, (struct rpma_conn * conn, int flags, struct rpma_cq **cq, bool *is_rcq),
       (conn, flags, cq, is_rcq))
RECORD(rpma_cq_get_fd, (const struct rpma_cq *cq, int *fd), (cq, fd))
RECORD(rpma_cq_get_wc,
       (struct rpma_cq * cq, int num_entries, struct ibv_wc *wc, int *num_entries_got),
       (cq, num_entries, wc, num_entries_got))
RECORD(rpma_cq_wait, (struct rpma_cq * cq), (cq))
RECORD(rpma_ep_get_fd, (const struct rpma_ep *ep, int *fd), (ep, fd))
RECORD(rpma_ep_listen,
       (struct rpma_peer * peer, const char *addr, const char *port, struct rpma_ep **ep_ptr),
       (peer, addr, port, ep_ptr))
RECORD(rpma_ep_next_conn_req,
       (struct rpma_ep * ep, const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr),
       (ep, cfg, req_ptr))
RECORD(rpma_ep_shutdown, (struct rpma_ep * *ep_ptr), (ep_ptr))
RECORD(rpma_flush,
       (struct rpma_conn * conn, struct rpma_mr_remote *dst, size_t dst_offset, size_t len,
	enum rpma_flush_type type, int flags, const void *op_context),
       (conn, dst, dst_offset, len, type, flags, op_context))
RECORD(rpma_log_get_threshold, (enum rpma_log_threshold threshold, enum rpma_log_level *level),
       (threshold, level))
RECORD(rpma_log_set_function, (rpma_log_function * log_function), (log_function))
RECORD(rpma_log_set_threshold, (enum rpma_log_threshold threshold, enum rpma_log_level level),
       (threshold, level))
RECORD(rpma_mr_advise,
       (struct rpma_mr_local * mr, size_t offset, size_t len, int advice, uint32_t flags),
       (mr, offset, len, advice, flags))
RECORD(rpma_mr_dereg, (struct rpma_mr_local * *mr_ptr), (mr_ptr))
RECORD(rpma_mr_get_descriptor, (const struct rpma_mr_local *mr, void *desc), (mr, desc))
RECORD(rpma_mr_get_descriptor_size, (const struct rpma_mr_local *mr, size_t *desc_size),
       (mr, desc_size))
RECORD(rpma_mr_get_ptr, (const struct rpma_mr_local *mr, void **ptr), (mr, ptr))
RECORD(rpma_mr_get_size, (const struct rpma_mr_local *mr, size_t *size), (mr, size))
RECORD(rpma_mr_reg,
       (struct rpma_peer * peer, void *ptr, size_t size, int usage, struct rpma_mr_local **mr_ptr),
       (peer, ptr, size, usage, mr_ptr))
RECORD(rpma_mr_reg_for_windows,
       (struct rpma_peer * peer, void *ptr, size_t size, int usage, struct rpma_mr_local **mr_ptr),
       (peer, ptr, size, usage, mr_ptr))
RECORD(rpma_mw_new, (struct rpma_peer * peer, struct rpma_mw **mw_ptr), (peer, mw_ptr))
RECORD(rpma_mw_delete, (struct rpma_mw * *mw_ptr), (mw_ptr))
RECORD(rpma_mw_bind,
       (struct rpma_conn * conn, struct rpma_mw *mw, const struct rpma_mr_local *mr, size_t offset,
	size_t len, int usage, int flags, const void *op_context),
       (conn, mw, mr, offset, len, usage, flags, op_context))
RECORD(rpma_conn_req_bind_mw,
       (struct rpma_conn_req * req, struct rpma_mw *mw, const struct rpma_mr_local *mr,
	size_t offset, size_t len, int usage),
       (req, mw, mr, offset, len, usage))
RECORD(rpma_mw_get_descriptor_size, (const struct rpma_mw *mw, size_t *desc_size), (mw, desc_size))
RECORD(rpma_mw_get_descriptor, (const struct rpma_mw *mw, void *desc), (mw, desc))
RECORD(rpma_utils_ibv_context_is_mw_type2_capable, (struct ibv_context * ibv_ctx, int *is_capable),
       (ibv_ctx, is_capable))
RECORD(rpma_mr_remote_delete, (struct rpma_mr_remote * *mr_ptr), (mr_ptr))
RECORD(rpma_mr_remote_from_descriptor,
       (const void *desc, size_t desc_size, struct rpma_mr_remote **mr_ptr),
       (desc, desc_size, mr_ptr))
RECORD(rpma_mr_remote_get_flush_type, (const struct rpma_mr_remote *mr, int *flush_type),
       (mr, flush_type))
RECORD(rpma_mr_remote_get_size, (const struct rpma_mr_remote *mr, size_t *size), (mr, size))
RECORD(rpma_peer_cfg_delete, (struct rpma_peer_cfg * *pcfg_ptr), (pcfg_ptr))
RECORD(rpma_peer_cfg_from_descriptor,
       (const void *desc, size_t desc_size, struct rpma_peer_cfg **pcfg_ptr),
       (desc, desc_size, pcfg_ptr))
RECORD(rpma_peer_cfg_get_descriptor, (const struct rpma_peer_cfg *pcfg, void *desc), (pcfg, desc))
RECORD(rpma_peer_cfg_get_descriptor_size, (const struct rpma_peer_cfg *pcfg, size_t *desc_size),
       (pcfg, desc_size))
RECORD(rpma_peer_cfg_get_direct_write_to_pmem, (const struct rpma_peer_cfg *pcfg, bool *supported),
       (pcfg, supported))
RECORD(rpma_peer_cfg_new, (struct rpma_peer_cfg * *pcfg_ptr), (pcfg_ptr))
RECORD(rpma_peer_cfg_set_direct_write_to_pmem, (struct rpma_peer_cfg * pcfg, bool supported),
       (pcfg, supported))
RECORD(rpma_peer_delete, (struct rpma_peer * *peer_ptr), (peer_ptr))
RECORD(rpma_peer_new, (struct ibv_context * ibv_ctx, struct rpma_peer **peer_ptr),
       (ibv_ctx, peer_ptr))
RECORD(rpma_read,
       (struct rpma_conn * conn, struct rpma_mr_local *dst, size_t dst_offset,
	const struct rpma_mr_remote *src, size_t src_offset, size_t len, int flags,
	const void *op_context),
       (conn, dst, dst_offset, src, src_offset, len, flags, op_context))
RECORD(rpma_recv,
       (struct rpma_conn * conn, struct rpma_mr_local *dst, size_t offset, size_t len,
	const void *op_context),
       (conn, dst, offset, len, op_context))
RECORD(rpma_send,
       (struct rpma_conn * conn, const struct rpma_mr_local *src, size_t offset, size_t len,
	int flags, const void *op_context),
       (conn, src, offset, len, flags, op_context))
RECORD(rpma_send_with_imm,
       (struct rpma_conn * conn, const struct rpma_mr_local *src, size_t offset, size_t len,
	int flags, uint32_t imm, const void *op_context),
       (conn, src, offset, len, flags, imm, op_context))
RECORD(rpma_srq_cfg_delete, (struct rpma_srq_cfg * *cfg_ptr), (cfg_ptr))
RECORD(rpma_srq_cfg_get_rcq_size, (const struct rpma_srq_cfg *cfg, uint32_t *rcq_size),
       (cfg, rcq_size))
RECORD(rpma_srq_cfg_get_rq_size, (const struct rpma_srq_cfg *cfg, uint32_t *rq_size),
       (cfg, rq_size))
RECORD(rpma_srq_cfg_new, (struct rpma_srq_cfg * *cfg_ptr), (cfg_ptr))
RECORD(rpma_srq_cfg_set_rcq_size, (struct rpma_srq_cfg * cfg, uint32_t rcq_size), (cfg, rcq_size))
RECORD(rpma_srq_cfg_set_rq_size, (struct rpma_srq_cfg * cfg, uint32_t rq_size), (cfg, rq_size))
RECORD(rpma_srq_delete, (struct rpma_srq * *srq_ptr), (srq_ptr))
RECORD(rpma_srq_get_rcq, (const struct rpma_srq *srq, struct rpma_cq **rcq_ptr), (srq, rcq_ptr))
RECORD(rpma_srq_new, (struct rpma_peer * peer, struct rpma_srq_cfg *cfg, struct rpma_srq **srq_ptr),
       (peer, cfg, srq_ptr))
RECORD(rpma_srq_recv,
       (struct rpma_srq * srq, struct rpma_mr_local *dst, size_t offset, size_t len,
	const void *op_context),
       (srq, dst, offset, len, op_context))
RECORD(rpma_utils_get_ibv_context,
       (const char *addr, enum rpma_util_ibv_context_type type, struct ibv_context **ibv_ctx_ptr),
       (addr, type, ibv_ctx_ptr))
RECORD(rpma_utils_ibv_context_is_odp_capable, (struct ibv_context * ibv_ctx, int *is_odp_capable),
       (ibv_ctx, is_odp_capable))
RECORD(rpma_write,
       (struct rpma_conn * conn, struct rpma_mr_remote *dst, size_t dst_offset,
	const struct rpma_mr_local *src, size_t src_offset, size_t len, int flags,
	const void *op_context),
       (conn, dst, dst_offset, src, src_offset, len, flags, op_context))
RECORD(rpma_write_atomic,
       (struct rpma_conn * conn, struct rpma_mr_remote *dst, size_t dst_offset,
	const struct rpma_mr_local *src, size_t src_offset, int flags, const void *op_context),
       (conn, dst, dst_offset, src, src_offset, flags, op_context))
RECORD(rpma_write_with_imm,
       (struct rpma_conn * conn, struct rpma_mr_remote *dst, size_t dst_offset,
	const struct rpma_mr_local *src, size_t src_offset, size_t len, int flags, uint32_t imm,
	const void *op_context),
       (conn, dst, dst_offset, src, src_offset, len, flags, imm, op_context))

namespace {
const unit::WriteAtExit write_at_exit;
}
