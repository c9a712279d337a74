// SPDX-License-Identifier: BSD-3-Clause
// The fake's bookkeeping and the test-facing API of fake.hh.
#include "state.hh"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>

namespace fake {

namespace detail {

ChannelExtra::~ChannelExtra()
{
	if (fd >= 0)
		close(fd);
}

State &state()
{
	// Constructed on first use and never destroyed: the library's
	// destructors may still run after the tests' statics are gone.
	static State *s = [] {
		auto *fresh = new State;
		init_context(*fresh);
		return fresh;
	}();
	return *s;
}

std::optional<int> enter(Call call)
{
	State &s = state();
	s.calls.push_back(call);
	unsigned n = ++s.counts[call];
	auto armed = s.failures.find(call);
	if (armed == s.failures.end())
		return std::nullopt;
	auto hit = armed->second.find(n);
	if (hit == armed->second.end())
		return std::nullopt;
	int err = hit->second;
	armed->second.erase(hit);
	return err;
}

void misuse(std::string what)
{
	state().misuses.push_back(std::move(what));
}

uint32_t next_handle()
{
	return state().next_handle++;
}

std::vector<Sge> copy_sges(const ibv_sge *sg_list, int num_sge)
{
	std::vector<Sge> sges;
	for (int i = 0; i < num_sge; ++i)
		sges.push_back({sg_list[i].addr, sg_list[i].length, sg_list[i].lkey});
	return sges;
}

} // namespace detail

using detail::state;

#define FAKE_NAME_ENTRY(call) \
	case Call::call:      \
		return #call;
const char *name(Call call) noexcept
{
	switch (call) {
		FAKE_CALLS(FAKE_NAME_ENTRY)
	}
	return "?";
}
#undef FAKE_NAME_ENTRY

void reset()
{
	detail::State &s = state();
	s.pds.clear();
	s.mrs.clear();
	s.mws.clear();
	s.comp_channels.clear();
	s.cqs.clear();
	s.srqs.clear();
	s.qps.clear();
	s.event_channels.clear();
	s.ids.clear();
	s.addrinfos.clear();
	s.events.clear();
	s.failures.clear();
	s.counts.clear();
	s.poll_override = false;
	s.keys_override = false;
	s.fork_protection = false;
	s.cm_events.clear();
	s.blocking_cm_event_gets = 0;
	s.cq_events.clear();
	s.acked_private_data.clear();
	s.calls.clear();
	s.sends.clear();
	s.recvs.clear();
	s.registrations.clear();
	s.cq_creations.clear();
	s.qp_creations.clear();
	s.srq_creations.clear();
	s.conn_params.clear();
	s.addrinfo_queries.clear();
	s.id_calls.clear();
	s.cq_calls.clear();
	s.advices.clear();
	s.qp_modifies.clear();
	s.init_qp_attr = {};
	s.comp_channel_list.clear();
	s.event_channel_list.clear();
	s.misuses.clear();
	s.next_handle = 1;
	s.bind_attaches_device = true;
	s.attr = {};
	set_advise_mr_supported(true);
	set_mw_supported(false);
	s.device.transport_type = IBV_TRANSPORT_IB;
}

ibv_context *context()
{
	return &state().vctx.context;
}

ibv_device_attr_ex &device_attr()
{
	return state().attr;
}

void set_transport(ibv_transport_type transport)
{
	state().device.transport_type = transport;
}

void set_bind_attaches_device(bool attaches)
{
	state().bind_attaches_device = attaches;
}

void set_fork_protection(bool on)
{
	state().fork_protection = on;
}

void set_advise_mr_supported(bool supported)
{
	detail::State &s = state();
	s.vctx.advise_mr = supported ? s.advise_mr : nullptr;
}

void set_mw_supported(bool supported)
{
	detail::State &s = state();
	s.mw_supported = supported;
	detail::install_mw_ops(s);
}

InitQpAttr &init_qp_attr()
{
	return state().init_qp_attr;
}

const std::vector<QpModify> &qp_modifies()
{
	return state().qp_modifies;
}

ibv_qp_state qp_state(const ibv_qp *qp)
{
	detail::State &s = state();
	const auto *qpx = reinterpret_cast<const ibv_qp_ex *>(qp);
	return s.qps.has(qpx) ? s.qps.extra(qpx).qp_state : IBV_QPS_UNKNOWN;
}

void fail(Call call, int err, unsigned nth)
{
	detail::State &s = state();
	s.failures[call][s.counts[call] + nth] = err;
}

void next_poll_returns(int n)
{
	state().poll_override = true;
	state().poll_result = n;
}

void next_mr_keys(uint32_t lkey, uint32_t rkey)
{
	detail::State &s = state();
	s.keys_override = true;
	s.next_lkey = lkey;
	s.next_rkey = rkey;
}

unsigned unacked_cq_events(ibv_cq *cq)
{
	detail::State &s = state();
	return s.cqs.has(cq) ? s.cqs.extra(cq).unacked_events : 0;
}

void queue_cm_event(rdma_cm_event_type type, std::vector<uint8_t> private_data, int status)
{
	state().cm_events.push_back({type, std::move(private_data), status});
}

void queue_conn_req_from(const char *ip)
{
	detail::State::CmEventSpec spec{RDMA_CM_EVENT_CONNECT_REQUEST, {}, 0};
	auto *in = reinterpret_cast<sockaddr_in *>(&spec.src);
	auto *in6 = reinterpret_cast<sockaddr_in6 *>(&spec.src);
	if (inet_pton(AF_INET, ip, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(4791);
	} else if (inet_pton(AF_INET6, ip, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(4791);
	} else {
		detail::misuse("test queued a request from no address");
	}
	state().cm_events.push_back(std::move(spec));
}

void signal_channel(int fd)
{
	const uint64_t one = 1;
	if (write(fd, &one, sizeof(one)) != sizeof(one))
		detail::misuse("test signalled a channel fd that is no eventfd of the fake");
}

unsigned blocking_cm_event_gets()
{
	return state().blocking_cm_event_gets;
}

void queue_wc(ibv_cq *cq, const ibv_wc &wc)
{
	detail::State &s = state();
	if (!s.cqs.has(cq)) {
		detail::misuse("test queued a completion on an unknown CQ");
		return;
	}
	s.cqs.extra(cq).wcs.push_back(wc);
}

void queue_cq_event(ibv_cq *cq)
{
	state().cq_events.push_back(cq);
}

const std::vector<Call> &calls()
{
	return state().calls;
}
const std::vector<SendWr> &sends()
{
	return state().sends;
}
const std::vector<RecvWr> &recvs()
{
	return state().recvs;
}
const std::vector<MrReg> &registrations()
{
	return state().registrations;
}
const std::vector<CqCreation> &cqs()
{
	return state().cq_creations;
}
const std::vector<QpCreation> &qps()
{
	return state().qp_creations;
}
const std::vector<SrqCreation> &srqs()
{
	return state().srq_creations;
}
const std::vector<ConnParam> &conn_params()
{
	return state().conn_params;
}
const std::vector<AddrInfoQuery> &addrinfo_queries()
{
	return state().addrinfo_queries;
}
const std::vector<IdCall> &id_calls()
{
	return state().id_calls;
}
const std::vector<CqCall> &cq_calls()
{
	return state().cq_calls;
}
const std::vector<Advice> &advices()
{
	return state().advices;
}
const std::vector<ibv_comp_channel *> &comp_channels()
{
	return state().comp_channel_list;
}
const std::vector<rdma_event_channel *> &event_channels()
{
	return state().event_channel_list;
}
const std::vector<std::string> &misuses()
{
	return state().misuses;
}

unsigned count(Call call)
{
	return static_cast<unsigned>(std::count(state().calls.begin(), state().calls.end(), call));
}

int first_index(Call call)
{
	const auto &all = state().calls;
	auto it = std::find(all.begin(), all.end(), call);
	return it == all.end() ? -1 : static_cast<int>(it - all.begin());
}

std::vector<IdCall> id_calls_of(Call call)
{
	std::vector<IdCall> of;
	std::copy_if(state().id_calls.begin(), state().id_calls.end(), std::back_inserter(of),
		     [call](const IdCall &c) { return c.call == call; });
	return of;
}

std::vector<CqCall> cq_calls_of(Call call)
{
	std::vector<CqCall> of;
	std::copy_if(state().cq_calls.begin(), state().cq_calls.end(), std::back_inserter(of),
		     [call](const CqCall &c) { return c.call == call; });
	return of;
}

std::string live_objects()
{
	detail::State &s = state();
	std::string out;
	auto add = [&out](const auto &registry) {
		if (registry.size() == 0)
			return;
		if (!out.empty())
			out += ", ";
		out += std::to_string(registry.size()) + " " + registry.kind();
	};
	add(s.pds);
	add(s.mrs);
	add(s.mws);
	add(s.comp_channels);
	add(s.cqs);
	add(s.srqs);
	add(s.qps);
	add(s.event_channels);
	add(s.ids);
	add(s.addrinfos);
	add(s.events);
	return out;
}

} // namespace fake
