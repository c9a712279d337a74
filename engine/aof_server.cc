// SPDX-License-Identifier: BSD-3-Clause
// aof_server.cc -- librpma_aof_server: holds an append-only log (aof.hh)
// for one librpma_aof_client of the same aof_mode=. With gpspm it persists
// each range asked for, then sets and persists the tail pointer, then
// answers; with apm the client does all that by itself and the server
// takes only the end-of-run notice. On that notice the server checks its
// log: the pointer within the log, and equal to how far the client says it
// appended; else the job fails, saying what it found.
#include "aof.hh"
#include "gpspm_server.hh"
#include "options.hh"
#include "report.hh"
#include "server_ops.hh"
#include "wire_format.hh"

#include <cerrno>
#include <string>

namespace rpma_fio {
namespace {

// for printf's %llu
unsigned long long ull(uint64_t v)
{
	return v;
}

class AofServer final : public GpspmServer {
	AofMode mode_ = AofMode::APM;
	std::string refusal_; // why the connected client cannot be served
	uint64_t tail_ = 0;   // aof_mode=gpspm: the log's length as persisted

	// apm: one receive, for the end-of-run notice
	uint16_t slots() const override { return mode_ == AofMode::APM ? 1 : GpspmServer::slots(); }

	// apm: nothing comes but the end-of-run notice, not worth a CPU
	bool may_spin() const override { return mode_ == AofMode::GPSPM; }

	Result open(fio_file *f) override
	{
		mode_ = static_cast<AofMode>(options_of(td_).aof_mode);
		if (options_of(td_).clients > 1)
			return fail(td_, EINVAL, "clients",
				    "clients=%u: a log has one writer: one client per server job",
				    options_of(td_).clients);
		if (td_->o.size <= LOG_OFFSET)
			return fail(td_, EINVAL, "size",
				    "size=%llu: the log needs more than its first %u bytes, which "
				    "hold its tail pointer",
				    static_cast<unsigned long long>(td_->o.size), LOG_OFFSET);
		return GpspmServer::open(f);
	}

	Result workspace_of(const Connection &c, std::vector<uint8_t> *ws) override
	{
		auto encoded = encode_aof_workspace(mode_, receives(c),
						    options_of(td_).direct_write_to_pmem,
						    LOG_OFFSET, descriptor_of(c));
		if (!encoded)
			return fail(td_, EOVERFLOW, "workspace",
				    "the memory descriptor does not fit the workspace");
		ws->assign(encoded->begin(), encoded->end());
		return Result::DONE;
	}

	// The client is accepted whatever it asked for: it reads the
	// server's aof_mode in the workspace and refuses it with its own
	// message, as established() does with this one.
	Result accepting(Connection &, rpma_conn_req *req) override
	{
		// DRAM holds no log of an earlier run: a reading client must find
		// an empty one, not what the allocator left there
		if (!mem_.persistent())
			store_log_tail(mem_.base() + LOG_TAIL_OFFSET, 0);
		rpma_conn_private_data pdata{};
		rpma_conn_req_get_private_data(req, &pdata);
		// this request's alone: an earlier one may have failed to connect
		refusal_.clear();
		const std::optional<AofRequest> asked = decode_aof_request(pdata.ptr, pdata.len);
		if (!asked)
			refusal_ = "asks for an append-only log of a version or aof_mode this "
				   "server does not know";
		else if (asked->mode == AofMode::NONE)
			refusal_ = "is not librpma_aof_client (it asks for no append-only log)";
		else if (asked->mode != mode_)
			refusal_ = std::string("asks for aof_mode=") + aof_mode_name(asked->mode) +
				   ", this server serves aof_mode=" + aof_mode_name(mode_) +
				   ": both ends must use the same";
		tail_ = load_log_tail(mem_.base() + LOG_TAIL_OFFSET);
		// the client zeroes the pointer (aof_client.cc, start_log()), once
		// it has agreed to this server
		if (refusal_.empty() && asked->appends && tail_)
			note("%s[%u]: an appending client, which starts the log anew (its tail "
			     "pointer is at %llu bytes)\n",
			     td_->io_ops->name, td_->thread_number, ull(tail_));
		return Result::DONE;
	}

	// The client has the workspace: it refuses this server in turn, with
	// its own message.
	Result established(Connection &c) override
	{
		if (!refusal_.empty())
			lose(c, EPROTO, "%s", refusal_.c_str());
		return Result::DONE;
	}

	bool ends_run(const FlushRequest &req) const override { return is_aof_end_notice(req); }

	Result run_ended(const FlushRequest &notice) override
	{
		const uint64_t tail = load_log_tail(mem_.base() + LOG_TAIL_OFFSET);
		const uint64_t room = mem_.size() - LOG_OFFSET;
		if (tail > room)
			return fail(
				td_, EIO, "log check",
				"the log's tail pointer says %llu bytes, past the log's end (%llu "
				"bytes): it is torn or was written wrongly",
				ull(tail), ull(room));
		if (notice.offset == AOF_NOTHING_APPENDED) {
			note("%s[%u]: the client appended nothing; the log holds %llu bytes\n",
			     td_->io_ops->name, td_->thread_number, ull(tail));
			return Result::DONE;
		}
		if (tail != notice.offset)
			return fail(
				td_, EIO, "log check",
				"the log's tail pointer says %llu bytes, but the client appended "
				"%llu: records acknowledged to it are %s",
				ull(tail), ull(notice.offset),
				tail < notice.offset ? "not covered by the pointer"
						     : "fewer than the pointer covers");
		note("%s[%u]: log checked: its tail pointer covers the %llu bytes the client "
		     "appended\n",
		     td_->io_ops->name, td_->thread_number, ull(tail));
		return Result::DONE;
	}

	Result persisted(const FlushRequest &req) override
	{
		if (mode_ == AofMode::APM)
			return fail(
				td_, EPROTO, "flush request",
				"a flush request for [%llu, +%llu): with aof_mode=apm the client "
				"flushes by itself and sends none",
				ull(req.offset), ull(req.length));
		if (is_aof_start_request(req)) {
			tail_ = 0;
		} else if (req.offset != LOG_OFFSET + tail_) {
			return fail(
				td_, EPROTO, "flush request",
				"a flush request for [%llu, +%llu) does not start at the log's end "
				"(%llu + %llu bytes): a log has no hole and never steps back",
				ull(req.offset), ull(req.length), ull(LOG_OFFSET), ull(tail_));
		} else {
			// the records are persistent: now the pointer that covers them
			tail_ += req.length;
		}
		store_log_tail(mem_.base() + LOG_TAIL_OFFSET, tail_);
		mem_.persist(LOG_TAIL_OFFSET, sizeof(uint64_t));
		return Result::DONE;
	}
};

std::unique_ptr<Server> make()
{
	return std::make_unique<AofServer>();
}

}
}

ioengine_ops ioengine = rpma_fio::server_ops<rpma_fio::make>("librpma_aof_server",
							     rpma_fio::aof_server_options());
