// SPDX-License-Identifier: BSD-3-Clause
// A test double of libibverbs and librdmacm: one device, objects that live in
// memory, a record of what the library asked for, and failures on demand.
// This is the part the tests see; the rdma-core symbols it backs are defined
// in the other files of this directory.
#ifndef RPMA_TESTS_UNIT_FAKE_FAKE_HH
#define RPMA_TESTS_UNIT_FAKE_FAKE_HH

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <vector>

#include "calls.hh"

namespace fake {

// rdma-core 44's headers predate this capability bit; the value is the
// kernel's (include/uapi/rdma/ib_user_verbs.h).
inline constexpr uint64_t DEVICE_CAP_ATOMIC_WRITE = 1ULL << 40;
inline constexpr uint64_t DEVICE_CAP_FLUSH = (1ULL << 38) | (1ULL << 39); // global, persistent

// Forgets every object, record, queued item and armed failure, and brings
// the device back to an RoCE one with no optional capability.
void reset();

// --- the device ---

// The one device context: what rdma_resolve_addr/rdma_bind_addr attach to
// CM ids and what a test hands to rpma_peer_new.
ibv_context *context();
// What ibv_query_device_ex reports (zeroed by reset()).
ibv_device_attr_ex &device_attr();
void set_transport(ibv_transport_type transport);
// Whether rdma_bind_addr attaches the device to the id (false: a wildcard
// address, which leaves id->verbs NULL).
void set_bind_attaches_device(bool attaches);
// Whether the device implements ibv_advise_mr (false: the inline function
// reports EOPNOTSUPP without reaching the fake).
void set_advise_mr_supported(bool supported);

// Whether registrations protect their pages from fork() the way libibverbs
// does after ibv_fork_init() (RDMAV_FORK_SAFE=1) on a kernel that does not
// copy DMA pages at fork: ibv_reg_mr marks every page the range touches
// MADV_DONTFORK (a forked child has none of them), ibv_dereg_mr marks them
// MADV_DOFORK again. Off after reset().
void set_fork_protection(bool on);

// --- failures ---

// The nth call of `call` from now on fails with errno `err`, in the way that
// function reports failures: NULL or -1 with errno set, the errno value
// returned, or -err from ibv_poll_cq. For ibv_qp_to_qp_ex it returns NULL.
void fail(Call call, int err, unsigned nth = 1);
// The next ibv_poll_cq returns `n` whatever is queued (e.g. more than asked).
void next_poll_returns(int n);

// The keys the next successful ibv_reg_mr gives its MR.
void next_mr_keys(uint32_t lkey, uint32_t rkey);

// Whether the device implements ibv_alloc_mw/ibv_dealloc_mw (false: the
// inline functions report EOPNOTSUPP, as a provider without windows does).
// Off after reset(); the capability bits are device_attr()'s.
void set_mw_supported(bool supported);

// --- things to hand to the library ---

void queue_cm_event(rdma_cm_event_type type, std::vector<uint8_t> private_data = {},
		    int status = 0);
// A connection request from `ip` (IPv4 or IPv6, port 4791): its id's peer
// address (rdma_get_peer_addr).
void queue_conn_req_from(const char *ip);
// Makes the CM event channel of `fd` readable (poll), as the kernel does
// when it queues an event; rdma_get_cm_event on a non-blocking channel takes
// it back. Channels are non-blocking until a test clears O_NONBLOCK.
void signal_channel(int fd);
// ibv_poll_cq on `cq` returns these in order.
void queue_wc(ibv_cq *cq, const ibv_wc &wc);
// ibv_get_cq_event on the channel of `cq` returns `cq`.
void queue_cq_event(ibv_cq *cq);

// --- what the library did ---

struct Sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

// A deep copy of one send work request, posted or built on the ibv_qp_ex.
struct SendWr {
	ibv_qp *qp;
	bool extended; // built with ibv_wr_* and committed by ibv_wr_complete
	uint64_t wr_id;
	ibv_wr_opcode opcode;
	unsigned send_flags;
	uint32_t imm_data; // as posted: network byte order
	uint64_t remote_addr;
	uint32_t rkey;
	std::vector<Sge> sges;
	// The bytes of an inline request, or the payload of an atomic write,
	// copied when posted (the library may reuse its buffer afterwards).
	std::vector<uint8_t> data;
	size_t chain_length; // work requests in the list this one headed
	// a native flush (ibv_wr_flush): the range's length, type and level
	size_t flush_len;
	uint8_t flush_type;
	uint8_t flush_level;
	// a bind (IBV_WR_BIND_MW): the window, its new key, the binding
	ibv_mw *bind_mw;
	uint32_t bind_rkey;
	ibv_mw_bind_info bind_info;
};

// An ibv_modify_qp call: the QP, the attributes and the mask given.
struct QpModify {
	ibv_qp *qp;
	ibv_qp_attr attr;
	int mask;
};

// What rdma_init_qp_attr reports for RTR and RTS (the peer's asks), and the
// mask bits beyond the standard ones it adds (as old kernels did on RoCE).
struct InitQpAttr {
	uint8_t max_dest_rd_atomic = 16;
	uint8_t max_rd_atomic = 16;
	int extra_mask = 0;
};

struct RecvWr {
	ibv_qp *qp;   // NULL when posted to an SRQ
	ibv_srq *srq; // NULL when posted to a QP
	uint64_t wr_id;
	std::vector<Sge> sges;
	size_t chain_length;
};

struct MrReg {
	ibv_mr *mr; // NULL when the registration failed
	ibv_pd *pd;
	void *addr;
	size_t length;
	unsigned access;
};

struct CqCreation {
	ibv_cq *cq; // NULL when the creation failed
	int cqe;
	void *cq_context;
	ibv_comp_channel *channel;
	int comp_vector;
};

struct QpCreation {
	rdma_cm_id *id;
	ibv_qp *qp; // NULL when the creation failed
	ibv_qp_init_attr_ex attr;
};

struct SrqCreation {
	ibv_srq *srq; // NULL when the creation failed
	ibv_pd *pd;
	ibv_srq_init_attr attr;
};

// What rdma_connect or rdma_accept was given.
struct ConnParam {
	Call call;
	rdma_cm_id *id;
	bool given;            // the parameter pointer was not NULL
	rdma_conn_param param; // private_data points nowhere after the call
	std::vector<uint8_t> private_data;
	bool had_qp; // id->qp was set during the call
};

struct AddrInfoQuery {
	std::string node;    // "(null)" for NULL
	std::string service; // "(null)" for NULL
	bool has_hints;
	rdma_addrinfo hints;
};

// A call on a CM id. value: the timeout of rdma_resolve_*, the backlog of
// rdma_listen, the port space of rdma_create_id; data: the private data of
// rdma_reject; addr: the address given to rdma_bind_addr/rdma_resolve_addr
// (the destination); channel: of rdma_create_id/rdma_migrate_id.
struct IdCall {
	Call call;
	rdma_cm_id *id;
	int value;
	std::vector<uint8_t> data;
	bool has_addr;
	sockaddr_storage addr;
	bool has_src_addr;
	rdma_event_channel *channel;
};

// A call on a CQ. value: solicited_only of ibv_req_notify_cq, nevents of
// ibv_ack_cq_events, num_entries of ibv_poll_cq.
struct CqCall {
	Call call;
	ibv_cq *cq;
	int value;
};

struct Advice {
	ibv_pd *pd;
	int advice;
	uint32_t flags;
	std::vector<ibv_sge> sges;
};

const std::vector<Call> &calls(); // every call, in order, failed ones too
unsigned count(Call call);
// the rdma_get_cm_event calls made while their channel was blocking
unsigned blocking_cm_event_gets();
// Position of the first `call` in calls(), or -1.
int first_index(Call call);
const std::vector<SendWr> &sends();
const std::vector<RecvWr> &recvs();
const std::vector<MrReg> &registrations();
const std::vector<CqCreation> &cqs();
const std::vector<QpCreation> &qps();
const std::vector<SrqCreation> &srqs();
const std::vector<ConnParam> &conn_params();
const std::vector<AddrInfoQuery> &addrinfo_queries();
const std::vector<IdCall> &id_calls();
const std::vector<CqCall> &cq_calls();
const std::vector<Advice> &advices();
const std::vector<QpModify> &qp_modifies();
// What rdma_init_qp_attr reports (reset() restores the defaults).
InitQpAttr &init_qp_attr();
// The state the fake's QP is in (INIT from rdma_create_qp_ex on).
ibv_qp_state qp_state(const ibv_qp *qp);
const std::vector<ibv_comp_channel *> &comp_channels();
const std::vector<rdma_event_channel *> &event_channels();
// The id calls of one kind, in order.
std::vector<IdCall> id_calls_of(Call call);
std::vector<CqCall> cq_calls_of(Call call);

// Events got with ibv_get_cq_event on `cq` and not acknowledged yet.
unsigned unacked_cq_events(ibv_cq *cq);

// --- invariants ---

// The objects the library has not released, e.g. "2 ibv_cq, 1 rdma_cm_id";
// empty when there is none.
std::string live_objects();
// Things real rdma-core would not survive (use of a freed object, destroying
// an id with unacked events, ...); empty when all was well.
const std::vector<std::string> &misuses();

} // namespace fake

#endif
