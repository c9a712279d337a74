// SPDX-License-Identifier: BSD-3-Clause
// Every rdma-core entry point the fake provides, exported or reached through
// a function table, named as the library calls it. One list feeds both the
// enum used to inject failures and the names used in messages.
#ifndef RPMA_TESTS_UNIT_FAKE_CALLS_HH
#define RPMA_TESTS_UNIT_FAKE_CALLS_HH

#define FAKE_CALLS(X)                 \
	X(ibv_query_device_ex)        \
	X(ibv_alloc_pd)               \
	X(ibv_dealloc_pd)             \
	X(ibv_reg_mr)                 \
	X(ibv_dereg_mr)               \
	X(ibv_advise_mr)              \
	X(ibv_alloc_mw)               \
	X(ibv_dealloc_mw)             \
	X(ibv_modify_qp)              \
	X(ibv_create_comp_channel)    \
	X(ibv_destroy_comp_channel)   \
	X(ibv_create_cq)              \
	X(ibv_destroy_cq)             \
	X(ibv_req_notify_cq)          \
	X(ibv_get_cq_event)           \
	X(ibv_ack_cq_events)          \
	X(ibv_poll_cq)                \
	X(ibv_create_srq)             \
	X(ibv_destroy_srq)            \
	X(ibv_post_send)              \
	X(ibv_post_recv)              \
	X(ibv_post_srq_recv)          \
	X(ibv_qp_to_qp_ex)            \
	X(ibv_wr_start)               \
	X(ibv_wr_complete)            \
	X(ibv_wr_abort)               \
	X(rdma_getaddrinfo)           \
	X(rdma_freeaddrinfo)          \
	X(rdma_create_event_channel)  \
	X(rdma_destroy_event_channel) \
	X(rdma_create_id)             \
	X(rdma_destroy_id)            \
	X(rdma_bind_addr)             \
	X(rdma_resolve_addr)          \
	X(rdma_resolve_route)         \
	X(rdma_listen)                \
	X(rdma_get_cm_event)          \
	X(rdma_ack_cm_event)          \
	X(rdma_connect)               \
	X(rdma_accept)                \
	X(rdma_reject)                \
	X(rdma_disconnect)            \
	X(rdma_migrate_id)            \
	X(rdma_create_qp_ex)          \
	X(rdma_init_qp_attr)          \
	X(rdma_destroy_qp)

namespace fake {

#define FAKE_ENUM_ENTRY(name) name,
enum class Call { FAKE_CALLS(FAKE_ENUM_ENTRY) };
#undef FAKE_ENUM_ENTRY

const char *name(Call call) noexcept;

} // namespace fake

#endif
