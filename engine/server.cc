// SPDX-License-Identifier: BSD-3-Clause
#include "server.hh"
#include "conn_events.hh"
#include "guard.hh"
#include "options.hh"
#include "report.hh"
#include "soft_roce.hh"
#include "wire_format.hh"

#include <infiniband/verbs.h>

#include <cerrno>
#include <cstdio>
#include <vector>

namespace rpma_fio {

namespace {

Server *server_of(thread_data *td)
{
	return static_cast<Server *>(td->io_ops_data);
}

// A client silent this long is probed; the probe has OPERATION_TIMEOUT to
// complete, the bound a client gives its own operations.
constexpr auto PROBE_IDLE = std::chrono::seconds(5);

}

Server::~Server()
{
	close_connection(&conn_);
	rpma_mr_dereg(&mr_);
	mem_.unmap();
	rpma_peer_delete(&peer_);
}

int Server::init(thread_data *td, std::unique_ptr<Server> (*make)())
{
	setup_rpma_logging();
	const Options &o = options_of(td);
	if (!o.serverip || !*o.serverip) {
		report(td, "serverip= (the address to listen on) is not set");
		return fio_status(job_failed(td, EINVAL, "serverip"));
	}
	if (job_port(td).empty())
		return fio_status(job_failed(td, EINVAL, "port"));

	std::unique_ptr<Server> s = make();
	s->td_ = td;
	ibv_context *dev;
	int ret = rpma_utils_get_ibv_context(o.serverip, RPMA_UTIL_IBV_CONTEXT_LOCAL, &dev);
	if (ret) {
		report(td, "serverip=%s is not the address of an RDMA device here", o.serverip);
		return fio_status(rpma_failed(td, "rpma_utils_get_ibv_context", ret));
	}
	if ((ret = rpma_peer_new(dev, &s->peer_)))
		return fio_status(rpma_failed(td, "rpma_peer_new", ret));
	ibv_device_attr attr{};
	s->soft_roce_ = ibv_query_device(dev, &attr) == 0 &&
			attr.vendor_id == rpma::SOFT_ROCE_VENDOR_ID;
	s->link_.watch(dev, o.serverip, true);
	// The job's one I/O is the serving of its connection; iodepth= is
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
	if (!td->o.size) {
		report(td, "size= (the memory for each client) is not set");
		return fio_status(job_failed(td, EINVAL, "size"));
	}
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

Result Server::open(fio_file *f)
{
	Result r = map_memory(f, td_->o.size);
	if (r == Result::DONE)
		r = register_memory(0, mem_.size(), &mr_);
	if (r == Result::DONE)
		r = accept();
	return r;
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

Result Server::register_memory(size_t offset, size_t len, rpma_mr_local **mr)
{
	// Least exposure: what a client does to the region, nothing more.
	// It writes and reads it (reads, verify=), and its flush is a read.
	int usage = RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
		    (mem_.persistent() ? RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT
				       : RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	int ret = rpma_mr_reg(peer_, mem_.base() + offset, len, usage, mr);
	if (ret && mem_.kind() == Memory::Kind::FsDax)
		report(td_, "registering FS DAX memory needs On-Demand Paging, "
			    "which this RDMA device may lack; a Device DAX needs none");
	if (ret)
		return rpma_failed(td_, "rpma_mr_reg", ret);
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

std::vector<uint8_t> Server::descriptor_of(rpma_mr_local *mr)
{
	size_t desc_size;
	rpma_mr_get_descriptor_size(mr, &desc_size);
	std::vector<uint8_t> desc(desc_size);
	rpma_mr_get_descriptor(mr, desc.data());
	return desc;
}

Result Server::workspace_of(rpma_mr_local *mr, uint16_t max_msg_num, std::vector<uint8_t> *ws)
{
	const std::vector<uint8_t> desc = descriptor_of(mr);
	auto encoded = encode_workspace(max_msg_num, options_of(td_).direct_write_to_pmem, desc);
	if (!encoded) {
		report(td_,
		       "the memory descriptor (%zu bytes) does not fit the "
		       "workspace",
		       desc.size());
		return job_failed(td_, EOVERFLOW, "workspace");
	}
	ws->assign(encoded->begin(), encoded->end());
	return Result::DONE;
}

Result Server::listen(const std::string &port, rpma_ep **ep)
{
	const Options &o = options_of(td_);
	int ret = rpma_ep_listen(peer_, o.serverip, port.c_str(), ep);
	if (!ret)
		return Result::DONE;
	if (ret == RPMA_E_PROVIDER && errno == EADDRINUSE)
		report(td_,
		       "cannot listen on %s:%s: the port is in use "
		       "(another server, or one still ending); stop it or "
		       "choose another port=",
		       o.serverip, port.c_str());
	else
		report(td_, "cannot listen on %s:%s", o.serverip, port.c_str());
	return rpma_failed(td_, "rpma_ep_listen", ret);
}

Result Server::accept()
{
	const Options &o = options_of(td_);
	const std::string port = job_port(td_);
	rpma_ep *ep;
	if (Result r = listen(port, &ep); r != Result::DONE)
		return r;
	note("%s[%u]: waiting for a client on %s:%s\n", td_->io_ops->name, td_->thread_number,
	     o.serverip, port.c_str());

	Result r = wait_for_client(ep);
	if (r == Result::DONE)
		r = connect_client(ep);
	// one connection per job: nobody else may connect to this port
	rpma_ep_shutdown(&ep);
	if (r != Result::DONE)
		return r;

	rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	r = next_conn_event(td_, conn_, HANDSHAKE_TIMEOUT_MS, &ev);
	if (failed(r))
		return r;
	if (r == Result::RETRY || ev != RPMA_CONN_ESTABLISHED) {
		report(td_, "the client's connection did not come up (%s)",
		       r == Result::RETRY ? "timed out" : rpma_utils_conn_event_2str(ev));
		return job_failed(td_, ECONNABORTED, "accept");
	}
	return Result::DONE;
}

// Waits for a connection request, within runtime= if there is one.
Result Server::wait_for_client(rpma_ep *ep)
{
	int fd;
	rpma_ep_get_fd(ep, &fd);
	const auto start = Clock::now();
	while (!fd_readable(fd, POLL_MS)) {
		if (td_->terminate)
			return job_failed(td_, EINTR, "accept");
		if (td_->o.timeout &&
		    Clock::now() - start > std::chrono::microseconds(td_->o.timeout)) {
			report(td_, "no client connected within runtime=%llus",
			       td_->o.timeout / 1000000);
			return job_failed(td_, ETIMEDOUT, "accept");
		}
	}
	return Result::DONE;
}

Result Server::next_request(rpma_ep *ep, rpma_conn_req **req)
{
	rpma_conn_cfg *cfg;
	int ret = rpma_conn_cfg_new(&cfg);
	if (ret)
		return rpma_failed(td_, "rpma_conn_cfg_new", ret);
	configure(cfg);
	ret = rpma_ep_next_conn_req(ep, cfg, req);
	rpma_conn_cfg_delete(&cfg);
	if (ret == RPMA_E_NO_EVENT)
		return Result::RETRY;
	return ret ? rpma_failed(td_, "rpma_ep_next_conn_req", ret) : Result::DONE;
}

Result Server::connect_client(rpma_ep *ep)
{
	rpma_conn_req *req;
	Result r = next_request(ep, &req);
	// the endpoint's fd was readable: a request, or librpma's error
	if (r == Result::RETRY)
		return rpma_failed(td_, "rpma_ep_next_conn_req", RPMA_E_NO_EVENT);
	if (r != Result::DONE)
		return r;
	std::vector<uint8_t> ws;
	if ((r = accepting(req)) != Result::DONE ||
	    (r = workspace_of(mr_, msg_slots(), &ws)) != Result::DONE) {
		rpma_conn_req_delete(&req);
		return r;
	}
	rpma_conn_private_data pdata{const_cast<uint8_t *>(ws.data()),
				     static_cast<uint8_t>(ws.size())};
	int ret = rpma_conn_req_connect(&req, &pdata, &conn_);
	return ret ? rpma_failed(td_, "rpma_conn_req_connect", ret) : Result::DONE;
}

Result Server::link_check()
{
	if (!link_.down())
		return Result::DONE;
	report(td_,
	       "the RDMA link of %s went down (its port is not active): the "
	       "client cannot reach this server any more",
	       options_of(td_).serverip);
	return job_failed(td_, ENETDOWN, "link");
}

Probe::Due Probe::due(uint64_t signs, Clock::time_point now)
{
	if (in_flight_)
		return now - sent_ < OPERATION_TIMEOUT ? Due::NOTHING : Due::LATE;
	if (signs != signs_ || quiet_since_ == Clock::time_point{}) {
		signs_ = signs;
		quiet_since_ = now;
		return Due::NOTHING;
	}
	return now - quiet_since_ < PROBE_IDLE ? Due::NOTHING : Due::SEND;
}

std::string Probe::late_why()
{
	return "no answer to a probe for " +
	       std::to_string(std::chrono::duration_cast<std::chrono::seconds>(OPERATION_TIMEOUT)
				      .count()) +
	       " s";
}

// Called only when idle: the clock is read off the data path.
Result Server::liveness_check(uint64_t signs)
{
	const auto now = Clock::now();
	switch (probe_.due(signs, now)) {
	case Probe::Due::NOTHING:
		return Result::DONE;
	case Probe::Due::LATE:
		return client_stopped(Probe::late_why().c_str());
	case Probe::Due::SEND:
		break;
	}
	int ret = rpma_write(conn_, nullptr, 0, nullptr, 0, 0, RPMA_F_COMPLETION_ALWAYS, this);
	if (ret)
		return rpma_failed(td_, "rpma_write (a probe of the client)", ret);
	probe_.sent(now);
	return Result::DONE;
}

bool Server::is_probe(const ibv_wc &wc) const
{
	return wc.wr_id == reinterpret_cast<uintptr_t>(this);
}

Result Server::probe_done(const ibv_wc &wc, bool end_expected)
{
	probe_.completed(Clock::now());
	if (wc.status == IBV_WC_SUCCESS)
		return Result::DONE;
	rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	const Result r = next_conn_event(td_, conn_, DISCONNECT_GRACE_MS, &ev);
	if (r == Result::DONE)
		return connection_ended(ev, end_expected);
	// a link going down fails the probe too, maybe before the check
	// between waits has seen it: the link's state says more
	if (r == Result::RETRY && failed(link_check()))
		return Result::FAILED;
	return r == Result::RETRY ? client_stopped(ibv_wc_status_str(wc.status)) : r;
}

Result Server::client_misbehaved(const std::string &what)
{
	report(td_, "the client of %s:%s %s", options_of(td_).serverip, job_port(td_).c_str(),
	       what.c_str());
	return job_failed(td_, EPROTO, "receive");
}

Result Server::client_stopped(const char *why)
{
	const Options &o = options_of(td_);
	report(td_,
	       "the client of %s:%s stopped answering (%s): it or the "
	       "network is gone",
	       o.serverip, job_port(td_).c_str(), why);
	return job_failed(td_, ETIMEDOUT, "client");
}

Result Server::connection_ended(rpma_conn_event ev, bool end_expected)
{
	if (ev == RPMA_CONN_CLOSED) {
		closed_ = true;
		if (end_expected)
			return Result::DONE;
		report(td_, "the client disconnected before ending the run "
			    "(was it killed?)");
	} else {
		report(td_, "the connection to the client failed (%s)",
		       rpma_utils_conn_event_2str(ev));
	}
	return job_failed(td_, ECONNRESET, "connection");
}

// All of the job's I/O is the serving of its one connection.
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

int Server::close_file(thread_data *td, fio_file *)
{
	server_of(td)->goodbye();
	return 0;
}

// After a good run the client disconnects by itself; after a failure the
// client may be waiting for an answer, so disconnect it at once.
void Server::goodbye()
{
	if (conn_ && !closed_ && !td_->error)
		await_goodbye(conn_);
	close_connection(&conn_);
	rpma_mr_dereg(&mr_);
	mem_.unmap();
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
