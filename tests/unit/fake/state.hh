// SPDX-License-Identifier: BSD-3-Clause
// The fake's insides, shared by the files that implement rdma-core's symbols.
#ifndef RPMA_TESTS_UNIT_FAKE_STATE_HH
#define RPMA_TESTS_UNIT_FAKE_STATE_HH

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fake.hh"

namespace fake::detail {

struct NoExtra {};

// The live objects of one kind. Each is value-initialised (a zeroed C
// struct) and owned here, so reset() frees whatever a test leaked.
template <typename T, typename Extra = NoExtra> class Registry {
public:
	explicit Registry(const char *kind) : kind_(kind) {}

	T *make()
	{
		auto owned = std::make_unique<T>();
		T *raw = owned.get();
		slots_.emplace(raw, Slot{std::move(owned), Extra{}});
		return raw;
	}
	bool has(const T *handle) const { return handle && slots_.count(handle); }
	Extra &extra(const T *handle) { return slots_.at(handle).extra; }
	void drop(const T *handle) { slots_.erase(handle); }
	void clear() { slots_.clear(); }
	size_t size() const { return slots_.size(); }
	const char *kind() const { return kind_; }

	template <typename Pred> size_t count_if(Pred pred) const
	{
		size_t n = 0;
		for (const auto &[handle, slot] : slots_)
			n += pred(*slot.handle, slot.extra) ? 1 : 0;
		return n;
	}
	template <typename Fn> void for_each(Fn fn)
	{
		for (auto &[handle, slot] : slots_)
			fn(*slot.handle, slot.extra);
	}

private:
	struct Slot {
		std::unique_ptr<T> handle;
		Extra extra;
	};
	const char *kind_;
	std::map<const T *, Slot> slots_;
};

struct CqExtra {
	std::deque<ibv_wc> wcs;
	unsigned unacked_events = 0;
};

struct QpExtra {
	rdma_cm_id *id = nullptr;
	ibv_qp_cap cap{};      // as asked for at creation
	bool extended = false; // has an ibv_qp_ex interface
	bool building = false; // between ibv_wr_start and complete/abort
	ibv_qp_state qp_state = IBV_QPS_INIT;
	std::vector<SendWr> batch; // built since ibv_wr_start
};

struct MwExtra {
	ibv_qp *bound_qp = nullptr; // a type 2 window's QP, once a bind was posted
	ibv_mr *bound_mr = nullptr;
};

struct EventExtra {
	std::vector<uint8_t> private_data; // what event->param.conn points at
};

// An event channel's fd: a real eventfd, so that the library may poll it and
// change its flags. Non-blocking, as an empty queue of the fake reads
// (EAGAIN); a test that clears O_NONBLOCK makes it readable itself
// (fake::signal_channel).
struct ChannelExtra {
	ChannelExtra() = default;
	ChannelExtra(ChannelExtra &&other) noexcept : fd(std::exchange(other.fd, -1)) {}
	ChannelExtra(const ChannelExtra &) = delete;
	ChannelExtra &operator=(const ChannelExtra &) = delete;
	ChannelExtra &operator=(ChannelExtra &&) = delete;
	~ChannelExtra();
	int fd = -1;
};

struct AddrInfoExtra {
	sockaddr_storage src{};
	sockaddr_storage dst{};
};

struct State {
	// the device
	ibv_device device{};
	verbs_context vctx{};
	decltype(verbs_context::advise_mr) advise_mr = nullptr; // the fake's, when supported
	ibv_device_attr_ex attr{};
	bool bind_attaches_device = true;
	bool fork_protection = false;

	// failures armed: call -> (the call count that fails -> errno)
	std::map<Call, std::map<unsigned, int>> failures;
	std::map<Call, unsigned> counts;
	bool poll_override = false;
	int poll_result = 0;
	bool mw_supported = false;
	InitQpAttr init_qp_attr;
	bool keys_override = false;
	uint32_t next_lkey = 0;
	uint32_t next_rkey = 0;

	// objects
	Registry<ibv_pd> pds{"ibv_pd"};
	Registry<ibv_mr> mrs{"ibv_mr"};
	Registry<ibv_mw, MwExtra> mws{"ibv_mw"};
	Registry<ibv_comp_channel> comp_channels{"ibv_comp_channel"};
	Registry<ibv_cq, CqExtra> cqs{"ibv_cq"};
	Registry<ibv_srq> srqs{"ibv_srq"};
	Registry<ibv_qp_ex, QpExtra> qps{"ibv_qp"};
	Registry<rdma_event_channel, ChannelExtra> event_channels{"rdma_event_channel"};
	Registry<rdma_cm_id> ids{"rdma_cm_id"};
	Registry<rdma_addrinfo, AddrInfoExtra> addrinfos{"rdma_addrinfo"};
	Registry<rdma_cm_event, EventExtra> events{"rdma_cm_event (unacked)"};

	// queued input
	struct CmEventSpec {
		rdma_cm_event_type type;
		std::vector<uint8_t> private_data;
		int status;
		sockaddr_storage src{}; // a request's peer address
	};
	std::deque<CmEventSpec> cm_events;
	unsigned blocking_cm_event_gets = 0;
	std::deque<ibv_cq *> cq_events;
	std::vector<std::vector<uint8_t>> acked_private_data;

	// records
	std::vector<Call> calls;
	std::vector<SendWr> sends;
	std::vector<RecvWr> recvs;
	std::vector<MrReg> registrations;
	std::vector<CqCreation> cq_creations;
	std::vector<QpCreation> qp_creations;
	std::vector<SrqCreation> srq_creations;
	std::vector<ConnParam> conn_params;
	std::vector<AddrInfoQuery> addrinfo_queries;
	std::vector<IdCall> id_calls;
	std::vector<CqCall> cq_calls;
	std::vector<Advice> advices;
	std::vector<QpModify> qp_modifies;
	std::vector<ibv_comp_channel *> comp_channel_list;
	std::vector<rdma_event_channel *> event_channel_list;
	std::vector<std::string> misuses;

	uint32_t next_handle = 1;
};

State &state();

// Records the call and returns the errno it is to fail with, if it is.
std::optional<int> enter(Call call);

// Notes something real rdma-core would not tolerate.
void misuse(std::string what);

// A fresh number for keys, QP numbers and handles, distinct within a test.
uint32_t next_handle();

// Installs the function tables of the device (context.cc).
void init_context(State &s);
// Installs or removes the device's window functions (context.cc).
void install_mw_ops(State &s);
// Fills the function table of an extended QP (qp_ex.cc).
void init_qp_ex(ibv_qp_ex *qpx, uint64_t send_ops_flags);

// The sges of a work request, copied.
std::vector<Sge> copy_sges(const ibv_sge *sg_list, int num_sge);

} // namespace fake::detail

#endif
