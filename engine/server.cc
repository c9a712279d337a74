// SPDX-License-Identifier: BSD-3-Clause
#include "server.hh"
#include "conn_events.hh"
#include "guard.hh"
#include "isolation.hh"
#include "options.hh"
#include "peer_addr.hh"
#include "report.hh"
#include "soft_roce.hh"
#include "wire_format.hh"

#include <fcntl.h>
#include <infiniband/verbs.h>
#include <librpma_private.h>
#include <sys/resource.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

namespace rpma_fio {

namespace {

Server *server_of(thread_data *td)
{
	return static_cast<Server *>(td->io_ops_data);
}

// A connection holds two descriptors (its connection events, its
// completion channel); fio and the device take some more.
constexpr size_t FDS_PER_CONNECTION = 2, FDS_BESIDE = 64;

// For a failed registration: the limit of locked memory, if one applies.
std::string memlock_hint()
{
	rlimit lim{};
	if (getrlimit(RLIMIT_MEMLOCK, &lim) || lim.rlim_cur == RLIM_INFINITY)
		return "";
	return " (the limit of locked memory is " + std::to_string(lim.rlim_cur / 1024) +
	       " KiB: ulimit -l, or LimitMEMLOCK= of a systemd unit, raises it)";
}

}

Server::~Server()
{
	close_all();
	conns_.clear(); // their regions, before the memory goes
	mem_.unmap();
	rpma_peer_delete(&peer_);
}

int Server::init(thread_data *td, std::unique_ptr<Server> (*make)())
{
	setup_rpma_logging();
	const Options &o = options_of(td);
	if (!o.serverip || !*o.serverip)
		return fio_status(fail(td, EINVAL, "serverip",
				       "serverip= (the address to listen on) is not set"));
	if (job_port(td).empty())
		return fio_status(Result::FAILED);

	std::unique_ptr<Server> s = make();
	s->td_ = td;
	int ret = rpma_utils_get_ibv_context(o.serverip, RPMA_UTIL_IBV_CONTEXT_LOCAL, &s->dev_);
	if (ret)
		return fio_status(
			rpma_failed(td, "rpma_utils_get_ibv_context", ret,
				    "serverip=%s is not the address of an RDMA device here",
				    o.serverip));
	if ((ret = rpma_peer_new(s->dev_, &s->peer_)))
		return fio_status(rpma_failed(td, "rpma_peer_new", ret));
	ibv_device_attr attr{};
	s->soft_roce_ = ibv_query_device(s->dev_, &attr) == 0 &&
			attr.vendor_id == rpma::SOFT_ROCE_VENDOR_ID;
	if (o.allow && *o.allow) {
		std::string why;
		s->allow_ = AllowList::parse(o.allow, &why);
		// checked when fio read the job file (options.cc): not expected
		if (!s->allow_)
			return fio_status(
				fail(td, EINVAL, "allow", "allow=%s %s", o.allow, why.c_str()));
	}
	if (Result r = s->choose_isolation(); r != Result::DONE)
		return fio_status(r);
	s->link_.watch(s->dev_, o.serverip, true);
	// The job's one I/O is the serving of its connections; iodepth= is
	// the GPSPM server's message slots. Left above 1, it would make fio
	// print a note (a sync engine caps the depth) into a json report.
	s->iodepth_ = td->o.iodepth;
	td->o.iodepth = 1;
	td->io_ops_data = s.release();
	return 0;
}

// The "file" of a server job is the memory of one connection: size= bytes.
int Server::get_file_size(thread_data *td, fio_file *f)
{
	if (!td->o.size)
		return fio_status(
			fail(td, EINVAL, "size", "size= (the memory for each client) is not set"));
	f->real_file_size = td->o.size;
	fio_file_set_size_known(f);
	return 0;
}

int Server::open_file(thread_data *td, fio_file *f)
{
	Server *s = server_of(td);
	if (s->served_)
		return 0;
	return fio_status(s->open(f));
}

// clients= regions of size= each, registered one by one: a client's
// descriptor shows it its own region only.
Result Server::open(fio_file *f)
{
	const Options &o = options_of(td_);
	const size_t n = o.clients, size = td_->o.size;
	if (size > SIZE_MAX / n)
		return fail(td_, EINVAL, "size",
			    "clients=%zu times size=%zu bytes is too much memory", n, size);
	if (Result r = descriptors_for(n); r != Result::DONE)
		return r;
	if (Result r = map_memory(f, n * size); r != Result::DONE)
		return r;
	// A connection and its probe are found by address (wr_id): each is
	// made once, here.
	conns_.reserve(n);
	by_qp_.reserve(n);
	free_.reserve(n);
	for (size_t k = n; k-- > 0;)
		free_.push_back(k); // place 0 taken first
	for (size_t k = 0; k < n; k++) {
		conns_.push_back(new_connection());
		Connection &c = *conns_.back();
		c.index = k;
		if (Result r = register_memory(k * size, size, &c.mr); r != Result::DONE)
			return r;
	}
	if (int err = waits_.open(CHECK_PERIOD))
		return fail(td_, err, "epoll", "cannot make the set of descriptors to wait on: %s",
			    std::strerror(err));
	port_ = job_port(td_);
	if (port_.empty())
		return Result::FAILED;
	if (Result r = listen(); r != Result::DONE)
		return r;
	listening_since_ = Clock::now();
	// one line, which the scripts that wait for it know, says all
	const std::string from = allow_ ? ", from allow=" + allow_->str() + " only" : "";
	if (n == 1)
		note("%s[%u]: waiting for a client on %s:%s%s; %s\n", td_->io_ops->name,
		     td_->thread_number, o.serverip, port_.c_str(), from.c_str(),
		     isolation_why_.c_str());
	else
		note("%s[%u]: waiting for a client on %s:%s (%zu clients, %zu bytes each)%s; %s\n",
		     td_->io_ops->name, td_->thread_number, o.serverip, port_.c_str(), n, size,
		     from.c_str(), isolation_why_.c_str());
	return Result::DONE;
}

// Raises the soft limit of open files up to the hard one if the
// connections need more (Debian's soft limit, 1024, holds about 480).
Result Server::descriptors_for(size_t n)
{
	const rlim_t need = n * FDS_PER_CONNECTION + FDS_BESIDE;
	rlimit lim{};
	if (getrlimit(RLIMIT_NOFILE, &lim) || lim.rlim_cur >= need)
		return Result::DONE;
	if (lim.rlim_max >= need) {
		lim.rlim_cur = need;
		if (setrlimit(RLIMIT_NOFILE, &lim) == 0)
			return Result::DONE;
	}
	return fail(td_, EMFILE, "clients",
		    "clients=%zu needs about %llu open files, more than this process may have "
		    "(%llu: ulimit -n, or LimitNOFILE= of a systemd unit, raises it)",
		    n, static_cast<unsigned long long>(need),
		    static_cast<unsigned long long>(lim.rlim_max));
}

Result Server::map_memory(fio_file *f, size_t bytes)
{
	if (Result r = mem_.map(td_, f->file_name, bytes); r != Result::DONE)
		return r;
	// docs/platforms.md, "rxe: ODP loses the offset within a page"
	if (mem_.kind() == Memory::Kind::FsDax && soft_roce_)
		note("%s[%u]: warning: serving %s over Soft-RoCE (rxe), whose "
		     "On-Demand Paging (Linux 7.2.13 at least) places each write "
		     "and read at the start of its page: the clients' data would "
		     "be misplaced; serve a Device DAX over rxe\n",
		     td_->io_ops->name, td_->thread_number, f->file_name);
	return Result::DONE;
}

Result Server::choose_isolation()
{
	const Options &o = options_of(td_);
	std::string why;
	const std::optional<Isolation> asked = parse_isolation(o.isolation, &why);
	// checked when fio read the job file (options.cc): not expected
	if (!asked)
		return fail(td_, EINVAL, "isolation", "isolation=%s %s", o.isolation, why.c_str());
	int capable = 0;
	if (int ret = rpma_utils_ibv_context_is_mw_type2_capable(dev_, &capable))
		return rpma_failed(td_, "rpma_utils_ibv_context_is_mw_type2_capable", ret);
	IsolationChoice choice = rpma_fio::choose_isolation(*asked, capable,
							    ibv_get_device_name(dev_->device));
	if (choice.refused)
		return fail(td_, ENOTSUP, "isolation", "%s", choice.why.c_str());
	windows_ = choice.windows;
	isolation_why_ = std::move(choice.why);
	return Result::DONE;
}

int Server::client_usage() const
{
	return RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
	       (mem_.persistent() ? RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT
				  : RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
}

Result Server::register_memory(size_t offset, size_t len, rpma_mr_local **mr)
{
	// Least exposure: what a client does to the region, nothing more; with
	// windows, nothing remote by the region's own key.
	const int usage = client_usage();
	int ret = windows_ ? rpma_mr_reg_for_windows(peer_, mem_.base() + offset, len, usage, mr)
			   : rpma_mr_reg(peer_, mem_.base() + offset, len, usage, mr);
	const char *call = windows_ ? "rpma_mr_reg_for_windows" : "rpma_mr_reg";
	if (ret && mem_.kind() == Memory::Kind::FsDax)
		return rpma_failed(td_, call, ret,
				   "registering FS DAX memory needs On-Demand Paging, "
				   "which this RDMA device may lack; a Device DAX needs none");
	if (ret)
		return rpma_failed(td_, call, ret,
				   "cannot register %zu bytes of memory for a client%s", len,
				   memlock_hint().c_str());
	if (mem_.kind() != Memory::Kind::FsDax)
		return Result::DONE;
	// FS DAX is registered on demand (ODP): fault the pages in now rather
	// than at the client's first writes, which would stall on them.
	ret = rpma_mr_advise(*mr, 0, len, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			     IBV_ADVISE_MR_FLAG_FLUSH);
	if (ret == RPMA_E_INVAL)
		return rpma_failed(td_, "rpma_mr_advise", ret);
	if (ret)
		note("%s[%u]: note: prefetching the memory failed (%s): the first "
		     "writes will be slower\n",
		     td_->io_ops->name, td_->thread_number, rpma_err_2str(ret));
	return Result::DONE;
}

std::vector<uint8_t> Server::descriptor_of(const Connection &c)
{
	size_t desc_size;
	std::vector<uint8_t> desc;
	// the same format either way (rpma_mw_get_descriptor(3)): every
	// client takes it with rpma_mr_remote_from_descriptor
	if (c.window) {
		rpma_mw_get_descriptor_size(c.window.get(), &desc_size);
		desc.resize(desc_size);
		rpma_mw_get_descriptor(c.window.get(), desc.data());
	} else {
		rpma_mr_get_descriptor_size(c.mr, &desc_size);
		desc.resize(desc_size);
		rpma_mr_get_descriptor(c.mr, desc.data());
	}
	return desc;
}

Result Server::open_window(Connection &c, rpma_conn_req *req, bool *lost)
{
	*lost = false;
	if (!windows_)
		return Result::DONE;
	rpma_mw *mw = nullptr;
	int ret = rpma_mw_new(peer_, &mw);
	if (ret == RPMA_E_INVAL)
		return rpma_failed(td_, "rpma_mw_new", ret);
	if (ret) {
		// the device is out of windows (or memory): its client may try
		// again once another has gone
		*lost = true;
		request_lost(std::string("could not be given a memory window (") +
			     rpma_err_2str(ret) + ")");
		return Result::DONE;
	}
	c.window.reset(mw);
	// bound by rpma_conn_req_connect, before the accept: the key is known
	// now, for the workspace
	if ((ret = rpma_conn_req_bind_mw(req, mw, c.mr, 0, td_->o.size, client_usage())))
		return rpma_failed(td_, "rpma_conn_req_bind_mw", ret);
	return Result::DONE;
}

Result Server::workspace_of(const Connection &c, std::vector<uint8_t> *ws)
{
	const std::vector<uint8_t> desc = descriptor_of(c);
	auto encoded = encode_workspace(receives(c), options_of(td_).direct_write_to_pmem, desc);
	if (!encoded)
		return fail(td_, EOVERFLOW, "workspace",
			    "the memory descriptor (%zu bytes) does not fit the "
			    "workspace",
			    desc.size());
	ws->assign(encoded->begin(), encoded->end());
	return Result::DONE;
}

Result Server::listen()
{
	const Options &o = options_of(td_);
	int ret = rpma_ep_listen(peer_, o.serverip, port_.c_str(), &ep_);
	if (ret == RPMA_E_PROVIDER && errno == EADDRINUSE)
		return rpma_failed(td_, "rpma_ep_listen", ret,
				   "cannot listen on %s:%s: the port is in use "
				   "(another server, or one still ending); stop it or "
				   "choose another port=",
				   o.serverip, port_.c_str());
	if (ret)
		return rpma_failed(td_, "rpma_ep_listen", ret, "cannot listen on %s:%s", o.serverip,
				   port_.c_str());
	if (allow_ && (ret = rpma_ep_set_peer_filter(ep_, allowed, this)))
		return rpma_failed(td_, "rpma_ep_set_peer_filter", ret);
	int fd;
	rpma_ep_get_fd(ep_, &fd);
	// a wake takes every request that waits (wait()), the last take
	// finding none: it must not block until the next client comes
	if (const int flags = fcntl(fd, F_GETFL);
	    flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK)) {
		const int err = errno;
		return fail(td_, err, "fcntl",
			    "cannot make the listening endpoint non-blocking: %s",
			    std::strerror(err));
	}
	if (int err = waits_.add(fd, tag(0, LISTENER)))
		return fail(td_, err, "epoll", "cannot wait on the listening endpoint: %s",
			    std::strerror(err));
	return Result::DONE;
}

void Server::stop_listening()
{
	int fd;
	if (ep_ && !paused_ && rpma_ep_get_fd(ep_, &fd) == 0)
		waits_.remove(fd);
	rpma_ep_shutdown(&ep_);
	paused_ = false;
}

void Server::listen_as_places_allow()
{
	int fd;
	if (!ep_ || rpma_ep_get_fd(ep_, &fd))
		return;
	if (!free_.empty()) {
		// a failure to watch it again leaves the job to runtime=, told
		if (paused_) {
			if (int err = waits_.add(fd, tag(0, LISTENER))) {
				report(td_, "cannot wait on the listening endpoint again: %s",
				       std::strerror(err));
				return;
			}
			paused_ = false;
		}
		return;
	}
	for (const auto &c : conns_)
		if (c->state == Connection::State::Connecting) {
			if (!paused_)
				waits_.remove(fd);
			paused_ = true;
			return;
		}
	stop_listening(); // every place holds a connection made: nobody else may come
}

Result Server::next_request(rpma_conn_req **req)
{
	rpma_conn_cfg *cfg;
	int ret = rpma_conn_cfg_new(&cfg);
	if (ret)
		return rpma_failed(td_, "rpma_conn_cfg_new", ret);
	configure(cfg);
	ret = rpma_ep_next_conn_req(ep_, cfg, req);
	rpma_conn_cfg_delete(&cfg);
	if (refused_told_ == 0 && refused_ > 0)
		tell_refused(true); // the first at once, the others counted
	if (ret == RPMA_E_NO_EVENT)
		return Result::RETRY;
	if (!ret)
		return Result::DONE;
	*req = nullptr;
	// its client gave up meanwhile (its request waited past RDMA-CM's
	// timeout in a slow host), or the device is out of queues: its client
	// may try again, into the same place
	if (ret == RPMA_E_INVAL)
		return rpma_failed(td_, "rpma_ep_next_conn_req", ret);
	request_lost(std::string("could not be taken (") + rpma_err_2str(ret) + ")");
	return Result::DONE;
}

bool Server::first_lost(bool *told)
{
	lost_++;
	if (*told)
		return false;
	*told = true;
	lost_told_++;
	told_at_ = Clock::now();
	return true;
}

void Server::request_lost(const std::string &what)
{
	if (first_lost(&told_not_taken_))
		note("%s[%u]: a connection request to %s:%s %s; its client may try again\n",
		     td_->io_ops->name, td_->thread_number, options_of(td_).serverip, port_.c_str(),
		     what.c_str());
}

void Server::tell_lost(bool now_or_never)
{
	const auto now = Clock::now();
	if (lost_ == lost_told_ || (!now_or_never && now - told_at_ < LOST_TELL_PERIOD))
		return;
	note("%s[%u]: %llu more connection requests to %s:%s came to nothing (not taken, or "
	     "never completed, their places given back)\n",
	     td_->io_ops->name, td_->thread_number,
	     static_cast<unsigned long long>(lost_ - lost_told_), options_of(td_).serverip,
	     port_.c_str());
	lost_told_ = lost_;
	told_at_ = now;
}

int Server::allowed(const sockaddr *src, void *server)
{
	auto *s = static_cast<Server *>(server);
	if (s->allow_->allows(src))
		return 1;
	s->refused_++;
	std::string from = address_text(src);
	if (from.empty())
		from = "an address of family " + std::to_string(src ? src->sa_family : 0);
	auto &told = s->refused_from_;
	if (std::find(told.begin(), told.end(), from) == told.end()) {
		if (told.size() < REFUSED_SOURCES_TOLD)
			told.push_back(std::move(from));
		else
			s->refused_elsewhere_ = true;
	}
	return 0;
}

void Server::tell_refused(bool now_or_never)
{
	const auto now = Clock::now();
	if (refused_ == refused_told_ ||
	    (!now_or_never && now - refused_told_at_ < LOST_TELL_PERIOD))
		return;
	std::string from;
	for (const std::string &a : refused_from_)
		from += (from.empty() ? "" : ", ") + a;
	if (refused_elsewhere_)
		from += " and elsewhere";
	const uint64_t n = refused_ - refused_told_;
	const std::string more = "; more are counted, told every " +
				 std::to_string(LOST_TELL_PERIOD.count()) + " s";
	note("%s[%u]: refused %llu%s connection request%s to %s:%s from outside allow=%s (from "
	     "%s)%s\n",
	     td_->io_ops->name, td_->thread_number, static_cast<unsigned long long>(n),
	     refused_told_ ? " more" : "", n == 1 ? "" : "s", options_of(td_).serverip,
	     port_.c_str(), allow_->str().c_str(), from.c_str(), refused_told_ ? "" : more.c_str());
	refused_told_ = refused_;
	refused_told_at_ = now;
	refused_from_.clear();
	refused_elsewhere_ = false;
}

Result Server::accept_one()
{
	// Invariant: the endpoint is watched only while a place is free.
	assert(!free_.empty());
	Connection &c = *conns_[free_.back()];
	assert(c.state == Connection::State::Waiting);
	if (Result r = prepare(c); r != Result::DONE)
		return r;
	rpma_conn_req *req;
	Result r = next_request(&req);
	if (r != Result::DONE || !req) // none, or one that could not be taken
		return r;
	std::vector<uint8_t> ws;
	bool lost = false;
	if ((r = accepting(c, req)) != Result::DONE ||
	    (r = open_window(c, req, &lost)) != Result::DONE || lost ||
	    (r = workspace_of(c, &ws)) != Result::DONE) {
		rpma_conn_req_delete(&req);
		c.window.reset();
		return r;
	}
	rpma_conn_private_data pdata{ws.data(), static_cast<uint8_t>(ws.size())};
	if (int ret = rpma_conn_req_connect(&req, &pdata, &c.conn)) {
		c.window.reset();
		if (ret == RPMA_E_INVAL)
			return rpma_failed(td_, "rpma_conn_req_connect", ret);
		request_lost(std::string("could not be accepted (") + rpma_err_2str(ret) + ")");
		return Result::DONE;
	}
	free_.pop_back();
	if (clients() == 1) {
		c.name = "the client";
	} else {
		char name[96];
		std::snprintf(name, sizeof(name), "client %zu of %zu at %s:%s", c.index + 1,
			      clients(), options_of(td_).serverip, port_.c_str());
		c.name = name;
	}
	c.state = Connection::State::Connecting;
	live_++;
	c.since = Clock::now();
	if (first_came_ == Clock::time_point{})
		first_came_ = c.since;
	listen_as_places_allow();
	return watch(c);
}

void Server::give_back(Connection &c, const char *why)
{
	if (first_lost(&told_never_completed_)) {
		const std::string addr = c.conn ? peer_address(dev_, c.qp) : "";
		note("%s[%u]: a connection request to %s:%s%s%s%s never completed, its place given "
		     "back (%s)\n",
		     td_->io_ops->name, td_->thread_number, options_of(td_).serverip, port_.c_str(),
		     addr.empty() ? "" : " (from ", addr.c_str(), addr.empty() ? "" : ")", why);
	}
	// Invariant: only a connection being made gives its place back.
	assert(c.state == Connection::State::Connecting);
	close_connection_of(c);
	c.state = Connection::State::Waiting;
	c.name.clear();
	c.probe = Probe();
	c.probe_failed = IBV_WC_SUCCESS;
	live_--;
	free_.push_back(c.index);
	listen_as_places_allow();
}

// c's connection is made: its descriptors join the wait set.
Result Server::watch(Connection &c)
{
	rpma_conn_get_event_fd(c.conn, &c.event_fd);
	rpma_conn_get_cq(c.conn, &c.cq);
	rpma_cq_get_fd(c.cq, &c.cq_fd);
	rpma_conn_get_qp_num(c.conn, &c.qp);
	by_qp_[c.qp] = c.index;
	if (wait_on(c, c.event_fd, EVENTS) && completions_wake())
		watch_completions(c, true);
	return Result::DONE;
}

bool Server::wait_on(Connection &c, int fd, Kind kind)
{
	const int err = waits_.add(fd, tag(c.index, kind));
	if (err)
		lose(c, err, "cannot be waited on (%s): raise the limit of open files?",
		     std::strerror(err));
	return !err;
}

void Server::watch_completions(Connection &c, bool on)
{
	if (c.cq_watched == on || !c.live())
		return;
	if (on) {
		c.cq_watched = wait_on(c, c.cq_fd, COMPLETIONS);
	} else {
		waits_.remove(c.cq_fd);
		c.cq_watched = false;
	}
}

// The serving loop: work while there is some, otherwise spin or sleep on
// the wait set.
Result Server::serve()
{
	if (const int fd = flavour_fd(); fd >= 0) {
		if (int err = waits_.add(fd, tag(0, FLAVOUR)))
			return fail(td_, err, "epoll", "cannot wait on the flavour's queue: %s",
				    std::strerror(err));
	}
	const bool spin = may_spin() && options_of(td_).busy_wait_polling;
	// A spinning loop looks at the wait set after EVENT_CHECK_INTERVAL
	// turns, a sleeping one whenever there is no work; a turn that took a
	// full batch (more may wait) counts as FULL_BATCH_TURNS, so that a
	// loop kept busy by its clients looks every 16 batches (256 requests)
	// however slowly it takes them: accepting, the connections' events and
	// the tick are never kept out.
	constexpr unsigned FULL_BATCH_TURNS = EVENT_CHECK_INTERVAL / 16;
	unsigned turns = 0;
	// fio ending the job (a signal, exitall=, a trigger, a remote client
	// gone) ends the serving, not the verdict on the clients lost so far
	while (!finished() && !td_->terminate) {
		const Result r = do_work();
		if (failed(r))
			return r;
		turns += r == Result::DONE ? FULL_BATCH_TURNS : 1;
		const bool due = turns >= EVENT_CHECK_INTERVAL;
		if (due)
			turns = 0;
		if (!due && (r == Result::DONE || spin))
			continue;
		if (failed(wait(r == Result::RETRY && !spin ? -1 : 0)))
			return Result::FAILED;
	}
	return verdict();
}

Result Server::verdict()
{
	tell_lost(true);
	tell_refused(true);
	unsigned lost = 0;
	int err = 0;
	for (const auto &c : conns_)
		if (c->state == Connection::State::Failed && !lost++)
			err = c->err;
	if (gave_up_ && !lost)
		return job_failed(td_, ETIMEDOUT, "accept");
	if (!lost)
		return Result::DONE;
	if (clients() == 1)
		return job_failed(td_, err, "client");
	return fail(td_, err ? err : EIO, "clients",
		    "%u of %zu clients of %s:%s failed (named above); %s", lost, clients(),
		    options_of(td_).serverip, port_.c_str(),
		    finished() ? "the others ended their runs"
			       : "fio ended the job before the others");
}

Result Server::do_work()
{
	working_ = true;
	const Result r = work();
	working_ = false;
	return r;
}

bool Server::finished() const
{
	return (free_.empty() || gave_up_) && live_ == 0;
}

Result Server::wait(int timeout_ms)
{
	const int n = waits_.wait(timeout_ms);
	if (n < 0) {
		const int err = errno;
		return fail(td_, err, "epoll", "epoll_wait: %s", std::strerror(err));
	}
	bool tick = false;
	for (int i = 0; i < n; i++) {
		const uint64_t t = waits_.tag(i);
		if (t == WaitSet::TICK) {
			tick = true;
			continue;
		}
		Connection &c = *conns_[t >> KIND_BITS];
		Result r = Result::DONE;
		switch (static_cast<Kind>(t & ((1 << KIND_BITS) - 1))) {
		case LISTENER:
			// A batch of the requests that wait, each one's client
			// waiting against its timeout: a bounded one, so that a flood
			// of requests (a stranger's) cannot keep the thread from its
			// clients; the endpoint stays readable for the rest. It may
			// have gone or paused in this batch, or with the last one
			// taken.
			for (unsigned taken = 0; taken < ACCEPTS_PER_WAKE && ep_ && !paused_ &&
						 (r = accept_one()) == Result::DONE;
			     taken++) {
			}
			if (r == Result::RETRY)
				r = Result::DONE;
			break;
		case FLAVOUR:
			r = flavour_ready();
			break;
		case EVENTS:
			// c may have been closed in this batch
			if (c.live())
				r = conn_event(c);
			break;
		case COMPLETIONS:
			if (c.live()) {
				const int ret = rpma_cq_wait(c.cq); // acks the event and re-arms
				if (ret && ret != RPMA_E_NO_COMPLETION)
					return rpma_failed(td_, "rpma_cq_wait", ret);
				r = take_completions(c);
			}
			break;
		default:
			assert(false);
		}
		if (failed(r))
			return r;
	}
	if (!tick)
		return Result::DONE;
	waits_.take_tick();
	return checks();
}

Result Server::conn_event(Connection &c)
{
	rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	int ret = rpma_conn_next_event(c.conn, &ev);
	if (ret == RPMA_E_NO_EVENT)
		return Result::DONE;
	if (ret) {
		lose(c, EIO, "had its connection's events fail (%s)", rpma_err_2str(ret));
		return Result::DONE;
	}
	if (c.state == Connection::State::Connecting && ev == RPMA_CONN_ESTABLISHED) {
		c.state = Connection::State::Serving;
		if (free_.empty())
			listen_as_places_allow();
		if (++established_ == clients() && clients() > 1)
			note("%s[%u]: all %zu clients connected, %.3f s after the first one came\n",
			     td_->io_ops->name, td_->thread_number, clients(),
			     std::chrono::duration<double>(Clock::now() - first_came_).count());
		return established(c);
	}
	// A client that did all it had to may close before the server sees
	// its connection come up (rdma_cm then never says ESTABLISHED):
	// ended() judges it by its run, as any other end.
	if (c.state == Connection::State::Connecting && ev != RPMA_CONN_CLOSED) {
		give_back(c, rpma_utils_conn_event_2str(ev));
		return Result::DONE;
	}
	return ended(c, ev);
}

// What c's connection event ev means for its run, once what c sent before
// it has been taken: its end-of-run request may wait behind any number of
// completions (a server that slept while the client took its last answers
// and ended). The flavour's queue holds at most clients() * receives()
// requests, so that many polls take every one queued before the event
// even while the other clients keep sending.
Result Server::ended(Connection &c, rpma_conn_event ev)
{
	// Invariant: never inside work(), whose batch of requests must be
	// answered in each client's order before any later one is taken.
	assert(!working_);
	const size_t polls = clients() * receives(c) / WC_BATCH + 1;
	for (size_t i = 0; i < polls; i++) {
		const Result r = do_work();
		if (failed(r))
			return r;
		if (r == Result::RETRY)
			break;
	}
	// what it sent last may have failed it: that stands
	if (!c.live())
		return Result::DONE;
	const bool good = ev == RPMA_CONN_CLOSED && ended_run(c);
	if (!c.live())
		return Result::DONE;
	if (good) {
		end_well(c);
	} else if (ev == RPMA_CONN_CLOSED) {
		lose(c, ECONNRESET, "disconnected before ending the run (was it killed?)");
	} else {
		lose(c, ECONNRESET, "lost its connection (%s)", rpma_utils_conn_event_2str(ev));
	}
	return Result::DONE;
}

Result Server::take_completions(Connection &c)
{
	ibv_wc wc[WC_BATCH];
	for (;;) {
		if (!c.live() || !c.cq)
			return Result::DONE;
		int got = 0;
		int ret = rpma_cq_get_wc(c.cq, WC_BATCH, wc, &got);
		if (ret == RPMA_E_NO_COMPLETION)
			return Result::DONE;
		if (ret)
			return rpma_failed(td_, "rpma_cq_get_wc", ret);
		const bool drained = got < WC_BATCH;
		for (int i = 0; i < got && c.live(); i++) {
			if (wc[i].wr_id != reinterpret_cast<uintptr_t>(&c)) {
				if (failed(completion(c, wc[i])))
					return Result::FAILED;
				continue;
			}
			const auto now = Clock::now();
			c.probe.completed(now);
			if (wc[i].status == IBV_WC_SUCCESS || c.probe_failed)
				continue;
			// A disconnect fails the probe too, and that event, if it
			// comes within DISCONNECT_GRACE, says more: the checks
			// judge the probe only then.
			c.probe_failed = wc[i].status;
			c.since = now;
		}
		if (drained)
			return Result::DONE;
	}
}

Result Server::checks()
{
	if (failed(link_check()))
		return Result::FAILED;
	const auto now = Clock::now();
	const Options &o = options_of(td_);
	tell_lost(false);
	tell_refused(false);
	// the last connection being made may have ended otherwise (lose())
	if (paused_)
		listen_as_places_allow();
	if (ep_ && td_->o.timeout &&
	    now - listening_since_ > std::chrono::microseconds(td_->o.timeout)) {
		// those that came are served to their end; the job fails then
		report(td_, "%zu of %zu clients connected to %s:%s within runtime=%llus",
		       clients() - free_.size(), clients(), o.serverip, port_.c_str(),
		       td_->o.timeout / 1000000);
		stop_listening();
		gave_up_ = true;
	}
	for (const auto &c : conns_)
		if (failed(check_connection(*c, now)))
			return Result::FAILED;
	return Result::DONE;
}

Result Server::check_connection(Connection &c, Clock::time_point now)
{
	// A client whose messages come is connected, whatever the server's
	// end has heard: the handshake's last message (the RTU, which makes
	// the server's end ESTABLISHED) may be lost, and RDMA-CM sends its
	// answer again only every few seconds
	const unsigned handshake_timeout = options_of(td_).handshake_timeout;
	if (c.state == Connection::State::Connecting && signs_of(c) == 0 &&
	    now - c.since > std::chrono::seconds(handshake_timeout)) {
		const std::string why = "no answer within " + std::to_string(handshake_timeout) +
					" s; handshake_timeout= sets how long";
		give_back(c, why.c_str());
		return Result::DONE;
	}
	if (c.state != Connection::State::Serving)
		return Result::DONE;
	if (failed(take_completions(c)))
		return Result::FAILED;
	if (!c.live())
		return Result::DONE;
	if (c.probe_failed) {
		if (now - c.since > DISCONNECT_GRACE)
			went_silent(c, ibv_wc_status_str(c.probe_failed));
		return Result::DONE;
	}
	switch (c.probe.due(signs_of(c), now)) {
	case Probe::Due::NOTHING:
		return Result::DONE;
	case Probe::Due::LATE:
		went_silent(c, Probe::late_why().c_str());
		return Result::DONE;
	case Probe::Due::SEND:
		break;
	}
	int ret = rpma_write(c.conn, nullptr, 0, nullptr, 0, 0, RPMA_F_COMPLETION_ALWAYS, &c);
	if (ret) {
		lose(c, ECONNRESET, "cannot be probed (%s)", rpma_err_2str(ret));
		return Result::DONE;
	}
	c.probe.sent(now);
	return Result::DONE;
}

// A client whose end of run came lost only its disconnect on the way:
// RDMA-CM sends a lost disconnect request again only seconds later, a
// client waits for its answer only GOODBYE_TIMEOUT_MS, and a loaded link
// may drop it (256 clients ending together over three guests).
void Server::went_silent(Connection &c, const char *why)
{
	if (!said_end(c)) {
		lose(c, ETIMEDOUT, "stopped answering (%s): it or the network is gone", why);
		return;
	}
	note("%s[%u]: %s ended its run, then stopped answering (%s): its disconnect never came\n",
	     td_->io_ops->name, td_->thread_number, c.name.c_str(), why);
	end_well(c);
}

void Server::end_well(Connection &c)
{
	c.state = Connection::State::Ended;
	live_--;
	close_connection_of(c);
}

Result Server::link_check()
{
	if (!link_.down())
		return Result::DONE;
	return fail(td_, ENETDOWN, "link",
		    "the RDMA link of %s went down (its port is not active): the "
		    "clients cannot reach this server any more",
		    options_of(td_).serverip);
}

Connection *Server::connection_of_qp(uint32_t qp, size_t likely)
{
	if (likely < conns_.size() && conns_[likely]->conn && conns_[likely]->qp == qp)
		return conns_[likely].get();
	auto it = by_qp_.find(qp);
	return it == by_qp_.end() ? nullptr : conns_[it->second].get();
}

void Server::lose(Connection &c, int err, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	std::vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (clients() == 1) {
		report(td_, "%s %s", c.name.c_str(), what);
	} else {
		// looked up only now: the kernel's list of every connection
		// costs a connection taken in a crowd more than its accept
		const std::string addr = c.conn ? peer_address(dev_, c.qp) : "";
		report(td_, "%s%s%s%s: %s; the others go on", c.name.c_str(),
		       addr.empty() ? "" : " (from ", addr.c_str(), addr.empty() ? "" : ")", what);
	}
	if (c.live())
		live_--;
	c.state = Connection::State::Failed;
	c.err = err;
	close_connection_of(c);
}

void Server::close_connection_of(Connection &c)
{
	dropped(c);
	if (!c.conn)
		return;
	by_qp_.erase(c.qp);
	if (c.event_fd >= 0)
		waits_.remove(c.event_fd);
	if (c.cq_watched)
		waits_.remove(c.cq_fd);
	c.cq_watched = false;
	close_connection(&c.conn);
	// its key dead with the queue pair already; the next client of this
	// place gets a window of its own
	c.window.reset();
	c.cq = nullptr;
	c.event_fd = c.cq_fd = -1;
}

void Server::close_all()
{
	for (auto &c : conns_)
		close_connection_of(*c);
	stop_listening();
}

// All of the job's I/O is the serving of its connections.
fio_q_status Server::queue(thread_data *td, io_u *)
{
	Server *s = server_of(td);
	if (!s->served_) {
		s->served_ = true;
		// a failed serve() has set the job's error (report.hh), which
		// fio's exit status shows; the I/O itself has nothing to add
		(void)s->serve();
	}
	td->done = 1;
	return FIO_Q_COMPLETED;
}

// Every client that ended well has been closed at its disconnect; the
// others are disconnected at once: after a failure a client may be
// waiting for an answer.
int Server::close_file(thread_data *td, fio_file *)
{
	server_of(td)->close_all();
	return 0;
}

int Server::invalidate(thread_data *, fio_file *)
{
	return 0;
}

void Server::cleanup(thread_data *td)
{
	if (!fio_known_good())
		return;
	delete server_of(td);
	td->io_ops_data = nullptr;
}

}
