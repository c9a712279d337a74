// SPDX-License-Identifier: BSD-3-Clause
#include "server.hh"
#include "conn_events.hh"
#include "guard.hh"
#include "options.hh"
#include "report.hh"
#include "workspace.hh"

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

constexpr int ESTABLISH_TIMEOUT_MS = 10000;
constexpr int GOODBYE_TIMEOUT_MS = 5000;

// A client silent this long is probed; the probe has PROBE_TIMEOUT to
// complete, the bound a client gives its own operations (client.cc).
constexpr auto PROBE_IDLE = std::chrono::seconds(5);
constexpr auto PROBE_TIMEOUT = std::chrono::seconds(30);
// a probe failed by the client's disconnect precedes that event by little
constexpr int DISCONNECT_GRACE_MS = 1000;

// rxe's vendor id. Its On-Demand Paging (Linux 7.2.13 at least) places every
// access at the start of its page while reporting success: what FS DAX,
// registered on demand, is served through.
constexpr uint32_t SOFT_ROCE_VENDOR_ID = 0xffffff;

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
		return job_failed(td, EINVAL, "serverip");
	}
	if (job_port(td).empty())
		return job_failed(td, EINVAL, "port");

	std::unique_ptr<Server> s = make();
	s->td_ = td;
	ibv_context *dev;
	int ret = rpma_utils_get_ibv_context(o.serverip, RPMA_UTIL_IBV_CONTEXT_LOCAL, &dev);
	if (ret) {
		report(td, "serverip=%s is not the address of an RDMA device here", o.serverip);
		return rpma_failed(td, "rpma_utils_get_ibv_context", ret);
	}
	if ((ret = rpma_peer_new(dev, &s->peer_)))
		return rpma_failed(td, "rpma_peer_new", ret);
	ibv_device_attr attr{};
	s->soft_roce_ = ibv_query_device(dev, &attr) == 0 && attr.vendor_id == SOFT_ROCE_VENDOR_ID;
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
		return job_failed(td, EINVAL, "size");
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
	return s->open(f);
}

int Server::expose(fio_file *f)
{
	return map_memory(f, td_->o.size) || register_memory(0, mem_.size(), &mr_);
}

int Server::map_memory(fio_file *f, size_t bytes)
{
	if (mem_.map(td_, f->file_name, bytes))
		return 1;
	if (mem_.kind() == Memory::Kind::FsDax && soft_roce_)
		note("%s[%u]: warning: serving %s over Soft-RoCE (rxe), whose "
		     "On-Demand Paging (Linux 7.2.13 at least) places each write "
		     "and read at the start of its page: the clients' data would "
		     "be misplaced; serve a Device DAX over rxe\n",
		     td_->io_ops->name, td_->thread_number, f->file_name);
	return 0;
}

int Server::register_memory(size_t offset, size_t len, rpma_mr_local **mr)
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
		return 0;
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
	return 0;
}

int Server::accept()
{
	const Options &o = options_of(td_);
	const std::string port = job_port(td_);

	std::vector<uint8_t> desc;
	size_t desc_size;
	rpma_mr_get_descriptor_size(mr_, &desc_size);
	desc.resize(desc_size);
	rpma_mr_get_descriptor(mr_, desc.data());
	auto ws = encode_workspace(msg_slots(), o.direct_write_to_pmem, desc);
	if (!ws) {
		report(td_,
		       "the memory descriptor (%zu bytes) does not fit the "
		       "workspace",
		       desc_size);
		return job_failed(td_, EOVERFLOW, "workspace");
	}

	rpma_ep *ep;
	int ret = rpma_ep_listen(peer_, o.serverip, port.c_str(), &ep);
	if (ret) {
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
	note("%s[%u]: waiting for a client on %s:%s\n", td_->io_ops->name, td_->thread_number,
	     o.serverip, port.c_str());

	ret = wait_for_client(ep);
	if (!ret)
		ret = connect_client(ep, *ws);
	// one connection per job: nobody else may connect to this port
	rpma_ep_shutdown(&ep);
	if (ret)
		return ret;

	rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	ret = next_conn_event(conn_, ESTABLISH_TIMEOUT_MS, &ev);
	if (ret < 0)
		return rpma_failed(td_, "rpma_conn_next_event", ret);
	if (ret == 1 || ev != RPMA_CONN_ESTABLISHED) {
		report(td_, "the client's connection did not come up (%s)",
		       ret == 1 ? "timed out" : rpma_utils_conn_event_2str(ev));
		return job_failed(td_, ECONNABORTED, "accept");
	}
	return 0;
}

// Waits for a connection request, within runtime= if there is one.
int Server::wait_for_client(rpma_ep *ep)
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
	return 0;
}

int Server::next_request(rpma_ep *ep, rpma_conn_req **req)
{
	rpma_conn_cfg *cfg;
	int ret = rpma_conn_cfg_new(&cfg);
	if (ret)
		return rpma_failed(td_, "rpma_conn_cfg_new", ret);
	configure(cfg);
	ret = rpma_ep_next_conn_req(ep, cfg, req);
	rpma_conn_cfg_delete(&cfg);
	if (ret == RPMA_E_NO_EVENT)
		return ret;
	return ret ? rpma_failed(td_, "rpma_ep_next_conn_req", ret) : 0;
}

int Server::connect_client(rpma_ep *ep, std::span<const uint8_t> ws)
{
	rpma_conn_req *req;
	int ret = next_request(ep, &req);
	if (ret)
		return ret == RPMA_E_NO_EVENT ? rpma_failed(td_, "rpma_ep_next_conn_req", ret)
					      : ret;
	if ((ret = accepting(req))) {
		rpma_conn_req_delete(&req);
		return ret;
	}
	rpma_conn_private_data pdata{const_cast<uint8_t *>(ws.data()),
				     static_cast<uint8_t>(ws.size())};
	ret = rpma_conn_req_connect(&req, &pdata, &conn_);
	return ret ? rpma_failed(td_, "rpma_conn_req_connect", ret) : 0;
}

int Server::link_check()
{
	if (!link_.down())
		return 0;
	report(td_,
	       "the RDMA link of %s went down (its port is not active): the "
	       "client cannot reach this server any more",
	       options_of(td_).serverip);
	return job_failed(td_, ENETDOWN, "link");
}

// Called only when idle: the clock is read off the data path.
int Server::liveness_check(uint64_t signs)
{
	const auto now = Clock::now();
	if (probing_) {
		if (now - probe_sent_ < PROBE_TIMEOUT)
			return 0;
		char why[64];
		std::snprintf(why, sizeof(why), "no answer to a probe for %lld s",
			      static_cast<long long>(
				      std::chrono::duration_cast<std::chrono::seconds>(
					      PROBE_TIMEOUT)
					      .count()));
		return client_stopped(why);
	}
	if (signs != signs_ || quiet_since_ == Clock::time_point{}) {
		signs_ = signs;
		quiet_since_ = now;
		return 0;
	}
	if (now - quiet_since_ < PROBE_IDLE)
		return 0;
	int ret = rpma_write(conn_, nullptr, 0, nullptr, 0, 0, RPMA_F_COMPLETION_ALWAYS, this);
	if (ret)
		return rpma_failed(td_, "rpma_write (a probe of the client)", ret);
	probing_ = true;
	probe_sent_ = now;
	return 0;
}

bool Server::is_probe(const ibv_wc &wc) const
{
	return wc.wr_id == reinterpret_cast<uintptr_t>(this);
}

int Server::probe_done(const ibv_wc &wc, bool end_expected)
{
	probing_ = false;
	quiet_since_ = Clock::now();
	if (wc.status == IBV_WC_SUCCESS)
		return 0;
	rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	if (next_conn_event(conn_, DISCONNECT_GRACE_MS, &ev) == 0)
		return connection_ended(ev, end_expected);
	return client_stopped(ibv_wc_status_str(wc.status));
}

int Server::poll_probe(rpma_cq *cq, bool end_expected)
{
	if (!probing_)
		return 0;
	ibv_wc wc{};
	int got = 0;
	int ret = rpma_cq_get_wc(cq, 1, &wc, &got);
	if (ret == RPMA_E_NO_COMPLETION)
		return 0;
	if (ret)
		return rpma_failed(td_, "rpma_cq_get_wc", ret);
	return probe_done(wc, end_expected);
}

int Server::client_stopped(const char *why)
{
	const Options &o = options_of(td_);
	report(td_,
	       "the client of %s:%s stopped answering (%s): it or the "
	       "network is gone",
	       o.serverip, job_port(td_).c_str(), why);
	return job_failed(td_, ETIMEDOUT, "client");
}

int Server::connection_ended(rpma_conn_event ev, bool end_expected)
{
	if (ev == RPMA_CONN_CLOSED) {
		closed_ = true;
		if (end_expected)
			return 0;
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
		s->serve();
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
	if (conn_ && !closed_ && !td_->error) {
		const auto deadline = Clock::now() + std::chrono::milliseconds(GOODBYE_TIMEOUT_MS);
		rpma_conn_event ev = RPMA_CONN_UNDEFINED;
		while (ev != RPMA_CONN_CLOSED && ev != RPMA_CONN_LOST &&
		       next_conn_event(conn_, ms_left(deadline), &ev) == 0)
			;
	}
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
