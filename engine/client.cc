// SPDX-License-Identifier: BSD-3-Clause
#include "client.hh"
#include "conn_events.hh"
#include "guard.hh"
#include "options.hh"
#include "report.hh"

#include <librpma_private.h>

#include <poll.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

namespace rpma_fio {

namespace {

Client *client_of(thread_data *td)
{
	return static_cast<Client *>(td->io_ops_data);
}

const void *ctx(uint64_t token)
{
	return reinterpret_cast<const void *>(token);
}

constexpr auto RETRY_PAUSE = std::chrono::milliseconds(250);

}

Client::~Client()
{
	release_buffers();
	for (Target &t : targets_)
		rpma_mr_remote_delete(&t.remote);
	rpma_peer_delete(&peer_);
}

void Client::drop_connection()
{
	for (Target &t : targets_) {
		close_connection(&t.conn);
		t.cq = nullptr;
	}
}

void Client::release_buffers()
{
	drop_connection();
	rpma_mr_dereg(&local_);
	rpma_mr_dereg(&stage_mr_);
}

int Client::init(thread_data *td, std::unique_ptr<Client> (*make)())
{
	if (td_trim(td))
		return fio_status(fail(td, EINVAL, "Not supported mode.",
				       "trim is not supported (rw=%s)",
				       ddir_str(static_cast<td_ddir>(td->o.td_ddir))));
	setup_rpma_logging();
	std::unique_ptr<Client> c = make();
	c->td_ = td;
	c->busy_poll_ = options_of(td).busy_wait_polling;
	if (Result r = c->parse_targets(); r != Result::DONE)
		return fio_status(r);
	if (Result r = c->check_job(); r != Result::DONE)
		return fio_status(r);
	if (Result r = c->connect(); r != Result::DONE)
		return fio_status(r);
	td->io_ops_data = c.release();
	return 0;
}

namespace {

// The items of a list separated by commas ("" -> one empty item).
std::vector<std::string> split_list(const char *text)
{
	std::vector<std::string> items(1);
	for (const char *c = text; *c; c++) {
		if (*c == ',')
			items.emplace_back();
		else
			items.back() += *c;
	}
	return items;
}

}

// serverip=A[,B,C] and port=P or P1,P2,P3: each target's address and port,
// its port chosen as a single server's (job_port) from its own base.
Result Client::parse_targets()
{
	const Options &o = options_of(td_);
	if (!o.serverip || !*o.serverip)
		return fail(td_, EINVAL, "serverip", "serverip= is not set");
	const std::vector<std::string> ips = split_list(o.serverip);
	const std::vector<std::string> ports = split_list(o.port ? o.port : "");
	if (ips.size() > max_targets()) {
		if (max_targets() == 1)
			return fail(td_, EINVAL, "serverip",
				    "serverip=%s: %zu servers: only librpma_aof_client appends to "
				    "replicas",
				    o.serverip, ips.size());
		return fail(td_, EINVAL, "serverip",
			    "serverip=%s: %zu servers: a log has 1 to %u replicas", o.serverip,
			    ips.size(), max_targets());
	}
	for (const std::string &ip : ips)
		if (ip.empty())
			return fail(td_, EINVAL, "serverip", "serverip=%s: an empty address",
				    o.serverip);
	if (ports.size() != 1 && ports.size() != ips.size())
		return fail(
			td_, EINVAL, "port",
			"port=%s: %zu ports for %zu servers (one port for all, or one for each)",
			o.port, ports.size(), ips.size());
	ntargets_ = static_cast<unsigned>(ips.size());
	for (unsigned t = 0; t < ntargets_; t++) {
		Target &x = targets_[t];
		x.ip = ips[t];
		x.port = job_port(td_, ports.size() == 1 ? o.port : ports[t].c_str(),
				  o.port_per_job);
		if (x.port.empty())
			return Result::FAILED;
		for (unsigned u = 0; u < t; u++)
			if (targets_[u].ip == x.ip && targets_[u].port == x.port)
				return fail(
					td_, EINVAL, "serverip",
					"%s:%s is named twice: each replica is a log of its own",
					x.ip.c_str(), x.port.c_str());
	}
	return Result::DONE;
}

// Connects to every target (one by one: connecting is not the data path),
// all reached through one RDMA device, whose peer registers fio's buffers
// once.
Result Client::connect()
{
	const Options &o = options_of(td_);
	ibv_context *dev = nullptr;
	for (unsigned t = 0; t < ntargets_; t++) {
		ibv_context *its;
		const char *ip = targets_[t].ip.c_str();
		int ret = rpma_utils_get_ibv_context(ip, RPMA_UTIL_IBV_CONTEXT_REMOTE, &its);
		if (ret)
			return rpma_failed(td_, "rpma_utils_get_ibv_context", ret,
					   "no RDMA device reaches serverip=%s", ip);
		if (dev && its != dev)
			return fail(td_, EINVAL, "serverip",
				    "serverip=%s: %s and %s are reached through different RDMA "
				    "devices: the replicas must share one",
				    o.serverip, targets_[0].ip.c_str(), ip);
		dev = its;
	}
	int ret;
	// native_ops= applies to this job's peer alone; unset, the library
	// reads RPMA_NATIVE_OPS as for any program
	if (o.native_ops & NATIVE_OPS_SET) {
		const int ops = static_cast<int>(o.native_ops & ~NATIVE_OPS_SET);
		if ((ret = rpma_peer_new_with_native_ops(dev, ops, &peer_)))
			return rpma_failed(td_, "rpma_peer_new_with_native_ops", ret);
	} else if ((ret = rpma_peer_new(dev, &peer_))) {
		return rpma_failed(td_, "rpma_peer_new", ret);
	}
	link_.watch(dev, targets_[0].ip.c_str(), false);

	rpma_conn_cfg *cfg;
	if ((ret = rpma_conn_cfg_new(&cfg)))
		return rpma_failed(td_, "rpma_conn_cfg_new", ret);
	QueueSizes q = queue_sizes(td_->o.iodepth);
	rpma_conn_cfg_set_sq_size(cfg, q.sq);
	rpma_conn_cfg_set_rq_size(cfg, q.rq);
	rpma_conn_cfg_set_cq_size(cfg, q.cq);

	// an append-only-log client says which method it wants; an APM
	// client, that it will say when its run ended
	std::optional<std::array<uint8_t, CONN_REQUEST_SIZE>> ask;
	if (aof_mode() != AofMode::NONE)
		ask = encode_aof_request({aof_mode(), td_write(td_) != 0});
	else if (sends_end_notice())
		ask = encode_end_notice_request();
	rpma_conn_private_data request{};
	if (ask)
		request = {ask->data(), static_cast<uint8_t>(ask->size())};

	const bool iwarp = dev->device->transport_type == IBV_TRANSPORT_IWARP;
	Result res = Result::DONE;
	for (unsigned t = 0; t < ntargets_ && res == Result::DONE; t++)
		res = connect_target(t, cfg, request, iwarp);
	rpma_conn_cfg_delete(&cfg);
	if (res != Result::DONE)
		return res;
	tell_native_ops();
	for (unsigned t = 0; t < ntargets_; t++)
		if (Result r = accept_target(t); r != Result::DONE)
			return r;
	return Result::DONE;
}

// Connects to target t, retrying while nobody listens there yet (the
// server may still be starting) for up to connect_timeout seconds.
Result Client::connect_target(unsigned t, rpma_conn_cfg *cfg, const rpma_conn_private_data &request,
			      bool iwarp)
{
	const Options &o = options_of(td_);
	Target &x = targets_[t];
	const char *ip = x.ip.c_str(), *port = x.port.c_str();
	const auto start = Clock::now();
	const auto deadline = start + std::chrono::seconds(o.connect_timeout);
	bool waiting_told = false;
	Result res = Result::DONE;
	int ret;
	for (;;) {
		rpma_conn_req *req;
		if ((ret = rpma_conn_req_new(peer_, ip, port, cfg, &req))) {
			res = rpma_failed(td_, "rpma_conn_req_new", ret);
			break;
		}
		rpma_conn_event ev = RPMA_CONN_UNDEFINED;
		ret = rpma_conn_req_connect(&req, request.len ? &request : nullptr, &x.conn);
		const int err = errno; // the provider's, with RPMA_E_PROVIDER
		if (ret == RPMA_E_PROVIDER && iwarp && err == ECONNREFUSED) {
			// iWARP connects over TCP inside rdma_connect: a server not
			// listening yet fails the call (a TCP reset) instead of
			// rejecting; any other error is no server to wait for
			ev = RPMA_CONN_REJECTED;
		} else if (ret) {
			res = ret == RPMA_E_PROVIDER
				      ? rpma_failed(td_, "rpma_conn_req_connect", ret,
						    "connecting to %s:%s failed: %s", ip, port,
						    std::strerror(err))
				      : rpma_failed(td_, "rpma_conn_req_connect", ret);
			break;
		} else {
			res = next_conn_event(td_, x.conn, ms_left(deadline) + HANDSHAKE_TIMEOUT_MS,
					      &ev);
		}
		if (res == Result::RETRY) {
			res = fail(td_, ETIMEDOUT, "connect", "%s:%s does not answer", ip, port);
		}
		if (res != Result::DONE || ev == RPMA_CONN_ESTABLISHED)
			break;
		rpma_conn_delete(&x.conn);
		if (ev != RPMA_CONN_REJECTED && ev != RPMA_CONN_UNREACHABLE) {
			res = fail(td_, ECONNREFUSED, "connect", "connecting to %s:%s: %s", ip,
				   port, rpma_utils_conn_event_2str(ev));
			break;
		}
		if (td_->terminate) {
			res = job_failed(td_, EINTR, "connect");
			break;
		}
		if (ms_left(deadline) == 0) {
			res = fail(td_, ECONNREFUSED, "connect",
				   "no server listens at %s:%s (gave up after %u s; "
				   "connect_timeout= sets how long to wait)",
				   ip, port, o.connect_timeout);
			break;
		}
		if (!waiting_told) {
			note("%s[%u]: waiting for the server at %s:%s (up to %u s)\n",
			     td_->io_ops->name, td_->thread_number, ip, port, o.connect_timeout);
			waiting_told = true;
		}
		std::this_thread::sleep_for(
			std::min<Clock::duration>(RETRY_PAUSE, deadline - Clock::now()));
	}
	if (res == Result::DONE && waiting_told)
		note("%s[%u]: connected after %.1f s\n", td_->io_ops->name, td_->thread_number,
		     std::chrono::duration<double>(Clock::now() - start).count());
	return res;
}

// What target t's server describes of its memory, checked.
Result Client::accept_target(unsigned t)
{
	Target &x = targets_[t];
	rpma_conn_private_data pdata{};
	rpma_conn_get_private_data(x.conn, &pdata);
	std::optional<Workspace> ws = decode_workspace(pdata.ptr, pdata.len);
	if (!ws)
		return fail(td_, EPROTO, "connect",
			    "%s:%s accepted without describing its memory "
			    "(%u bytes of private data): is it a librpma fio server?",
			    x.ip.c_str(), x.port.c_str(), pdata.len);
	if (Result r = check_server(*ws, x); r != Result::DONE)
		return r;
	int ret;
	if ((ret = rpma_mr_remote_from_descriptor(ws->descriptor.data(), ws->descriptor.size(),
						  &x.remote)))
		return rpma_failed(td_, "rpma_mr_remote_from_descriptor", ret);
	size_t size;
	rpma_mr_remote_get_size(x.remote, &size);
	if (ws->log_offset >= size)
		return fail(td_, EPROTO, "connect",
			    "the server's log has no room for records (%zu bytes, the first %u "
			    "of them its tail pointer's)",
			    size, ws->log_offset);
	x.base = ws->log_offset;
	const uint64_t room = size - ws->log_offset;
	remote_size_ = t == 0 ? room : std::min(remote_size_, room);
	if ((ret = rpma_conn_get_cq(x.conn, &x.cq)))
		return rpma_failed(td_, "rpma_conn_get_cq", ret);
	return connected(*ws, t);
}

Result Client::check_server(const Workspace &ws, const Target &target)
{
	const char *ip = target.ip.c_str();
	const std::string &port = target.port;
	if (ws.aof == aof_mode())
		return Result::DONE;
	if (aof_mode() == AofMode::NONE)
		return fail(td_, EPROTO, "connect",
			    "%s:%s is an append-only-log server (librpma_aof_server, aof_mode=%s): "
			    "connect librpma_aof_client to it",
			    ip, port.c_str(), aof_mode_name(ws.aof));
	if (ws.aof == AofMode::NONE)
		return fail(td_, EPROTO, "connect",
			    "%s:%s is not an append-only-log server: librpma_aof_client needs "
			    "librpma_aof_server",
			    ip, port.c_str());
	return fail(td_, EPROTO, "connect",
		    "%s:%s serves aof_mode=%s, this job has aof_mode=%s: both ends "
		    "must use the same",
		    ip, port.c_str(), aof_mode_name(ws.aof), aof_mode_name(aof_mode()));
}

namespace {

// How one operation goes: "native", or "emulated (why)".
std::string mechanism(int op, int used, int device, const std::string &chosen_by)
{
	if (used & op)
		return "native";
	if (!(device & op))
		return "emulated (not supported by the device)";
	return "emulated (not enabled by " + chosen_by + ")";
}

// native_ops=<its value>, or the environment's word
std::string native_ops_chooser(unsigned int option)
{
	if (option & NATIVE_OPS_SET)
		return native_ops_option(option);
	// read only: nothing in the process writes the environment
	const char *env = std::getenv("RPMA_NATIVE_OPS");
	return env ? std::string("RPMA_NATIVE_OPS=") + env
		   : std::string("native_ops= or RPMA_NATIVE_OPS");
}

}

// Once per job, on fio's info output (never inside a JSON report, see
// note()): what this job's flushes and atomic writes are made of.
void Client::tell_native_ops()
{
	if (const char *by = persistence_without_flush()) {
		note("%s[%u]: %s\n", td_->io_ops->name, td_->thread_number, by);
		return;
	}
	int used = 0, device = 0;
	rpma_peer_get_native_ops(peer_, &used, &device);
	const std::string chosen_by = native_ops_chooser(options_of(td_).native_ops);
	note("%s[%u]: flush %s, atomic write %s\n", td_->io_ops->name, td_->thread_number,
	     mechanism(RPMA_NATIVE_OP_FLUSH, used, device, chosen_by).c_str(),
	     mechanism(RPMA_NATIVE_OP_ATOMIC_WRITE, used, device, chosen_by).c_str());
}

int Client::post_init(thread_data *td)
{
	Client *c = client_of(td);
	const unsigned depth = td->o.iodepth;
	c->pending_.assign(depth, nullptr);
	c->inflight_.reserve(depth, c->flush_merge());
	c->local_base_ = td->orig_buffer;
	int ret = rpma_mr_reg(c->peer_, td->orig_buffer, td->orig_buffer_size,
			      RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC, &c->local_);
	if (ret)
		return fio_status(rpma_failed(td, "rpma_mr_reg", ret));
	if (c->replicated() && td_write(td)) {
		c->stage_slot_ = td->o.max_bs[DDIR_WRITE];
		c->stage_slots_ = 2 * static_cast<size_t>(depth) + 1;
		c->stage_.assign(c->stage_slot_ * c->stage_slots_, 0);
		ret = rpma_mr_reg(c->peer_, c->stage_.data(), c->stage_.size(),
				  RPMA_MR_USAGE_WRITE_SRC, &c->stage_mr_);
		if (ret)
			return fio_status(rpma_failed(td, "rpma_mr_reg", ret));
	}
	return 0;
}

// The server's region is the "file". fio sizes files before init when
// create_serialize=1 (its default), so before there is a server to ask.
int Client::get_file_size(thread_data *td, fio_file *f)
{
	if (Client *c = client_of(td))
		f->real_file_size = c->remote_size_;
	else if (td->o.size)
		f->real_file_size = td->o.start_offset + td->o.size;
	else {
		return fio_status(fail(td, EINVAL, "get_file_size",
				       "the size of the server's memory is known only once "
				       "connected: set size= or create_serialize=0"));
	}
	fio_file_set_size_known(f);
	return 0;
}

// The last moment to refuse a job whose range the server cannot hold,
// before any I/O.
int Client::open_file(thread_data *td, fio_file *f)
{
	Client *c = client_of(td);
	uint64_t end = f->file_offset + f->io_size;
	if (end < f->file_offset || end > c->remote_size_)
		return fio_status(fail(td, EINVAL, "open_file",
				       "offset %llu + size %llu reaches past the end of the "
				       "server's memory (%llu bytes): lower size=/offset=, or give "
				       "the server a larger size=",
				       (unsigned long long)f->file_offset,
				       (unsigned long long)f->io_size,
				       (unsigned long long)c->remote_size_));
	return fio_status(c->opened(f));
}

int Client::close_file(thread_data *, fio_file *)
{
	return 0;
}

fio_q_status Client::queue(thread_data *td, io_u *u)
{
	Client *c = client_of(td);
	fio_ro_check(td, u);
	// two calls (tail calls), so that this one needs no frame of its own
	return td->o.sync_io ? c->queue_sync(u) : c->queue_async(u);
}

// sync=0: posted at commit
fio_q_status Client::queue_async(io_u *u)
{
	if (npending_ == pending_.size()) [[unlikely]]
		return refuse(u);
	pending_[npending_++] = u;
	return FIO_Q_QUEUED;
}

// fio never queues more than iodepth
fio_q_status Client::refuse(io_u *u)
{
	(void)overflow();
	u->error = EIO;
	return FIO_Q_COMPLETED;
}

// sync=1: this io_u alone, and wait for it (nothing else is in flight).
// fio accounts it as it does for its synchronous engines: submitted and
// complete here, no submission latency, its latency from now.
fio_q_status Client::queue_sync(io_u *u)
{
	if (fio_fill_issue_time(td_))
		fio_gettime(&u->issue_time, nullptr);
	io_u_mark_submit(td_, 1);
	if (failed_ || (replicated() ? run_sync<true>(u) : run_sync<false>(u)) != Result::DONE)
		[[unlikely]] {
		abandon(); // nothing else is in flight, nothing to give back
		u->error = EIO;
	}
	io_u_mark_complete(td_, 1);
	return FIO_Q_COMPLETED;
}

// One I/O from post to completion, without the bookkeeping of I/Os in
// flight (InFlight, the rings): one operation of it is signaled, and the
// completion carrying its token ends it.
template <bool Replicas> Result Client::run_sync(io_u *u)
{
	switch (u->ddir) {
	case DDIR_READ: {
		if (Result r = read<Replicas>(u, RPMA_F_COMPLETION_ALWAYS, SYNC_TOKEN);
		    r != Result::DONE)
			return r;
		sync_reading_ = true;
		const Result r = sync_wait<Replicas>();
		sync_reading_ = false;
		return r;
	}
	case DDIR_WRITE:
		if (Result r = write<Replicas>(u); r != Result::DONE)
			return r;
		return sync_flush<Replicas>(u->offset, u->xfer_buflen);
	default: // fsync, fdatasync, sync_file_range: each write's flush completed
		return Result::DONE;
	}
}

// A GPSPM flush may have to wait for a send buffer: the SEND completion of
// the previous request may come after its response.
template <bool Replicas> Result Client::sync_flush(uint64_t offset, uint64_t length)
{
	Result r;
	uint64_t token;
	while ((r = post_flush({offset, length, SYNC_TOKEN})) == Result::RETRY)
		if ((r = sync_poll<Replicas>(&token)) != Result::DONE)
			return r;
	return r != Result::DONE ? r : sync_wait<Replicas>();
}

// Until the completion that carries a token.
template <bool Replicas> Result Client::sync_wait()
{
	uint64_t token = 0;
	while (!token)
		if (Result r = sync_poll<Replicas>(&token); r != Result::DONE)
			return r;
	return Result::DONE;
}

// Takes one completion, waiting for it: *token is what it carries (0: a
// completion that ends no I/O, a SEND's).
template <bool Replicas> Result Client::sync_poll(uint64_t *token)
{
	for (;;) {
		if (Replicas && released_) [[unlikely]] {
			*token = std::exchange(released_, 0);
			return Result::DONE;
		}
		for (unsigned t = 0; t < walked_targets<Replicas>(); t++) {
			if (Replicas && targets_[t].lost) [[unlikely]]
				continue;
			ibv_wc wc;
			int ret = rpma_cq_get_wc(targets_[t].cq, 1, &wc, nullptr);
			if (ret == 0) {
				completions_++;
				return completion_token<Replicas>(wc, t, token);
			}
			if (ret != RPMA_E_NO_COMPLETION) {
				*token = 0;
				return post_failed(t, "rpma_cq_get_wc", ret);
			}
		}
		if (Result r = idle(1); r != Result::DONE)
			return r;
	}
}

int Client::commit(thread_data *td)
{
	Client *c = client_of(td);
	const size_t n = c->npending_;
	if (n == 0)
		return 0;
	if (c->failed_) {
		c->abandon(); // they come back with EIO
		return 0;
	}
	// FIO_ASYNCIO_SETS_ISSUE_TIME: latencies start now, not at queue()
	if (fio_fill_issue_time(td)) {
		timespec now;
		fio_gettime(&now, nullptr);
		io_u **pending = c->pending_.data(); // not reloaded after each call
		for (size_t i = 0; i < n; i++) {
			pending[i]->issue_time = now;
			io_u_queued(td, pending[i]);
		}
	}
	io_u_mark_submit(td, n);
	const size_t posted = c->replicated() ? c->post<true>(c->pending_.data(), n)
					      : c->post<false>(c->pending_.data(), n);
	if (posted == n) [[likely]] {
		c->npending_ = 0;
		return 0;
	}
	// those not posted come back with EIO; the posted are in flight
	std::copy(c->pending_.begin() + static_cast<std::ptrdiff_t>(posted),
		  c->pending_.begin() + static_cast<std::ptrdiff_t>(n), c->pending_.begin());
	c->npending_ = n - posted;
	c->abandon();
	return -EIO;
}

// Returns how many of the batch went out: all, or those before the first
// that failed (reported).
template <bool Replicas> size_t Client::post(io_u *const *batch, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		Result r;
		switch (batch[i]->ddir) {
		case DDIR_READ:
			// a run of reads completes as one: only its last is signaled
			r = post_read<Replicas>(batch[i],
						i + 1 == n || batch[i + 1]->ddir != DDIR_READ);
			break;
		case DDIR_WRITE:
			r = post_write<Replicas>(batch[i]);
			break;
		default: // fsync, fdatasync, sync_file_range
			r = post_sync(batch[i]);
			break;
		}
		if (r != Result::DONE)
			return i;
	}
	return n;
}

// fio never has more than iodepth io_us out, which is what InFlight holds
Result Client::overflow()
{
	return fail(td_, EOVERFLOW, "queue", "more io_us in flight than iodepth=%u",
		    td_->o.iodepth);
}

// From one target: a replica's loss fails the reads in flight on it.
template <bool Replicas> Result Client::read(io_u *u, int flags, uint64_t token)
{
	const Target &x = targets_[Replicas ? reader_ : 0];
	int ret = rpma_read(x.conn, local_, static_cast<char *>(u->xfer_buf) - local_base_,
			    x.remote, x.base + u->offset, u->xfer_buflen, flags, ctx(token));
	return ret ? rpma_failed(td_, "rpma_read", ret) : Result::DONE;
}

// Never signaled: the flush after it is.
template <bool Replicas> Result Client::write(io_u *u)
{
	if (next_append_ != NOT_APPENDING) [[unlikely]] {
		if (u->offset != next_append_)
			return misplaced_append(u);
		next_append_ += u->xfer_buflen;
	}
	rpma_mr_local *src = local_;
	size_t src_offset = static_cast<char *>(u->xfer_buf) - local_base_;
	if (Replicas && stage_mr_) {
		// replicas: from a copy that outlives the io_u (stage_)
		src = stage_mr_;
		src_offset = (staged_++ % stage_slots_) * stage_slot_;
		std::memcpy(stage_.data() + src_offset, u->xfer_buf, u->xfer_buflen);
	}
	// to every target at once (replicas), each at the same offset
	for (unsigned t = 0; t < walked_targets<Replicas>(); t++) {
		const Target &x = targets_[t];
		if (Replicas && x.lost) [[unlikely]]
			continue;
		int ret = rpma_write(x.conn, x.remote, x.base + u->offset, src, src_offset,
				     u->xfer_buflen, RPMA_F_COMPLETION_ON_ERROR, nullptr);
		if (ret) [[unlikely]]
			if (Result r = post_failed(t, "rpma_write", ret); r != Result::DONE)
				return r;
	}
	return Result::DONE;
}

Result Client::post_failed(unsigned t, const char *call, int ret)
{
	if (!replicated())
		return rpma_failed(td_, call, ret);
	std::string why = std::string(call) + " failed: " + rpma_err_2str(ret);
	return lose_target(t, why.c_str());
}

Result Client::lose_target(unsigned t, const char *why)
{
	Target &x = targets_[t];
	if (x.lost)
		return Result::DONE;
	x.lost = true;
	// the device then writes nothing more for it; the messages' memory
	// stays registered until the job ends
	close_connection(&x.conn);
	x.cq = nullptr;
	uint64_t token = 0;
	if (Result r = target_lost(t, why, &token); r != Result::DONE)
		return r;
	if (t == reader_) {
		while (reader_ < ntargets_ && targets_[reader_].lost)
			reader_++;
		if (sync_reading_ || inflight_.reads_in_flight() != 0)
			return fail(td_, EIO, "replica",
				    "the reads in flight from %s:%s are lost with it", x.ip.c_str(),
				    x.port.c_str());
	}
	released_ = token;
	return Result::DONE;
}

Result Client::wait_alone()
{
	return replicated() ? sync_wait<true>() : sync_wait<false>();
}

Result Client::misplaced_append(const io_u *u)
{
	return fail(td_, EINVAL, "append",
		    "fio asked for a record at %llu bytes into the log, whose end is at %llu: an "
		    "append-only log takes each record right after the last (no hole, no step "
		    "back); a job option moves fio's offsets",
		    (unsigned long long)u->offset, (unsigned long long)next_append_);
}

// Each io_u is added to inflight_ only once its work request is out. One
// that fits no more is not added: commit() gives it back with the io_us
// not posted, once the queue pair that holds its request is gone.
template <bool Replicas> Result Client::post_read(io_u *u, bool signaled)
{
	if (Result r = read<Replicas>(u,
				      signaled ? RPMA_F_COMPLETION_ALWAYS
					       : RPMA_F_COMPLETION_ON_ERROR,
				      inflight_.next_read_token());
	    r != Result::DONE)
		return r;
	return inflight_.add_read(u) ? Result::DONE : overflow();
}

template <bool Replicas> Result Client::post_write(io_u *u)
{
	if (Result r = write<Replicas>(u); r != Result::DONE)
		return r;
	return inflight_.add_write(u, u->offset, u->xfer_buflen) ? Result::DONE : overflow();
}

Result Client::post_sync(io_u *u)
{
	return inflight_.add_sync(u) ? Result::DONE : overflow();
}

// As many as may go out now: DONE, or FAILED.
Result Client::post_flushes()
{
	while (inflight_.flush_waiting()) {
		Result r = post_flush(inflight_.next_flush());
		if (r == Result::RETRY)
			return Result::DONE;
		if (r != Result::DONE)
			return r;
		inflight_.flush_posted();
	}
	return Result::DONE;
}

Result Client::poll_batch()
{
	return replicated() ? poll_batch<true>() : poll_batch<false>();
}

template <bool Replicas> Result Client::poll_batch()
{
	Result polled = Result::RETRY;
	for (unsigned t = 0; t < walked_targets<Replicas>(); t++) {
		if (Replicas && targets_[t].lost) [[unlikely]]
			continue;
		ibv_wc wc[WC_BATCH];
		int got = 0;
		int ret = rpma_cq_get_wc(targets_[t].cq, WC_BATCH, wc, &got);
		if (ret == RPMA_E_NO_COMPLETION)
			continue;
		if (ret) {
			if (failed(post_failed(t, "rpma_cq_get_wc", ret)))
				return Result::FAILED;
			continue;
		}
		// a target lost on one of them leaves the rest unread: its
		// queue is gone
		for (int i = 0; i < got && !(Replicas && targets_[t].lost); i++)
			if (Result r = handle<Replicas>(wc[i], t); r != Result::DONE)
				return r;
		completions_ += got;
		polled = Result::DONE;
	}
	if (Replicas && released_) [[unlikely]] {
		inflight_.complete(std::exchange(released_, 0));
		polled = Result::DONE;
	}
	return polled;
}

// Called only when idle (nothing completed): the clock is read off the data
// path.
Result Client::stall_check(size_t in_flight)
{
	const auto now = Clock::now();
	// the first idle moment, or progress since the last one, starts the clock
	if (completions_ != stall_mark_ || in_flight == 0 || stall_since_ == Clock::time_point{}) {
		stall_mark_ = completions_;
		stall_since_ = now;
		return Result::DONE;
	}
	if (now - stall_since_ < OPERATION_TIMEOUT)
		return Result::DONE;
	// replicas: a silent one (powered off) holds the others back once it
	// lags too far; dropping it lets them go on
	if (replicated()) {
		const Result r = stalled();
		if (r == Result::DONE)
			stall_since_ = now;
		if (r != Result::RETRY)
			return r;
	}
	return fail(td_, ETIMEDOUT, "completion",
		    "no completion from %s for %lld s with %zu operations in flight: "
		    "the server or the network is gone%s",
		    options_of(td_).serverip,
		    static_cast<long long>(
			    std::chrono::duration_cast<std::chrono::seconds>(OPERATION_TIMEOUT)
				    .count()),
		    in_flight, native_ops_suspect(IBV_WC_SUCCESS).c_str());
}

// What native verbs this job posts may have to do with a failure: a
// responder whose device lacks one may drop it without an answer (rxe
// before Linux 6.2 does: docs/persistence.md), which looks like a silent
// server (status IBV_WC_SUCCESS: no completion came); and a memory window
// carries no flush right, so a server with isolation=window refuses native
// flushes and atomic writes with a remote access error.
std::string Client::native_ops_suspect(ibv_wc_status status) const
{
	int used = 0, device = 0;
	if (persistence_without_flush() || rpma_peer_get_native_ops(peer_, &used, &device) || !used)
		return {};
	const char *verbs = used == RPMA_NATIVE_OP_FLUSH          ? "flushes"
			    : used == RPMA_NATIVE_OP_ATOMIC_WRITE ? "atomic writes"
								  : "flushes and atomic writes";
	const std::string chooser = native_ops_chooser(options_of(td_).native_ops);
	if (status == IBV_WC_REM_ACCESS_ERR)
		return std::string("; this job posts native ") + verbs + " (" + chooser +
		       "), which a server with isolation=window refuses (a memory window "
		       "carries no flush right): run the server with isolation=none, or this "
		       "job with native_ops=none";
	if (status != IBV_WC_SUCCESS)
		return {};
	return std::string(", or its device does not execute the native ") + verbs +
	       " this job posts (" + chooser +
	       "; rxe before Linux 6.2 drops them unanswered): try native_ops=none";
}

// *token: the token of the I/Os a successful completion of target t ends,
// or 0.
template <bool Replicas>
Result Client::completion_token(const ibv_wc &wc, unsigned t, uint64_t *token)
{
	if (wc.status != IBV_WC_SUCCESS) [[unlikely]] {
		*token = 0;
		if (Replicas)
			return lose_target(t, ibv_wc_status_str(wc.status));
		return fail(
			td_, EIO, "completion",
			"an RDMA operation failed: %s (did the server stop or the link go down?)%s",
			ibv_wc_status_str(wc.status), native_ops_suspect(wc.status).c_str());
	}
	*token = 0;
	Result r = Result::DONE;
	if (wc.opcode == IBV_WC_SEND || (wc.opcode & IBV_WC_RECV))
		r = message_completion(wc, t, token);
	else
		*token = wc.wr_id; // a read, or a write's flush
	if (Replicas && r == Result::DONE && *token)
		return acknowledged(t, token);
	return r;
}

template <bool Replicas> Result Client::handle(const ibv_wc &wc, unsigned t)
{
	uint64_t token;
	if (Result r = completion_token<Replicas>(wc, t, &token); r != Result::DONE)
		return r;
	if (token)
		inflight_.complete(token);
	return Result::DONE;
}

Result Client::connection_check()
{
	for (unsigned t = 0; t < ntargets_; t++) {
		if (targets_[t].lost)
			continue;
		rpma_conn_event ev;
		Result r = next_conn_event(td_, targets_[t].conn, 0, &ev);
		if (r == Result::RETRY)
			continue;
		if (r != Result::DONE)
			return r;
		std::string why = std::string("the server ended the connection (") +
				  rpma_utils_conn_event_2str(ev) + ")";
		if (replicated()) {
			if (failed(lose_target(t, why.c_str())))
				return Result::FAILED;
			continue;
		}
		return fail(td_, ECONNRESET, "connection", "%s", why.c_str());
	}
	return Result::DONE;
}

Result Client::link_check(size_t in_flight)
{
	if (!link_.down())
		return Result::DONE;
	return fail(td_, ENETDOWN, "link",
		    "the RDMA link to %s went down (its port is not active); %zu "
		    "operations will never complete",
		    options_of(td_).serverip, in_flight);
}

// Sleeps until the completion channel or the connection has news.
Result Client::wait_for_completions()
{
	// each target's completion channel, then its connection's events
	std::array<pollfd, size_t{2} * MAX_TARGETS> fds{};
	std::array<unsigned, MAX_TARGETS> of{};
	nfds_t n = 0;
	for (unsigned t = 0; t < ntargets_; t++) {
		if (targets_[t].lost)
			continue;
		int cq_fd, ev_fd;
		rpma_cq_get_fd(targets_[t].cq, &cq_fd);
		rpma_conn_get_event_fd(targets_[t].conn, &ev_fd);
		of[n / 2] = t;
		fds[n++] = {cq_fd, POLLIN, 0};
		fds[n++] = {ev_fd, POLLIN, 0};
	}
	if (poll(fds.data(), n, 1000) <= 0)
		return Result::DONE;
	bool events = false;
	for (nfds_t i = 1; i < n; i += 2)
		events = events || fds[i].revents;
	if (events)
		if (Result r = connection_check(); r != Result::DONE)
			return r;
	for (nfds_t i = 0; i < n; i += 2) {
		Target &x = targets_[of[i / 2]];
		if (!fds[i].revents || x.lost)
			continue;
		int ret = rpma_cq_wait(x.cq); // acks the event and re-arms
		if (ret && ret != RPMA_E_NO_COMPLETION)
			return post_failed(of[i / 2], "rpma_cq_wait", ret);
	}
	return Result::DONE;
}

// Makes progress until at least min io_us are complete (one poll if 0 and
// none is). The flushes go out only when it has to wait (at once when
// nothing else in flight can complete): while completed io_us are left for
// fio (which takes them one at a time by default, with
// iodepth_batch_complete_max=1), the writes it commits meanwhile join the
// next flush. DONE once min are complete, or FAILED.
template <bool Replicas> Result Client::reap(unsigned min)
{
	// at iodepth 1 always: a poll now could only come back empty
	if (inflight_.completed() < min && inflight_.stalled() && failed(post_flushes()))
		return Result::FAILED;
	for (;;) {
		const Result polled = poll_batch<Replicas>();
		if (failed(polled))
			return polled;
		if (inflight_.completed() >= min)
			return Result::DONE;
		if (failed(post_flushes()))
			return Result::FAILED;
		if (polled == Result::DONE)
			continue; // some completed, maybe more are waiting
		if (failed(idle(inflight_.size())))
			return Result::FAILED;
	}
}

// Nothing completed with `in_flight` operations out: sleep until something
// may have (busy_wait_polling=0), and now and then check that the
// connection and the link are up and that completions still come: DONE,
// or FAILED.
// Busy polling spins here: the checks are out of line.
Result Client::idle(size_t in_flight)
{
	if (busy_poll_ && ++idle_polls_ % EVENT_CHECK_INTERVAL != 0) [[likely]]
		return Result::DONE;
	return idle_checks(in_flight);
}

Result Client::idle_checks(size_t in_flight)
{
	if (failed(busy_poll_ ? connection_check() : wait_for_completions()) ||
	    failed(link_check(in_flight)) || failed(stall_check(in_flight)))
		return Result::FAILED;
	return Result::DONE;
}

int Client::getevents(thread_data *td, unsigned min, unsigned max, const timespec *)
{
	Client *c = client_of(td);
	// Enough is complete already: no poll (the completions of a shared
	// flush come together, so one now would mostly come back empty), and
	// the rest out of line, so that this path needs no frame.
	const size_t done = c->inflight_.completed();
	if (done == 0 || done < min)
		return c->getevents_wait(min, max);
	return static_cast<int>(c->inflight_.hand_out(max));
}

// getevents() with fewer than min io_us complete.
int Client::getevents_wait(unsigned min, unsigned max)
{
	if (!failed_ && failed(replicated() ? reap<true>(min) : reap<false>(min))) [[unlikely]] {
		abandon(); // fio asks for them on its way out
		return -EIO;
	}
	return static_cast<int>(inflight_.hand_out(max));
}

io_u *Client::event(thread_data *td, int i)
{
	return client_of(td)->inflight_.handed(static_cast<size_t>(i));
}

// The job failed: see client.hh.
void Client::abandon()
{
	failed_ = true;
	release_buffers();
	inflight_.fail([](io_u *u) { u->error = EIO; });
	for (size_t i = 0; i < npending_; i++)
		give_back(pending_[i]);
	npending_ = 0;
}

// Never short of room while fio keeps to iodepth: a lost io_u would be
// waited for forever, so a full InFlight is reported. The job failed
// already: that changes nothing more.
void Client::give_back(io_u *u)
{
	u->error = EIO;
	if (!inflight_.add_done(u))
		report(td_, "no room to give an io_u back (iodepth=%u): an engine bug",
		       td_->o.iodepth);
}

// The end of a job: the goodbye after a good run, then nothing of fio's
// stays registered. Once done, does nothing.
void Client::end()
{
	const bool connected = std::any_of(targets_.begin(), targets_.end(),
					   [](const Target &t) { return t.conn; });
	if (connected && !failed_) {
		finish();
		for (Target &t : targets_)
			if (t.conn)
				rpma_conn_disconnect(t.conn);
		for (Target &t : targets_)
			if (t.conn)
				await_goodbye(t.conn); // the server answers the disconnect
	}
	release_buffers();
}

// fio calls it for each io_u right before it frees their buffers (cleanup
// comes later): every io_u is back by then.
void Client::io_u_free(thread_data *td, io_u *)
{
	if (!fio_known_good())
		return;
	if (Client *c = client_of(td))
		c->end();
}

void Client::cleanup(thread_data *td)
{
	if (!fio_known_good())
		return;
	Client *c = client_of(td);
	if (!c)
		return;
	c->end();
	delete c;
	td->io_ops_data = nullptr;
}

}
