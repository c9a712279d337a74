/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librpma.h -- the public C interface of rpma, a maintained implementation of
 * the librpma 1.3 API (Remote Persistent Memory Access over RDMA).
 *
 * Every declaration, constant and enum value here is ABI-compatible with
 * upstream librpma 1.x: a program built against upstream's header runs
 * against this library unchanged (soname librpma.so.0, version node
 * LIBRPMA_1.0). Its last section, the one beyond upstream, declares this
 * library's extensions (version node LIBRPMA_EXT_1.0).
 *
 * Conventions shared by every function:
 * - 0 means success; failures are negative RPMA_E_* codes;
 * - an out-parameter is left untouched when the call fails, unless the
 *   function's manual page says otherwise;
 * - every delete and dereg call accepts a pointer to NULL as a no-op and
 *   sets the caller's pointer to NULL, even when it reports an error.
 */
/* laid out by hand: 80 columns, the tables of macros aligned */
/* clang-format off */

#ifndef LIBRPMA_H
#define LIBRPMA_H 1

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* opaque objects */
struct rpma_peer;
struct rpma_peer_cfg;
struct rpma_conn_cfg;
struct rpma_conn;
struct rpma_conn_req;
struct rpma_ep;
struct rpma_mr_local;
struct rpma_mr_remote;
struct rpma_cq;
struct rpma_srq;
struct rpma_srq_cfg;

/* reserved; no function interprets it */
#define RPMA_W_WAIT_FOR_COMPLETION	(1)

/* error codes */
#define RPMA_E_UNKNOWN		(-100000) /* unknown error */
#define RPMA_E_NOSUPP		(-100001) /* not supported */
#define RPMA_E_PROVIDER		(-100002) /* error from libibverbs/librdmacm */
#define RPMA_E_NOMEM		(-100003) /* out of memory */
#define RPMA_E_INVAL		(-100004) /* invalid argument */
#define RPMA_E_NO_COMPLETION	(-100005) /* no completion available */
#define RPMA_E_NO_EVENT		(-100006) /* no event available */
#define RPMA_E_AGAIN		(-100007) /* temporary error, try again */
#define RPMA_E_SHARED_CHANNEL	(-100008) /* completion channel is shared */
#define RPMA_E_NOT_SHARED_CHNL	(-100009) /* completion channel not shared */

#define RPMA_DEFAULT_TIMEOUT_MS	1000

/* memory region usages, combined with | */
#define RPMA_MR_USAGE_READ_SRC			(1 << 0)
#define RPMA_MR_USAGE_READ_DST			(1 << 1)
#define RPMA_MR_USAGE_WRITE_SRC			(1 << 2)
#define RPMA_MR_USAGE_WRITE_DST			(1 << 3)
#define RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY	(1 << 4)
#define RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT	(1 << 5)
#define RPMA_MR_USAGE_SEND			(1 << 6)
#define RPMA_MR_USAGE_RECV			(1 << 7)

/* completion flags of the data-path calls */
#define RPMA_F_COMPLETION_ON_ERROR	(1 << 0)
#define RPMA_F_COMPLETION_ALWAYS	(1 << 1 | RPMA_F_COMPLETION_ON_ERROR)

#define RPMA_ATOMIC_WRITE_ALIGNMENT	8

#define RPMA_LOG_USE_DEFAULT_FUNCTION	(NULL)

enum rpma_util_ibv_context_type {
	RPMA_UTIL_IBV_CONTEXT_LOCAL,	/* the device that owns addr */
	RPMA_UTIL_IBV_CONTEXT_REMOTE	/* the device that reaches addr */
};

enum rpma_conn_event {
	RPMA_CONN_UNDEFINED = -1,
	RPMA_CONN_ESTABLISHED,
	RPMA_CONN_CLOSED,
	RPMA_CONN_LOST,
	RPMA_CONN_REJECTED,
	RPMA_CONN_UNREACHABLE
};

enum rpma_flush_type {
	RPMA_FLUSH_TYPE_PERSISTENT,
	RPMA_FLUSH_TYPE_VISIBILITY
};

enum rpma_log_level {
	RPMA_LOG_DISABLED = -1,
	RPMA_LOG_LEVEL_FATAL,
	RPMA_LOG_LEVEL_ERROR,
	RPMA_LOG_LEVEL_WARNING,
	RPMA_LOG_LEVEL_NOTICE,
	RPMA_LOG_LEVEL_INFO,
	RPMA_LOG_LEVEL_DEBUG
};

enum rpma_log_threshold {
	RPMA_LOG_THRESHOLD,	/* gates every message */
	RPMA_LOG_THRESHOLD_AUX,	/* the default function's stderr copy */
	RPMA_LOG_THRESHOLD_MAX
};

/* private data exchanged while connecting; len is at most 255 */
struct rpma_conn_private_data {
	void *ptr;
	uint8_t len;
};

/* a log sink; file_name may be NULL, then line_no and function_name are meaningless */
typedef void rpma_log_function(enum rpma_log_level level,
	const char *file_name, const int line_no, const char *function_name,
	const char *message_format, ...);

/* utilities */
int rpma_utils_get_ibv_context(const char *addr,
	enum rpma_util_ibv_context_type type,
	struct ibv_context **ibv_ctx_ptr);
int rpma_utils_ibv_context_is_odp_capable(struct ibv_context *ibv_ctx,
	int *is_odp_capable);
const char *rpma_utils_conn_event_2str(enum rpma_conn_event conn_event);
const char *rpma_err_2str(int ret);

/* logging */
int rpma_log_set_threshold(enum rpma_log_threshold threshold,
	enum rpma_log_level level);
int rpma_log_get_threshold(enum rpma_log_threshold threshold,
	enum rpma_log_level *level);
int rpma_log_set_function(rpma_log_function *log_function);

/* peer configuration */
int rpma_peer_cfg_new(struct rpma_peer_cfg **pcfg_ptr);
int rpma_peer_cfg_delete(struct rpma_peer_cfg **pcfg_ptr);
int rpma_peer_cfg_set_direct_write_to_pmem(struct rpma_peer_cfg *pcfg,
	bool supported);
int rpma_peer_cfg_get_direct_write_to_pmem(const struct rpma_peer_cfg *pcfg,
	bool *supported);
int rpma_peer_cfg_get_descriptor(const struct rpma_peer_cfg *pcfg,
	void *desc);
int rpma_peer_cfg_get_descriptor_size(const struct rpma_peer_cfg *pcfg,
	size_t *desc_size);
int rpma_peer_cfg_from_descriptor(const void *desc, size_t desc_size,
	struct rpma_peer_cfg **pcfg_ptr);

/* peer */
int rpma_peer_new(struct ibv_context *ibv_ctx, struct rpma_peer **peer_ptr);
int rpma_peer_delete(struct rpma_peer **peer_ptr);

/* memory regions */
int rpma_mr_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage,
	struct rpma_mr_local **mr_ptr);
int rpma_mr_dereg(struct rpma_mr_local **mr_ptr);
int rpma_mr_get_descriptor(const struct rpma_mr_local *mr, void *desc);
int rpma_mr_get_descriptor_size(const struct rpma_mr_local *mr,
	size_t *desc_size);
int rpma_mr_get_ptr(const struct rpma_mr_local *mr, void **ptr);
int rpma_mr_get_size(const struct rpma_mr_local *mr, size_t *size);
int rpma_mr_remote_from_descriptor(const void *desc, size_t desc_size,
	struct rpma_mr_remote **mr_ptr);
int rpma_mr_remote_get_size(const struct rpma_mr_remote *mr, size_t *size);
int rpma_mr_remote_get_flush_type(const struct rpma_mr_remote *mr,
	int *flush_type);
int rpma_mr_remote_delete(struct rpma_mr_remote **mr_ptr);
int rpma_mr_advise(struct rpma_mr_local *mr, size_t offset, size_t len,
	int advice, uint32_t flags);

/* connection configuration */
int rpma_conn_cfg_new(struct rpma_conn_cfg **cfg_ptr);
int rpma_conn_cfg_delete(struct rpma_conn_cfg **cfg_ptr);
int rpma_conn_cfg_set_timeout(struct rpma_conn_cfg *cfg, int timeout_ms);
int rpma_conn_cfg_get_timeout(const struct rpma_conn_cfg *cfg,
	int *timeout_ms);
int rpma_conn_cfg_set_cq_size(struct rpma_conn_cfg *cfg, uint32_t cq_size);
int rpma_conn_cfg_get_cq_size(const struct rpma_conn_cfg *cfg,
	uint32_t *cq_size);
int rpma_conn_cfg_set_rcq_size(struct rpma_conn_cfg *cfg, uint32_t rcq_size);
int rpma_conn_cfg_get_rcq_size(const struct rpma_conn_cfg *cfg,
	uint32_t *rcq_size);
int rpma_conn_cfg_set_sq_size(struct rpma_conn_cfg *cfg, uint32_t sq_size);
int rpma_conn_cfg_get_sq_size(const struct rpma_conn_cfg *cfg,
	uint32_t *sq_size);
int rpma_conn_cfg_set_rq_size(struct rpma_conn_cfg *cfg, uint32_t rq_size);
int rpma_conn_cfg_get_rq_size(const struct rpma_conn_cfg *cfg,
	uint32_t *rq_size);
int rpma_conn_cfg_set_compl_channel(struct rpma_conn_cfg *cfg, bool shared);
int rpma_conn_cfg_get_compl_channel(const struct rpma_conn_cfg *cfg,
	bool *shared);
int rpma_conn_cfg_set_srq(struct rpma_conn_cfg *cfg, struct rpma_srq *srq);
int rpma_conn_cfg_get_srq(const struct rpma_conn_cfg *cfg,
	struct rpma_srq **srq_ptr);

/* connection requests */
int rpma_conn_req_new(struct rpma_peer *peer, const char *addr,
	const char *port, const struct rpma_conn_cfg *cfg,
	struct rpma_conn_req **req_ptr);
int rpma_conn_req_delete(struct rpma_conn_req **req_ptr);
int rpma_conn_req_connect(struct rpma_conn_req **req_ptr,
	const struct rpma_conn_private_data *pdata,
	struct rpma_conn **conn_ptr);
int rpma_conn_req_recv(struct rpma_conn_req *req, struct rpma_mr_local *dst,
	size_t offset, size_t len, const void *op_context);
int rpma_conn_req_get_private_data(const struct rpma_conn_req *req,
	struct rpma_conn_private_data *pdata);

/* endpoint */
int rpma_ep_listen(struct rpma_peer *peer, const char *addr,
	const char *port, struct rpma_ep **ep_ptr);
int rpma_ep_shutdown(struct rpma_ep **ep_ptr);
int rpma_ep_get_fd(const struct rpma_ep *ep, int *fd);
int rpma_ep_next_conn_req(struct rpma_ep *ep,
	const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr);

/* connection */
int rpma_conn_get_event_fd(const struct rpma_conn *conn, int *fd);
int rpma_conn_next_event(struct rpma_conn *conn,
	enum rpma_conn_event *event);
int rpma_conn_get_private_data(const struct rpma_conn *conn,
	struct rpma_conn_private_data *pdata);
int rpma_conn_apply_remote_peer_cfg(struct rpma_conn *conn,
	const struct rpma_peer_cfg *pcfg);
int rpma_conn_get_qp_num(const struct rpma_conn *conn, uint32_t *qp_num);
int rpma_conn_get_cq(const struct rpma_conn *conn, struct rpma_cq **cq_ptr);
int rpma_conn_get_rcq(const struct rpma_conn *conn,
	struct rpma_cq **rcq_ptr);
int rpma_conn_get_compl_fd(const struct rpma_conn *conn, int *fd);
int rpma_conn_wait(struct rpma_conn *conn, int flags, struct rpma_cq **cq,
	bool *is_rcq);
int rpma_conn_disconnect(struct rpma_conn *conn);
int rpma_conn_delete(struct rpma_conn **conn_ptr);

/* data path */
int rpma_read(struct rpma_conn *conn,
	struct rpma_mr_local *dst, size_t dst_offset,
	const struct rpma_mr_remote *src, size_t src_offset,
	size_t len, int flags, const void *op_context);
int rpma_write(struct rpma_conn *conn,
	struct rpma_mr_remote *dst, size_t dst_offset,
	const struct rpma_mr_local *src, size_t src_offset,
	size_t len, int flags, const void *op_context);
int rpma_write_with_imm(struct rpma_conn *conn,
	struct rpma_mr_remote *dst, size_t dst_offset,
	const struct rpma_mr_local *src, size_t src_offset,
	size_t len, int flags, uint32_t imm, const void *op_context);
int rpma_atomic_write(struct rpma_conn *conn,
	struct rpma_mr_remote *dst, size_t dst_offset,
	const char src[8], int flags, const void *op_context);
/*
 * Deprecated: the pre-1.0 name of the 8-byte atomic write, taking the source
 * from a registered local region. Kept for source compatibility; new code
 * calls rpma_atomic_write().
 */
int rpma_write_atomic(struct rpma_conn *conn,
	struct rpma_mr_remote *dst, size_t dst_offset,
	const struct rpma_mr_local *src, size_t src_offset,
	int flags, const void *op_context);
int rpma_flush(struct rpma_conn *conn,
	struct rpma_mr_remote *dst, size_t dst_offset, size_t len,
	enum rpma_flush_type type, int flags, const void *op_context);
int rpma_send(struct rpma_conn *conn,
	const struct rpma_mr_local *src, size_t offset, size_t len,
	int flags, const void *op_context);
int rpma_send_with_imm(struct rpma_conn *conn,
	const struct rpma_mr_local *src, size_t offset, size_t len,
	int flags, uint32_t imm, const void *op_context);
int rpma_recv(struct rpma_conn *conn,
	struct rpma_mr_local *dst, size_t offset, size_t len,
	const void *op_context);

/* completion queues */
int rpma_cq_get_fd(const struct rpma_cq *cq, int *fd);
int rpma_cq_wait(struct rpma_cq *cq);
int rpma_cq_get_wc(struct rpma_cq *cq, int num_entries, struct ibv_wc *wc,
	int *num_entries_got);

/* shared receive queue configuration */
int rpma_srq_cfg_new(struct rpma_srq_cfg **cfg_ptr);
int rpma_srq_cfg_delete(struct rpma_srq_cfg **cfg_ptr);
int rpma_srq_cfg_set_rq_size(struct rpma_srq_cfg *cfg, uint32_t rq_size);
int rpma_srq_cfg_get_rq_size(const struct rpma_srq_cfg *cfg,
	uint32_t *rq_size);
int rpma_srq_cfg_set_rcq_size(struct rpma_srq_cfg *cfg, uint32_t rcq_size);
int rpma_srq_cfg_get_rcq_size(const struct rpma_srq_cfg *cfg,
	uint32_t *rcq_size);

/* shared receive queue */
int rpma_srq_new(struct rpma_peer *peer, struct rpma_srq_cfg *cfg,
	struct rpma_srq **srq_ptr);
int rpma_srq_delete(struct rpma_srq **srq_ptr);
int rpma_srq_recv(struct rpma_srq *srq, struct rpma_mr_local *dst,
	size_t offset, size_t len, const void *op_context);
int rpma_srq_get_rcq(const struct rpma_srq *srq, struct rpma_cq **rcq_ptr);

/*
 * BEYOND UPSTREAM: extensions of this library that upstream librpma 1.3 does
 * not have, exported under their own version node, LIBRPMA_EXT_1.0
 * (docs/compatibility.md, "Extensions beyond upstream"). A program that uses
 * them runs against this library only; everything above is upstream's API.
 */

/*
 * Type 2 memory windows: a window opens a range of a region registered for
 * windows (whose own key opens nothing) to the peer of one connection only,
 * with a key the device honours on that connection's queue pair alone. Its
 * descriptor has rpma_mr_get_descriptor()'s format: the peer takes it with
 * rpma_mr_remote_from_descriptor(), unchanged.
 */
struct rpma_mw;

int rpma_utils_ibv_context_is_mw_type2_capable(struct ibv_context *ibv_ctx,
	int *is_capable);
int rpma_mr_reg_for_windows(struct rpma_peer *peer, void *ptr, size_t size,
	int usage, struct rpma_mr_local **mr_ptr);
int rpma_mw_new(struct rpma_peer *peer, struct rpma_mw **mw_ptr);
int rpma_mw_delete(struct rpma_mw **mw_ptr);
int rpma_mw_bind(struct rpma_conn *conn, struct rpma_mw *mw,
	const struct rpma_mr_local *mr, size_t offset, size_t len, int usage,
	int flags, const void *op_context);
int rpma_conn_req_bind_mw(struct rpma_conn_req *req, struct rpma_mw *mw,
	const struct rpma_mr_local *mr, size_t offset, size_t len, int usage);
int rpma_mw_get_descriptor_size(const struct rpma_mw *mw, size_t *desc_size);
int rpma_mw_get_descriptor(const struct rpma_mw *mw, void *desc);

#ifdef __cplusplus
}
#endif

#endif /* LIBRPMA_H */
