// SPDX-License-Identifier: BSD-3-Clause
#include "many_server.hh"
#include "end_notice.hh"
#include "options.hh"
#include "peer_addr.hh"
#include "report.hh"
#include "wire_format.hh"

#include <cassert>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace rpma_fio {

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
Result ManyServer::open(fio_file *f)
{
	const Options &o = options_of(td_);
	const size_t n = o.clients, size = td_->o.size;
	if (size > SIZE_MAX / n) {
		report(td_, "clients=%zu times size=%zu bytes is too much memory", n, size);
		return job_failed(td_, EINVAL, "size");
	}
	if (Result r = map_memory(f, n * size); r != Result::DONE)
		return r;
	// Peer and its probe are found by address (wr_id): the vectors never
	// grow after this
	peers_.resize(n);
	fds_.reserve(2 * n + 2);
	fd_owner_.reserve(n);
	by_qp_.reserve(n);
	failing_.reserve(n);
	for (size_t k = 0; k < n; k++) {
		Peer &p = peers_[k];
		if (Result r = register_memory(k * size, size, &p.mr); r != Result::DONE)
			return r;
	}

	port_ = job_port(td_);
	if (port_.empty())
		return job_failed(td_, EINVAL, "port");
	if (Result r = listen(port_, &ep_); r != Result::DONE)
		return r;
	listening_since_ = Clock::now();
	// for the clients' addresses (peer_address); init() checked it
	rpma_utils_get_ibv_context(o.serverip, RPMA_UTIL_IBV_CONTEXT_LOCAL, &dev_);
	note("%s[%u]: waiting for a client on %s:%s (%zu clients, %zu bytes each)\n",
	     td_->io_ops->name, td_->thread_number, o.serverip, port_.c_str(), n, size);
	return Result::DONE;
}

void ManyServer::stop_listening()
{
	rpma_ep_shutdown(&ep_);
}

Result ManyServer::accept_one()
{
	// Invariant: the endpoint listens only while connections are missing.
	assert(accepted_ < peers_.size());
	if (Result r = before_accept(accepted_); r != Result::DONE)
		return r;
	rpma_conn_req *req;
	Result r = next_request(ep_, &req);
	if (r != Result::DONE)
		return r == Result::RETRY ? Result::DONE : r;
	const size_t k = accepted_++;
	Peer &p = peers_[k];
	std::vector<uint8_t> ws;
	if ((r = taking(k, req)) != Result::DONE ||
	    (r = workspace_of(p.mr, receives_of(k), &ws)) != Result::DONE) {
		rpma_conn_req_delete(&req);
		return r;
	}
	char name[96];
	std::snprintf(name, sizeof(name), "client %zu of %u at %s:%s", k + 1, clients(),
		      options_of(td_).serverip, port_.c_str());
	p.name = name;
	p.since = Clock::now();
	rpma_conn_private_data pdata{ws.data(), static_cast<uint8_t>(ws.size())};
	int ret = rpma_conn_req_connect(&req, &pdata, &p.conn);
	if (accepted_ == peers_.size())
		stop_listening(); // nobody else may connect to this port
	if (ret) {
		lose(p, ECONNABORTED, "could not be accepted (%s)", rpma_err_2str(ret));
		return Result::DONE;
	}
	rpma_conn_get_event_fd(p.conn, &p.event_fd);
	rpma_conn_get_cq(p.conn, &p.cq);
	rpma_cq_get_fd(p.cq, &p.cq_fd);
	rpma_conn_get_qp_num(p.conn, &p.qp);
	by_qp_[p.qp] = k;
	std::string addr = peer_address(dev_, p.qp);
	if (!addr.empty())
		p.name += " (from " + addr + ")";
	return Result::DONE;
}

// The serving loop: work while there is some, otherwise spin or sleep on
// the listening endpoint, every client's connection events and completions
// and the flavour's own queue.
Result ManyServer::serve()
{
	const bool spin = may_spin() && options_of(td_).busy_wait_polling;
	unsigned turns = 0;
	// fio ending the job (a signal, exitall=, a trigger, a remote client
	// gone) ends the serving, not the verdict on the clients lost so far
	while (!finished() && !td_->terminate) {
		const Result r = do_work();
		if (failed(r))
			return r;
		if (!failing_.empty() && failed(settle()))
			return Result::FAILED;
		// Accepting and the connections' events wait for no quiet moment:
		// they come at least every EVENT_CHECK_INTERVAL turns (a turn
		// takes at most WC_BATCH requests), however busy the clients
		// are, so that a late client is never kept out.
		const bool due = ++turns % EVENT_CHECK_INTERVAL == 0;
		if (!due && (r == Result::DONE || spin))
			continue;
		if (failed(wait(r == Result::RETRY && !spin ? POLL_MS : 0)))
			return Result::FAILED;
	}
	unsigned lost = 0;
	int err = 0;
	for (size_t k = 0; k < accepted_; k++)
		if (peers_[k].state == State::Failed && !lost++)
			err = peers_[k].err;
	if (gave_up_ && !lost)
		return job_failed(td_, ETIMEDOUT, "accept");
	if (!lost)
		return Result::DONE;
	report(td_, "%u of %u clients of %s:%s failed (named above); %s", lost, clients(),
	       options_of(td_).serverip, port_.c_str(),
	       finished() ? "the others ended their runs" : "fio ended the job before the others");
	return job_failed(td_, err ? err : EIO, "clients");
}

Result ManyServer::do_work()
{
	working_ = true;
	const Result r = work();
	working_ = false;
	return r;
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

Result ManyServer::wait(int timeout_ms)
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
	if (ep_ && fds_[0].revents && failed(accept_one()))
		return Result::FAILED;
	if (extra >= 0 && fds_[first - 1].revents && failed(extra_ready()))
		return Result::FAILED;
	for (size_t j = 0; j < fd_owner_.size(); j++) {
		Peer &p = peers_[fd_owner_[j]];
		const pollfd &ev = fds_[first + 2 * j], &cq = fds_[first + 2 * j + 1];
		if (cq.revents && p.live()) {
			int ret = rpma_cq_wait(p.cq); // acks the event and re-arms
			if (ret && ret != RPMA_E_NO_COMPLETION)
				return rpma_failed(td_, "rpma_cq_wait", ret);
			if (failed(take_completions(p)))
				return Result::FAILED;
		}
		if (ev.revents && p.live() && failed(conn_event(p)))
			return Result::FAILED;
	}
	if (!failing_.empty() && failed(settle()))
		return Result::FAILED;
	// the checks cost more than a request: when nothing came (a dead
	// client or link sends nothing), and at least every CHECK_PERIOD
	// however busy the others are
	const auto now = Clock::now();
	if (!quiet && now - checked_ < CHECK_PERIOD)
		return Result::DONE;
	checked_ = now;
	return checks();
}

Result ManyServer::conn_event(Peer &p)
{
	rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	int ret = rpma_conn_next_event(p.conn, &ev);
	if (ret == RPMA_E_NO_EVENT)
		return Result::DONE;
	if (ret) {
		lose(p, EIO, "its connection's events cannot be read (%s)", rpma_err_2str(ret));
		return Result::DONE;
	}
	if (p.state == State::Connecting) {
		if (ev == RPMA_CONN_ESTABLISHED) {
			p.state = State::Serving;
			return Result::DONE;
		}
		lose(p, ECONNABORTED, "its connection did not come up (%s)",
		     rpma_utils_conn_event_2str(ev));
		return Result::DONE;
	}
	return ended(p, ev);
}

// What p's connection event ev means for its run, once what p sent before
// it has been taken: its end-of-run request may wait behind any number of
// completions (a server that slept while the client took its last answers
// and ended). The shared queue holds at most clients() * msg_slots()
// requests, so that many polls take every one queued before the event
// even while the other clients keep sending.
Result ManyServer::ended(Peer &p, rpma_conn_event ev)
{
	// Invariant: never inside work(), whose batch of requests must be
	// answered in each client's order before any later one is taken.
	assert(!working_);
	const size_t polls = static_cast<size_t>(clients()) * msg_slots() / WC_BATCH + 1;
	for (size_t i = 0; i < polls; i++) {
		const Result r = do_work();
		if (failed(r))
			return r;
		if (r == Result::RETRY)
			break;
	}
	// what it sent last may have failed it: that stands
	if (!p.live())
		return Result::DONE;
	if (ev == RPMA_CONN_CLOSED && ended_run(p)) {
		p.state = State::Ended;
		close_peer(p);
	} else if (ev == RPMA_CONN_CLOSED) {
		lose(p, ECONNRESET, "disconnected before ending its run (was it killed?)");
	} else {
		lose(p, ECONNRESET, "its connection failed (%s)", rpma_utils_conn_event_2str(ev));
	}
	return Result::DONE;
}

Result ManyServer::take_completions(Peer &p)
{
	ibv_wc wc[WC_BATCH];
	for (;;) {
		if (!p.live() || !p.cq)
			return Result::DONE;
		int got = 0;
		int ret = rpma_cq_get_wc(p.cq, WC_BATCH, wc, &got);
		if (ret == RPMA_E_NO_COMPLETION)
			return Result::DONE;
		if (ret)
			return rpma_failed(td_, "rpma_cq_get_wc", ret);
		for (int i = 0; i < got && p.live(); i++) {
			if (wc[i].wr_id != reinterpret_cast<uintptr_t>(&p)) {
				if (failed(sent(p, wc[i])))
					return Result::FAILED;
				continue;
			}
			p.probe.completed(Clock::now());
			if (wc[i].status == IBV_WC_SUCCESS || p.probe_failed)
				continue;
			// What the failure means waits for the serving loop
			// (settle()): this may run inside work(), which must not
			// be entered again.
			p.probe_failed = wc[i].status;
			failing_.push_back(index_of(p)); // reserved: one per client
		}
	}
}

// A failed probe: a disconnect fails the probe too, and that event, if it
// comes, says more (Server::probe_done).
Result ManyServer::settle()
{
	// ended() may add to the list: by index, not a range-for, whose end
	// is taken once (each client comes at most once, so the reserved room
	// never moves)
	// NOLINTNEXTLINE(modernize-loop-convert)
	for (size_t i = 0; i < failing_.size(); i++) {
		Peer &p = peers_[failing_[i]];
		if (!p.live())
			continue;
		rpma_conn_event ev = RPMA_CONN_UNDEFINED;
		const Result r = next_conn_event(td_, p.conn, DISCONNECT_GRACE_MS, &ev);
		if (failed(r))
			return r;
		if (r == Result::DONE) {
			if (failed(ended(p, ev)))
				return Result::FAILED;
		} else {
			lose(p, ETIMEDOUT, "stopped answering (%s): it or the network is gone",
			     ibv_wc_status_str(p.probe_failed));
		}
	}
	failing_.clear();
	return Result::DONE;
}

Result ManyServer::checks()
{
	if (failed(link_check()))
		return Result::FAILED;
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
		if (failed(check_liveness(p, now)))
			return Result::FAILED;
	return Result::DONE;
}

Result ManyServer::check_liveness(Peer &p, Clock::time_point now)
{
	if (p.state == State::Connecting && p.conn &&
	    now - p.since > std::chrono::milliseconds(HANDSHAKE_TIMEOUT_MS)) {
		lose(p, ECONNABORTED, "its connection did not come up (timed out)");
		return Result::DONE;
	}
	if (p.state != State::Serving)
		return Result::DONE;
	if (failed(take_completions(p)))
		return Result::FAILED;
	if (!p.live())
		return Result::DONE;
	switch (p.probe.due(signs_of(p), now)) {
	case Probe::Due::NOTHING:
		return Result::DONE;
	case Probe::Due::LATE:
		lose(p, ETIMEDOUT, "stopped answering (%s): it or the network is gone",
		     Probe::late_why().c_str());
		return Result::DONE;
	case Probe::Due::SEND:
		break;
	}
	int ret = rpma_write(p.conn, nullptr, 0, nullptr, 0, 0, RPMA_F_COMPLETION_ALWAYS, &p);
	if (ret) {
		lose(p, ECONNRESET, "cannot be probed (%s)", rpma_err_2str(ret));
		return Result::DONE;
	}
	p.probe.sent(now);
	return Result::DONE;
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

// Every client that ended well has been closed at its disconnect; the
// others are disconnected at once, as Server::goodbye() does after a
// failure.
void ManyServer::goodbye()
{
	close_all();
}

namespace {

// APM: the clients write and flush by themselves; the thread only accepts
// and watches, and takes the end-of-run notices (end_notice.hh).
class ApmMany final : public ManyServer {
public:
	~ApmMany() override
	{
		close_all(); // before the notices' receive buffers
	}

private:
	std::unique_ptr<EndNotice[]> notices_; // client k's: notices_[k]

	Result taking(size_t k, rpma_conn_req *req) override
	{
		if (!notices_)
			notices_ = std::make_unique<EndNotice[]>(clients());
		return notices_[k].expect(td_, peer_, req);
	}

	uint16_t receives_of(size_t k) const override { return notices_[k].receives(); }

	Result sent(Peer &p, const ibv_wc &wc) override
	{
		EndNotice &notice = notices_[index_of(p)];
		if (!notice.take(wc))
			lose(p, EPROTO, "sent what an APM client does not (opcode %d)", wc.opcode);
		else if (!notice.misuse().empty())
			lose(p, EPROTO, "it %s", notice.misuse().c_str());
		return Result::DONE;
	}

	bool ended_run(Peer &p) override
	{
		EndNotice &notice = notices_[index_of(p)];
		if (p.cq)
			notice.drain(p.cq);
		return notice.run_ended();
	}
};

}

std::unique_ptr<Server> make_apm_many()
{
	return std::make_unique<ApmMany>();
}

}
