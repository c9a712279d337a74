// SPDX-License-Identifier: BSD-3-Clause
// librdmacm's exported functions. Ids are synchronous unless created on an
// event channel; events come from fake::queue_cm_event in order, whatever
// channel asks (an empty queue reads as a non-blocking channel: EAGAIN).
#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "state.hh"

using namespace fake;
using namespace fake::detail;

namespace {

int fail_minus_one(int err)
{
	errno = err;
	return -1;
}

template <typename T, typename Extra>
bool known(Registry<T, Extra> &registry, const T *handle, const char *call)
{
	if (registry.has(handle))
		return true;
	misuse(std::string(call) + " of an unknown or freed " + registry.kind());
	return false;
}

size_t sockaddr_size(const sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return sizeof(sockaddr_in);
	case AF_INET6:
		return sizeof(sockaddr_in6);
	default:
		return sizeof(sockaddr);
	}
}

void copy_addr(sockaddr_storage &to, const sockaddr *from)
{
	to = {};
	std::memcpy(&to, from, sockaddr_size(from));
}

IdCall &record(Call call, rdma_cm_id *id, int value = 0)
{
	IdCall rec{};
	rec.call = call;
	rec.id = id;
	rec.value = value;
	state().id_calls.push_back(std::move(rec));
	return state().id_calls.back();
}

// An IPv4 or IPv6 literal with a numeric port; anything else resolves to
// the IPv4 wildcard, which is all the fake needs.
void fill_address(sockaddr_storage &out, const char *node, const char *service)
{
	const uint16_t port = htons(service ? static_cast<uint16_t>(std::atoi(service)) : 0);
	auto *in6 = reinterpret_cast<sockaddr_in6 *>(&out);
	if (node && inet_pton(AF_INET6, node, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = port;
		return;
	}
	auto *in = reinterpret_cast<sockaddr_in *>(&out);
	in->sin_family = AF_INET;
	in->sin_port = port;
	if (node)
		inet_pton(AF_INET, node, &in->sin_addr);
}

bool has_unacked_events(rdma_cm_id *id)
{
	return state().events.count_if(
		[id](const rdma_cm_event &event, const EventExtra &) { return event.id == id; });
}

// The id events on `channel` are about: the one most recently put there.
rdma_cm_id *id_on(rdma_event_channel *channel)
{
	rdma_cm_id *found = nullptr;
	for (const IdCall &call : state().id_calls) {
		if ((call.call == Call::rdma_create_id || call.call == Call::rdma_migrate_id) &&
		    call.channel == channel && state().ids.has(call.id) &&
		    call.id->channel == channel)
			found = call.id;
	}
	return found;
}

int connect_or_accept(Call call, rdma_cm_id *id, rdma_conn_param *param)
{
	State &s = state();
	if (!known(s.ids, id, name(call)))
		return fail_minus_one(EINVAL);
	ConnParam rec{};
	rec.call = call;
	rec.id = id;
	rec.given = param != nullptr;
	if (param) {
		rec.param = *param;
		rec.param.private_data = nullptr;
		if (param->private_data) {
			const auto *bytes = static_cast<const uint8_t *>(param->private_data);
			rec.private_data.assign(bytes, bytes + param->private_data_len);
		}
	}
	rec.had_qp = id->qp != nullptr;
	s.conn_params.push_back(std::move(rec));
	if (auto err = enter(call))
		return fail_minus_one(*err);
	if (id->qp) {
		// librdmacm's rdma_accept moves id->qp from INIT through RTR to
		// RTS itself, which fails on a QP past INIT
		if (call == Call::rdma_accept &&
		    s.qps.extra(reinterpret_cast<ibv_qp_ex *>(id->qp)).qp_state != IBV_QPS_INIT) {
			misuse("rdma_accept on an id whose QP is past INIT");
			return fail_minus_one(EINVAL);
		}
		// librdmacm readies the QP (accept now, connect on the reply)
		s.qps.extra(reinterpret_cast<ibv_qp_ex *>(id->qp)).qp_state = IBV_QPS_RTS;
		return 0;
	}
	// without one it takes the QP's number from the parameters (accept only)
	bool named_qp_ready = false;
	if (call == Call::rdma_accept && param)
		s.qps.for_each([&](ibv_qp_ex &qpx, QpExtra &extra) {
			if (extra.id == id && qpx.qp_base.qp_num == param->qp_num &&
			    extra.qp_state == IBV_QPS_RTS)
				named_qp_ready = true;
		});
	if (!named_qp_ready)
		misuse(std::string(name(call)) + " on an id without a QP, naming no QP in RTS");
	return 0;
}

} // namespace

extern "C" {

int rdma_getaddrinfo(const char *node, const char *service, const rdma_addrinfo *hints,
		     rdma_addrinfo **res)
{
	State &s = state();
	AddrInfoQuery query{};
	query.node = node ? node : "(null)";
	query.service = service ? service : "(null)";
	query.has_hints = hints != nullptr;
	if (hints)
		query.hints = *hints;
	s.addrinfo_queries.push_back(std::move(query));
	if (auto err = enter(Call::rdma_getaddrinfo))
		return fail_minus_one(*err);
	rdma_addrinfo *info = s.addrinfos.make();
	AddrInfoExtra &addrs = s.addrinfos.extra(info);
	const bool passive = hints && (hints->ai_flags & RAI_PASSIVE);
	sockaddr_storage &filled = passive ? addrs.src : addrs.dst;
	fill_address(filled, node, service);
	if (hints) {
		info->ai_flags = hints->ai_flags;
		info->ai_qp_type = hints->ai_qp_type;
		info->ai_port_space = hints->ai_port_space;
	}
	info->ai_family = filled.ss_family;
	auto *addr = reinterpret_cast<sockaddr *>(&filled);
	if (passive) {
		info->ai_src_addr = addr;
		info->ai_src_len = static_cast<socklen_t>(sockaddr_size(addr));
	} else {
		info->ai_dst_addr = addr;
		info->ai_dst_len = static_cast<socklen_t>(sockaddr_size(addr));
	}
	*res = info;
	return 0;
}

void rdma_freeaddrinfo(rdma_addrinfo *res)
{
	State &s = state();
	if (!known(s.addrinfos, res, "rdma_freeaddrinfo"))
		return;
	enter(Call::rdma_freeaddrinfo);
	s.addrinfos.drop(res);
}

rdma_event_channel *rdma_create_event_channel(void)
{
	State &s = state();
	if (auto err = enter(Call::rdma_create_event_channel)) {
		errno = *err;
		return nullptr;
	}
	const int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fd < 0)
		return nullptr;
	rdma_event_channel *channel = s.event_channels.make();
	channel->fd = s.event_channels.extra(channel).fd = fd;
	s.event_channel_list.push_back(channel);
	return channel;
}

void rdma_destroy_event_channel(rdma_event_channel *channel)
{
	State &s = state();
	if (!known(s.event_channels, channel, "rdma_destroy_event_channel"))
		return;
	enter(Call::rdma_destroy_event_channel);
	if (s.ids.count_if([channel](const rdma_cm_id &id, const NoExtra &) {
		    return id.channel == channel;
	    }))
		misuse("rdma_destroy_event_channel while ids still use it");
	s.event_channels.drop(channel);
}

int rdma_create_id(rdma_event_channel *channel, rdma_cm_id **id, void *context, rdma_port_space ps)
{
	State &s = state();
	if (channel && !known(s.event_channels, channel, "rdma_create_id"))
		return fail_minus_one(EINVAL);
	IdCall &rec = record(Call::rdma_create_id, nullptr, ps);
	rec.channel = channel;
	if (auto err = enter(Call::rdma_create_id))
		return fail_minus_one(*err);
	rdma_cm_id *made = s.ids.make();
	made->channel = channel;
	made->context = context;
	made->ps = ps;
	rec.id = made;
	*id = made;
	return 0;
}

int rdma_destroy_id(rdma_cm_id *id)
{
	State &s = state();
	if (!known(s.ids, id, "rdma_destroy_id"))
		return fail_minus_one(EINVAL);
	record(Call::rdma_destroy_id, id);
	if (has_unacked_events(id))
		misuse("rdma_destroy_id with unacknowledged events (librdmacm would wait forever)");
	if (id->qp)
		misuse("rdma_destroy_id with its QP still alive");
	auto err = enter(Call::rdma_destroy_id);
	s.ids.drop(id);
	return err ? fail_minus_one(*err) : 0;
}

int rdma_bind_addr(rdma_cm_id *id, sockaddr *addr)
{
	State &s = state();
	if (!known(s.ids, id, "rdma_bind_addr"))
		return fail_minus_one(EINVAL);
	IdCall &rec = record(Call::rdma_bind_addr, id);
	if (addr) {
		rec.has_addr = true;
		copy_addr(rec.addr, addr);
	}
	if (auto err = enter(Call::rdma_bind_addr))
		return fail_minus_one(*err);
	if (addr)
		std::memcpy(&id->route.addr.src_storage, addr, sockaddr_size(addr));
	if (s.bind_attaches_device)
		id->verbs = fake::context();
	return 0;
}

int rdma_resolve_addr(rdma_cm_id *id, sockaddr *src_addr, sockaddr *dst_addr, int timeout_ms)
{
	State &s = state();
	if (!known(s.ids, id, "rdma_resolve_addr"))
		return fail_minus_one(EINVAL);
	IdCall &rec = record(Call::rdma_resolve_addr, id, timeout_ms);
	rec.has_src_addr = src_addr != nullptr;
	if (dst_addr) {
		rec.has_addr = true;
		copy_addr(rec.addr, dst_addr);
	}
	if (auto err = enter(Call::rdma_resolve_addr))
		return fail_minus_one(*err);
	if (id->channel)
		misuse("rdma_resolve_addr on an asynchronous id: the result would come as an "
		       "event");
	if (dst_addr)
		std::memcpy(&id->route.addr.dst_storage, dst_addr, sockaddr_size(dst_addr));
	id->verbs = fake::context();
	return 0;
}

int rdma_resolve_route(rdma_cm_id *id, int timeout_ms)
{
	State &s = state();
	if (!known(s.ids, id, "rdma_resolve_route"))
		return fail_minus_one(EINVAL);
	record(Call::rdma_resolve_route, id, timeout_ms);
	if (auto err = enter(Call::rdma_resolve_route))
		return fail_minus_one(*err);
	if (!id->verbs)
		misuse("rdma_resolve_route before rdma_resolve_addr");
	return 0;
}

int rdma_listen(rdma_cm_id *id, int backlog)
{
	State &s = state();
	if (!known(s.ids, id, "rdma_listen"))
		return fail_minus_one(EINVAL);
	record(Call::rdma_listen, id, backlog);
	if (auto err = enter(Call::rdma_listen))
		return fail_minus_one(*err);
	if (!id->channel)
		misuse("rdma_listen on an id without an event channel");
	return 0;
}

int rdma_get_cm_event(rdma_event_channel *channel, rdma_cm_event **event)
{
	State &s = state();
	if (!known(s.event_channels, channel, "rdma_get_cm_event"))
		return fail_minus_one(EINVAL);
	if (auto err = enter(Call::rdma_get_cm_event))
		return fail_minus_one(*err);
	// what makes the channel readable (signal_channel) is taken with the
	// event; read only when it cannot block
	const int flags = fcntl(channel->fd, F_GETFL);
	const bool blocking = flags >= 0 && !(flags & O_NONBLOCK);
	if (blocking)
		s.blocking_cm_event_gets++;
	if (blocking && s.cm_events.empty()) {
		misuse("rdma_get_cm_event on a blocking channel with no event: it would block "
		       "forever");
		return fail_minus_one(EAGAIN);
	}
	if (!blocking) {
		uint64_t signals;
		(void)!read(channel->fd, &signals, sizeof(signals));
	}
	if (s.cm_events.empty())
		return fail_minus_one(EAGAIN);
	State::CmEventSpec spec = std::move(s.cm_events.front());
	s.cm_events.pop_front();
	// a real channel stays readable while events wait: the read above
	// took every signal
	if (!blocking && !s.cm_events.empty()) {
		const uint64_t one = 1;
		(void)!write(channel->fd, &one, sizeof(one));
	}

	rdma_cm_event *made = s.events.make();
	EventExtra &extra = s.events.extra(made);
	extra.private_data = std::move(spec.private_data);
	made->event = spec.type;
	made->status = spec.status;
	made->param.conn.private_data = extra.private_data.empty() ? nullptr
								   : extra.private_data.data();
	made->param.conn.private_data_len = static_cast<uint8_t>(extra.private_data.size());
	rdma_cm_id *on_channel = id_on(channel);
	if (spec.type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		// a new id for the incoming connection, on the listener's channel
		rdma_cm_id *child = s.ids.make();
		child->verbs = fake::context();
		child->channel = channel;
		child->ps = on_channel ? on_channel->ps : RDMA_PS_TCP;
		std::memcpy(&child->route.addr.dst_storage, &spec.src, sizeof(spec.src));
		made->listen_id = on_channel;
		made->id = child;
	} else {
		made->id = on_channel;
	}
	*event = made;
	return 0;
}

int rdma_ack_cm_event(rdma_cm_event *event)
{
	State &s = state();
	if (!known(s.events, event, "rdma_ack_cm_event"))
		return fail_minus_one(EINVAL);
	auto err = enter(Call::rdma_ack_cm_event);
	// A library that kept the event's private data instead of copying it
	// reads this pattern afterwards (the buffer lives until reset()).
	auto &data = s.events.extra(event).private_data;
	std::fill(data.begin(), data.end(), 0xee);
	s.acked_private_data.push_back(std::move(data));
	s.events.drop(event);
	return err ? fail_minus_one(*err) : 0;
}

int rdma_connect(rdma_cm_id *id, rdma_conn_param *conn_param)
{
	return connect_or_accept(Call::rdma_connect, id, conn_param);
}

int rdma_accept(rdma_cm_id *id, rdma_conn_param *conn_param)
{
	return connect_or_accept(Call::rdma_accept, id, conn_param);
}

int rdma_reject(rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	State &s = state();
	if (!known(s.ids, id, "rdma_reject"))
		return fail_minus_one(EINVAL);
	IdCall &rec = record(Call::rdma_reject, id, private_data_len);
	if (private_data) {
		const auto *bytes = static_cast<const uint8_t *>(private_data);
		rec.data.assign(bytes, bytes + private_data_len);
	}
	if (auto err = enter(Call::rdma_reject))
		return fail_minus_one(*err);
	return 0;
}

int rdma_disconnect(rdma_cm_id *id)
{
	State &s = state();
	if (!known(s.ids, id, "rdma_disconnect"))
		return fail_minus_one(EINVAL);
	record(Call::rdma_disconnect, id);
	if (auto err = enter(Call::rdma_disconnect))
		return fail_minus_one(*err);
	return 0;
}

int rdma_migrate_id(rdma_cm_id *id, rdma_event_channel *channel)
{
	State &s = state();
	if (!known(s.ids, id, "rdma_migrate_id") ||
	    (channel && !known(s.event_channels, channel, "rdma_migrate_id")))
		return fail_minus_one(EINVAL);
	IdCall &rec = record(Call::rdma_migrate_id, id);
	rec.channel = channel;
	if (auto err = enter(Call::rdma_migrate_id))
		return fail_minus_one(*err);
	if (has_unacked_events(id))
		misuse("rdma_migrate_id with unacknowledged events (librdmacm would wait forever)");
	id->channel = channel;
	return 0;
}

int rdma_create_qp_ex(rdma_cm_id *id, ibv_qp_init_attr_ex *attr)
{
	State &s = state();
	if (!known(s.ids, id, "rdma_create_qp_ex"))
		return fail_minus_one(EINVAL);
	s.qp_creations.push_back({id, nullptr, *attr});
	if (auto err = enter(Call::rdma_create_qp_ex))
		return fail_minus_one(*err);
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !s.pds.has(attr->pd) ||
	    attr->pd->context != id->verbs) {
		misuse("rdma_create_qp_ex without a PD of the id's device");
		return fail_minus_one(EINVAL);
	}
	if (!s.cqs.has(attr->send_cq) || !s.cqs.has(attr->recv_cq) ||
	    (attr->srq && !s.srqs.has(attr->srq))) {
		misuse("rdma_create_qp_ex with an unknown CQ or SRQ");
		return fail_minus_one(EINVAL);
	}
	if (id->qp)
		misuse("rdma_create_qp_ex on an id that has a QP");
	ibv_qp_ex *qpx = s.qps.make();
	ibv_qp &qp = qpx->qp_base;
	qp.context = id->verbs;
	qp.qp_context = attr->qp_context;
	qp.pd = attr->pd;
	qp.send_cq = attr->send_cq;
	qp.recv_cq = attr->recv_cq;
	qp.srq = attr->srq;
	qp.handle = next_handle();
	qp.qp_num = 0x100 + qp.handle;
	qp.qp_type = attr->qp_type;
	QpExtra &extra = s.qps.extra(qpx);
	extra.id = id;
	extra.cap = attr->cap;
	extra.extended = attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	if (extra.extended)
		init_qp_ex(qpx, attr->send_ops_flags);
	id->qp = &qp;
	s.qp_creations.back().qp = &qp;
	return 0;
}

int rdma_init_qp_attr(rdma_cm_id *id, ibv_qp_attr *qp_attr, int *qp_attr_mask)
{
	State &s = state();
	if (!known(s.ids, id, "rdma_init_qp_attr"))
		return fail_minus_one(EINVAL);
	if (auto err = enter(Call::rdma_init_qp_attr))
		return fail_minus_one(*err);
	const ibv_qp_state wanted = qp_attr->qp_state;
	*qp_attr = {};
	qp_attr->qp_state = wanted;
	int mask = IBV_QP_STATE;
	switch (wanted) {
	case IBV_QPS_INIT:
		mask |= IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		qp_attr->port_num = 1;
		break;
	case IBV_QPS_RTR:
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER |
			s.init_qp_attr.extra_mask;
		qp_attr->max_dest_rd_atomic = s.init_qp_attr.max_dest_rd_atomic;
		qp_attr->path_mtu = IBV_MTU_1024;
		break;
	case IBV_QPS_RTS:
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			IBV_QP_MAX_QP_RD_ATOMIC;
		qp_attr->max_rd_atomic = s.init_qp_attr.max_rd_atomic;
		break;
	default:
		misuse("rdma_init_qp_attr for a state the CM does not describe");
		return fail_minus_one(EINVAL);
	}
	*qp_attr_mask = mask;
	return 0;
}

void rdma_destroy_qp(rdma_cm_id *id)
{
	State &s = state();
	if (!known(s.ids, id, "rdma_destroy_qp"))
		return;
	enter(Call::rdma_destroy_qp);
	auto *qpx = reinterpret_cast<ibv_qp_ex *>(id->qp);
	if (!s.qps.has(qpx)) {
		misuse("rdma_destroy_qp on an id without a live QP");
		return;
	}
	if (s.mws.count_if([id](const ibv_mw &, const MwExtra &extra) {
		    return extra.bound_qp == id->qp;
	    }))
		misuse("rdma_destroy_qp of a QP with type 2 windows bound on it");
	s.qps.drop(qpx);
	id->qp = nullptr;
}

} // extern "C"
