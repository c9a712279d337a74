// SPDX-License-Identifier: BSD-3-Clause
#include "many_server.hh"
#include "options.hh"
#include "peer_addr.hh"
#include "report.hh"
#include "workspace.hh"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace rpma_fio {

namespace {

constexpr int ESTABLISH_TIMEOUT_MS = 10000;
// The liveness probe of each client, as a job of clients=1 probes its one
// (server.cc): after PROBE_IDLE without a sign, a zero-length write that
// must complete within PROBE_TIMEOUT.
constexpr auto IDLE_BEFORE_PROBE = std::chrono::seconds(5);
constexpr auto PROBE_ANSWER_TIMEOUT = std::chrono::seconds(30);

}

ManyServer::~ManyServer()
{
	close_all();
	for (Peer &p : peers_)
		rpma_mr_dereg(&p.mr);
}

ManyServer::Peer *ManyServer::peer_of_qp(uint32_t qp)
{
	auto it = by_qp_.find(qp);
	return it == by_qp_.end() ? nullptr : &peers_[it->second];
}

// N regions of size= each, registered one by one: a client's descriptor
// shows it its own region only.
int ManyServer::open(fio_file *f)
{
	const Options &o = options_of(td_);
	const size_t n = o.clients, size = td_->o.size;
	if (size > SIZE_MAX / n) {
		report(td_, "clients=%zu times size=%zu bytes is too much memory", n, size);
		return job_failed(td_, EINVAL, "size");
	}
	if (map_memory(f, n * size))
		return 1;
	peers_.resize(n);
	workspaces_.resize(n);
	fds_.reserve(2 * n + 2);
	by_qp_.reserve(n);
	for (size_t k = 0; k < n; k++) {
		Peer &p = peers_[k];
		if (register_memory(k * size, size, &p.mr))
			return 1;
		size_t desc_size;
		rpma_mr_get_descriptor_size(p.mr, &desc_size);
		std::vector<uint8_t> desc(desc_size);
		rpma_mr_get_descriptor(p.mr, desc.data());
		auto ws = encode_workspace(msg_slots(), o.direct_write_to_pmem, desc);
		if (!ws) {
			report(td_, "the memory descriptor (%zu bytes) does not fit the workspace",
			       desc_size);
			return job_failed(td_, EOVERFLOW, "workspace");
		}
		static_assert(sizeof(workspaces_[k]) == WORKSPACE_SIZE);
		workspaces_[k] = *ws;
	}

	port_ = job_port(td_);
	if (port_.empty())
		return job_failed(td_, EINVAL, "port");
	int ret = rpma_ep_listen(peer_, o.serverip, port_.c_str(), &ep_);
	if (ret) {
		report(td_, "cannot listen on %s:%s%s", o.serverip, port_.c_str(),
		       ret == RPMA_E_PROVIDER && errno == EADDRINUSE
			       ? ": the port is in use (another server, or one still "
				 "ending); stop it or choose another port="
			       : "");
		return rpma_failed(td_, "rpma_ep_listen", ret);
	}
	listening_since_ = Clock::now();
	// for the clients' addresses (peer_address); init() checked it
	rpma_utils_get_ibv_context(o.serverip, RPMA_UTIL_IBV_CONTEXT_LOCAL, &dev_);
	note("%s[%u]: waiting for a client on %s:%s (%zu clients, %zu bytes each)\n",
	     td_->io_ops->name, td_->thread_number, o.serverip, port_.c_str(), n, size);
	return 0;
}

void ManyServer::stop_listening()
{
	rpma_ep_shutdown(&ep_);
}

int ManyServer::accept_one()
{
	if (before_accept(accepted_))
		return 1;
	rpma_conn_req *req;
	int ret = next_request(ep_, &req);
	if (ret)
		return ret == RPMA_E_NO_EVENT ? 0 : ret;
	const size_t k = accepted_++;
	Peer &p = peers_[k];
	char name[96];
	std::snprintf(name, sizeof(name), "client %zu of %u at %s:%s", k + 1, clients(),
		      options_of(td_).serverip, port_.c_str());
	p.name = name;
	p.since = Clock::now();
	rpma_conn_private_data pdata{workspaces_[k].data(),
				     static_cast<uint8_t>(workspaces_[k].size())};
	ret = rpma_conn_req_connect(&req, &pdata, &p.conn);
	if (accepted_ == peers_.size())
		stop_listening(); // nobody else may connect to this port
	if (ret) {
		lose(p, ECONNABORTED, "could not be accepted (%s)", rpma_err_2str(ret));
		return 0;
	}
	rpma_conn_get_event_fd(p.conn, &p.event_fd);
	rpma_conn_get_cq(p.conn, &p.cq);
	rpma_cq_get_fd(p.cq, &p.cq_fd);
	rpma_conn_get_qp_num(p.conn, &p.qp);
	by_qp_[p.qp] = k;
	std::string addr = peer_address(dev_, p.qp);
	if (!addr.empty())
		p.name += " (from " + addr + ")";
	return 0;
}

// The serving loop: work while there is some, otherwise spin or sleep on
// the listening endpoint, every client's connection events and completions
// and the flavour's own queue.
int ManyServer::serve()
{
	const bool spin = may_spin() && options_of(td_).busy_wait_polling;
	unsigned idle = 0;
	while (!finished()) {
		if (td_->terminate)
			return job_failed(td_, EINTR, "serve");
		int ret = work();
		if (ret > 0)
			return 1;
		if (ret == 0) {
			idle = 0;
			continue;
		}
		if (spin && ++idle % EVENT_CHECK_INTERVAL)
			continue;
		if (wait(spin ? 0 : POLL_MS))
			return 1;
	}
	unsigned failed = 0;
	int err = 0;
	for (size_t k = 0; k < accepted_; k++)
		if (peers_[k].state == State::Failed && !failed++)
			err = peers_[k].err;
	if (gave_up_ && !failed)
		return job_failed(td_, ETIMEDOUT, "accept");
	if (!failed)
		return 0;
	report(td_, "%u of %u clients of %s:%s failed (named above); the others ended their runs",
	       failed, clients(), options_of(td_).serverip, port_.c_str());
	return job_failed(td_, err ? err : EIO, "clients");
}

bool ManyServer::finished() const
{
	if (accepted_ < peers_.size() && !gave_up_)
		return false;
	for (size_t k = 0; k < accepted_; k++)
		if (peers_[k].live())
			return false;
	return true;
}

int ManyServer::wait(int timeout_ms)
{
	fds_.clear();
	fd_owner_.clear();
	if (ep_) {
		int fd;
		rpma_ep_get_fd(ep_, &fd);
		fds_.push_back({fd, POLLIN, 0});
	}
	const int extra = extra_fd();
	if (extra >= 0)
		fds_.push_back({extra, POLLIN, 0});
	const size_t first = fds_.size();
	for (size_t k = 0; k < accepted_; k++)
		if (peers_[k].live() && peers_[k].conn) {
			fds_.push_back({peers_[k].event_fd, POLLIN, 0});
			fds_.push_back({peers_[k].cq_fd, POLLIN, 0});
			fd_owner_.push_back(k);
		}
	int n = poll(fds_.data(), fds_.size(), timeout_ms);
	if (n < 0 && errno != EINTR) {
		int err = errno;
		report(td_, "poll: %s", std::strerror(err));
		return job_failed(td_, err, "poll");
	}
	const bool quiet = n <= 0;
	if (ep_ && fds_[0].revents && accept_one())
		return 1;
	if (extra >= 0 && fds_[first - 1].revents && extra_ready())
		return 1;
	for (size_t j = 0; j < fd_owner_.size(); j++) {
		Peer &p = peers_[fd_owner_[j]];
		const pollfd &ev = fds_[first + 2 * j], &cq = fds_[first + 2 * j + 1];
		if (cq.revents && p.live()) {
			int ret = rpma_cq_wait(p.cq); // acks the event and re-arms
			if (ret && ret != RPMA_E_NO_COMPLETION)
				return rpma_failed(td_, "rpma_cq_wait", ret);
			if (take_completions(p))
				return 1;
		}
		if (ev.revents && p.live() && conn_event(p))
			return 1;
	}
	// the checks cost more than a request: when nothing came (a dead
	// client or link sends nothing) and now and then
	if (quiet || ++wakes_ % EVENT_CHECK_INTERVAL == 0)
		return checks();
	return 0;
}

int ManyServer::conn_event(Peer &p)
{
	rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	int ret = rpma_conn_next_event(p.conn, &ev);
	if (ret == RPMA_E_NO_EVENT)
		return 0;
	if (ret) {
		lose(p, EIO, "its connection's events cannot be read (%s)", rpma_err_2str(ret));
		return 0;
	}
	if (p.state == State::Connecting) {
		if (ev == RPMA_CONN_ESTABLISHED) {
			p.state = State::Serving;
			p.since = Clock::now();
			return 0;
		}
		lose(p, ECONNABORTED, "its connection did not come up (%s)",
		     rpma_utils_conn_event_2str(ev));
		return 0;
	}
	// what it sent before its disconnect counts first
	if (work() > 0)
		return 1;
	if (ev == RPMA_CONN_CLOSED && ended_run(p)) {
		p.state = State::Ended;
		close_peer(p);
		return 0;
	}
	if (ev == RPMA_CONN_CLOSED)
		lose(p, ECONNRESET, "disconnected before ending its run (was it killed?)");
	else
		lose(p, ECONNRESET, "its connection failed (%s)", rpma_utils_conn_event_2str(ev));
	return 0;
}

int ManyServer::take_completions(Peer &p)
{
	ibv_wc wc[WC_BATCH];
	for (;;) {
		if (!p.live() || !p.cq)
			return 0;
		int got = 0;
		int ret = rpma_cq_get_wc(p.cq, WC_BATCH, wc, &got);
		if (ret == RPMA_E_NO_COMPLETION)
			return 0;
		if (ret)
			return rpma_failed(td_, "rpma_cq_get_wc", ret);
		for (int i = 0; i < got && p.live(); i++) {
			if (wc[i].wr_id != reinterpret_cast<uintptr_t>(&p)) {
				if (sent(p, wc[i]))
					return 1;
				continue;
			}
			p.probing = false;
			p.since = Clock::now();
			if (wc[i].status != IBV_WC_SUCCESS) {
				// a disconnect fails the probe too: that event, if
				// it comes, says more
				rpma_conn_event ev = RPMA_CONN_UNDEFINED;
				if (next_conn_event(p.conn, 1000, &ev) == 0) {
					if (ev == RPMA_CONN_CLOSED && ended_run(p)) {
						p.state = State::Ended;
						close_peer(p);
					} else {
						lose(p, ECONNRESET, "its connection ended (%s)",
						     rpma_utils_conn_event_2str(ev));
					}
				} else {
					lose(p, ETIMEDOUT,
					     "stopped answering (%s): it or the network is gone",
					     ibv_wc_status_str(wc[i].status));
				}
			}
		}
	}
}

int ManyServer::checks()
{
	if (link_check())
		return 1;
	const auto now = Clock::now();
	const Options &o = options_of(td_);
	if (ep_ && td_->o.timeout &&
	    now - listening_since_ > std::chrono::microseconds(td_->o.timeout)) {
		// those that came are served to their end; the job fails then
		report(td_, "%zu of %u clients connected to %s:%s within runtime=%llus", accepted_,
		       clients(), o.serverip, port_.c_str(), td_->o.timeout / 1000000);
		stop_listening();
		gave_up_ = true;
	}
	for (Peer &p : peers_)
		if (check_liveness(p, now))
			return 1;
	return 0;
}

int ManyServer::check_liveness(Peer &p, Clock::time_point now)
{
	if (p.state == State::Connecting && p.conn &&
	    now - p.since > std::chrono::milliseconds(ESTABLISH_TIMEOUT_MS)) {
		lose(p, ECONNABORTED, "its connection did not come up (timed out)");
		return 0;
	}
	if (p.state != State::Serving)
		return 0;
	if (take_completions(p))
		return 1;
	if (!p.live())
		return 0;
	if (p.probing) {
		if (now - p.probe_sent >= PROBE_ANSWER_TIMEOUT)
			lose(p, ETIMEDOUT,
			     "stopped answering (no answer to a probe for %lld s): it or the "
			     "network is gone",
			     static_cast<long long>(
				     std::chrono::duration_cast<std::chrono::seconds>(
					     PROBE_ANSWER_TIMEOUT)
					     .count()));
		return 0;
	}
	uint64_t signs = signs_of(p);
	if (signs != p.signs) {
		p.signs = signs;
		p.since = now;
		return 0;
	}
	if (now - p.since < IDLE_BEFORE_PROBE)
		return 0;
	int ret = rpma_write(p.conn, nullptr, 0, nullptr, 0, 0, RPMA_F_COMPLETION_ALWAYS, &p);
	if (ret) {
		lose(p, ECONNRESET, "cannot be probed (%s)", rpma_err_2str(ret));
		return 0;
	}
	p.probing = true;
	p.probe_sent = now;
	return 0;
}

void ManyServer::lose(Peer &p, int err, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	std::vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	report(td_, "%s: %s; the others go on", p.name.c_str(), what);
	p.state = State::Failed;
	p.err = err;
	close_peer(p);
}

void ManyServer::close_peer(Peer &p)
{
	dropped(p);
	if (p.conn)
		by_qp_.erase(p.qp);
	close_connection(&p.conn);
	p.cq = nullptr;
	p.event_fd = p.cq_fd = -1;
}

void ManyServer::close_all()
{
	for (Peer &p : peers_)
		close_peer(p);
	stop_listening();
}

void ManyServer::goodbye()
{
	close_all();
}

namespace {

// APM: the clients write and flush by themselves; the thread only accepts
// and watches.
class ApmMany final : public ManyServer {};

}

std::unique_ptr<Server> make_apm_many()
{
	return std::make_unique<ApmMany>();
}

}
