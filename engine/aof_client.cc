// SPDX-License-Identifier: BSD-3-Clause
// aof_client.cc -- librpma_aof_client: appends records to a remote
// append-only log (wire_format.hh), and reads it back. An append completes only
// once its record and a tail pointer covering it are persistent (DRAM:
// visible) on the server, by the method of aof_mode=:
//   apm    the client alone: the records' flush, an atomic write of the
//          pointer, the pointer's flush, posted together (the atomic write
//          waits for the flush before it: a fence);
//   gpspm  a flush request per range, as librpma_gpspm_client; the server
//          persists the records, then the pointer, then answers.
// Appends made together share one flush and one pointer update (InFlight).
// After a good run the client tells the server how far it appended (the
// end-of-run notice), which the server checks against its pointer.
// With replicas (serverip=A,B,C) each append goes to every one at once,
// each made persistent there by the same method, and completes once
// write_quorum= of them hold it (quorum.hh; docs/engines.md, "Replicas").
#include "wire_format.hh"
#include "apm_flush.hh"
#include "client_ops.hh"
#include "flush_requests.hh"
#include "options.hh"
#include "quorum.hh"
#include "report.hh"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

namespace rpma_fio {
namespace {

class AofClient final : public Client {
public:
	~AofClient() override
	{
		drop_connection(); // before the messages' memory
	}

private:
	// A replicated operation's op_context: its number with this bit, which
	// no read's token and no op_context of wire_format.hh has.
	static constexpr uint64_t REPLICA_OP = uint64_t(1) << 62;

	AofMode mode_ = AofMode::APM;
	// each target's flush type (APM)
	std::array<rpma_flush_type, MAX_TARGETS> type_{};
	// GPSPM: each target's flush requests; both: the end-of-run notice
	std::array<FlushRequests, MAX_TARGETS> requests_;
	// the log's length with the appends the latest flush covers
	std::optional<uint64_t> appended_;
	bool started_ = false; // start_log() ran: fio may open the file again
	// replicas: what each holds, and the write quorum
	Quorum quorum_;
	unsigned needed_ = 1;
	uint64_t sync_writes_ = 0; // sync=1: the writes made persistent so far

	AofMode aof_mode() const override { return mode_; }
	unsigned max_targets() const override { return Quorum::MAX_REPLICAS; }

	// A log is appended to from its start, once over: no random or mixed
	// I/O, no wrap-around.
	Result check_job() override
	{
		mode_ = static_cast<AofMode>(options_of(td_).aof_mode);
		if (Result r = check_quorum(); r != Result::DONE)
			return r;
		const thread_options &o = td_->o;
		const char *rw = ddir_str(static_cast<td_ddir>(o.td_ddir));
		if (o.td_ddir != TD_DDIR_WRITE && o.td_ddir != TD_DDIR_READ)
			return fail(td_, EINVAL, "rw",
				    "rw=%s: an append-only log is appended to (rw=write) or read "
				    "back (rw=read), in order",
				    rw);
		if (o.td_ddir == TD_DDIR_READ)
			return Result::DONE;
		if (const char *option = moves_appends(o))
			return fail(
				td_, EINVAL, option,
				"%s: an append-only log is appended to from its beginning, each "
				"record right after the last, in one file",
				option);
		if (o.time_based || o.loops > 1 || (o.io_size && o.size && o.io_size > o.size))
			return fail(td_, EINVAL, "size",
				    "the log is appended to once over: size the run with "
				    "size= (io_size= at most that), without time_based or loops=");
		next_append_ = 0;
		return Result::DONE;
	}

	// write_quorum=: all, or 1 to the number of replicas. A live replica
	// may lag iodepth writes behind the quorum, so each connection holds
	// at most twice iodepth writes and their operations (queue_sizes()),
	// and the operations outstanding are as many, and the start.
	Result check_quorum()
	{
		const char *text = options_of(td_).write_quorum;
		unsigned long needed = ntargets_;
		if (text && *text && std::strcmp(text, "all") != 0) {
			char *end = nullptr;
			errno = 0;
			needed = std::strtoul(text, &end, 10);
			if (*end || errno || *text == '-')
				needed = 0;
		}
		if (needed < 1 || needed > ntargets_)
			return fail(
				td_, EINVAL, "write_quorum",
				"write_quorum=%s: an append is acknowledged by 1 to %u replicas "
				"(all: every one)",
				text, ntargets_);
		needed_ = static_cast<unsigned>(needed);
		if (replicated())
			quorum_.reserve(ntargets_, needed_, td_->o.iodepth,
					2 * static_cast<size_t>(td_->o.iodepth) + 2);
		return Result::DONE;
	}

	// The option that would place a record elsewhere than right after the
	// last one, or nullptr. fio keeps some of them beside start_offset
	// (offset=50% in start_offset_percent, offset=z in start_offset_nz).
	static const char *moves_appends(const thread_options &o)
	{
		if (o.start_offset || o.start_offset_percent || o.start_offset_nz)
			return "offset=";
		if (o.offset_increment || o.offset_increment_percent || o.offset_increment_nz)
			return "offset_increment=";
		if (o.ddir_seq_add)
			return "rw=write:<skip>";
		if (o.zone_mode > ZONE_MODE_NONE)
			return "zonemode=";
		if (o.nr_files > 1)
			return "nrfiles=";
		return nullptr;
	}

	// The last check, then the log's start: io_size= without size= is
	// known only now, and more than the log once over would wrap to its
	// beginning.
	Result opened(const fio_file *f) override
	{
		const thread_options &o = td_->o;
		if (next_append_ == NOT_APPENDING || started_)
			return Result::DONE;
		if (o.io_size && o.io_size > f->io_size)
			return fail(td_, EINVAL, "io_size",
				    "io_size=%llu: more than the %llu bytes of the log's records, "
				    "which are appended to once over",
				    static_cast<unsigned long long>(o.io_size),
				    static_cast<unsigned long long>(f->io_size));
		started_ = true;
		return start_log();
	}

	// A pointer left by an earlier run (Device DAX, an FS DAX file) would
	// cover the first records before they are persistent: a power cut then
	// would leave a log whose pointer covers records half new, half old.
	// So it is zeroed, persistently, before the first record is written,
	// and only now, when this client has checked the server and its job:
	// zeroed at the accept, a client that then refused the server would
	// have wiped the old log. Replicas: on each, the quorum waited for.
	Result start_log()
	{
		if (replicated()) {
			if (Result r = post_replicated(0, 0, SYNC_TOKEN, true); r != Result::DONE)
				return r == Result::RETRY ? job_failed(td_, EPROTO, "start") : r;
		} else if (mode_ == AofMode::GPSPM) {
			if (Result r = requests_[0].post(aof_start_request()); r != Result::DONE)
				return r == Result::RETRY ? job_failed(td_, EPROTO, "start") : r;
		} else if (Result r = post_tail(0, 0, SYNC_TOKEN); r != Result::DONE) {
			return r;
		}
		return wait_alone();
	}

	InFlight::Merge flush_merge() const override
	{
		// APM: a flush orders every write before it; GPSPM: the server
		// persists the range asked for, nothing else
		return mode_ == AofMode::APM ? InFlight::Merge::ANY : InFlight::Merge::ADJACENT;
	}

	const char *persistence_without_flush() const override
	{
		return mode_ == AofMode::GPSPM ? "records and tail pointer persisted by the server "
						 "(aof_mode=gpspm): native_ops= does not apply"
					       : nullptr;
	}

	QueueSizes queue_sizes(unsigned iodepth) const override
	{
		// replicas: a connection holds up to twice as many writes and
		// their operations (check_quorum())
		const uint32_t depth = replicated() ? 2 * iodepth + 1 : iodepth;
		if (mode_ == AofMode::GPSPM) {
			// as librpma_gpspm_client's
			uint32_t sq = 3 * depth + 1;
			return {sq, iodepth, sq + iodepth};
		}
		// an io_u: a read or a write, and at most one flush of three
		// work requests; the end-of-run notice
		uint32_t sq = 4 * depth + 1;
		return {sq, 1, sq + 1};
	}

	Result connected(const Workspace &ws, unsigned t) override
	{
		const Target &x = targets_[t];
		if (ws.max_msg_num == 0)
			return fail(td_, EPROTO, "connect",
				    "the log's server takes no messages (max_msg_num 0)");
		if (mode_ == AofMode::GPSPM)
			return requests_[t].setup(td_, peer_, x.conn,
						  std::min<uint32_t>(td_->o.iodepth,
								     ws.max_msg_num));
		if (Result r = apm_flush_type(td_, x.conn, x.remote, ws, "aof_mode=gpspm",
					      &type_[t]);
		    r != Result::DONE)
			return r;
		return requests_[t].setup(td_, peer_, x.conn, 1);
	}

	Result post_flush(const Flush &f) override
	{
		const uint64_t end = f.offset + f.length;
		if (replicated()) [[unlikely]] {
			// sync=1: one write each; else the token counts them
			const uint64_t writes = f.token == SYNC_TOKEN
							? sync_writes_ + 1
							: InFlight::writes_upto(f.token);
			Result r = post_replicated(f.offset, f.length, f.token, false);
			if (r == Result::DONE) {
				appended_ = end;
				if (f.token == SYNC_TOKEN)
					sync_writes_ = writes;
			}
			return r;
		}
		Result r = mode_ == AofMode::APM ? post_apm_append(0, f, f.token)
						 : requests_[0].post({targets_[0].base + f.offset,
								      f.length, f.token});
		if (r == Result::DONE)
			appended_ = end;
		return r;
	}

	// An operation to every live replica at once: the records of [offset,
	// +length) made persistent and the tail pointer moved past them (the
	// log's start: the pointer zeroed). All or none: RETRY when one
	// replica cannot take it now. A replica that fails the post is lost.
	Result post_replicated(uint64_t offset, uint64_t length, uint64_t token, bool start)
	{
		if (quorum_.full())
			return Result::RETRY;
		if (mode_ == AofMode::GPSPM)
			for (unsigned t = 0; t < ntargets_; t++)
				if (!targets_[t].lost && !requests_[t].ready())
					return Result::RETRY;
		const uint64_t end = offset + length;
		const uint64_t writes = token == SYNC_TOKEN ? sync_writes_ + (start ? 0 : 1)
							    : InFlight::writes_upto(token);
		const uint64_t wire = REPLICA_OP | quorum_.post({token, end, writes});
		for (unsigned t = 0; t < ntargets_; t++) {
			if (targets_[t].lost)
				continue;
			int ret = 0;
			const char *call = "rpma_send";
			if (mode_ == AofMode::GPSPM) {
				const uint64_t at = targets_[t].base + offset;
				(void)requests_[t].post(start ? aof_start_request()
							      : FlushRequest{at, length, wire},
							&ret);
			} else if (start) {
				ret = tail_posts(t, 0, wire, &call);
			} else {
				ret = append_posts(t, {offset, length, wire}, &call);
			}
			if (ret && failed(post_failed(t, call, ret)))
				return Result::FAILED;
		}
		return Result::DONE;
	}

	// The records' flush, then the pointer's update.
	Result post_apm_append(unsigned t, const Flush &f, uint64_t token)
	{
		const char *call;
		int ret = append_posts(t, {f.offset, f.length, token}, &call);
		return ret ? rpma_failed(td_, call, ret) : Result::DONE;
	}

	int append_posts(unsigned t, const Flush &f, const char **call)
	{
		const Target &x = targets_[t];
		*call = "rpma_flush";
		if (int ret = rpma_flush(x.conn, x.remote, x.base + f.offset, f.length, type_[t],
					 RPMA_F_COMPLETION_ON_ERROR, nullptr))
			return ret;
		return tail_posts(t, f.offset + f.length, f.token, call);
	}

	Result post_tail(unsigned t, uint64_t length, uint64_t token)
	{
		const char *call;
		int ret = tail_posts(t, length, token, &call);
		return ret ? rpma_failed(td_, call, ret) : Result::DONE;
	}

	// The pointer's atomic write (fenced: it waits for any flush before
	// it), the pointer's flush, which carries the token.
	int tail_posts(unsigned t, uint64_t length, uint64_t token, const char **call)
	{
		const Target &x = targets_[t];
		const uint64_t tail = log_tail_bytes(length);
		char src[8];
		std::memcpy(src, &tail, sizeof(src));
		*call = "rpma_atomic_write";
		if (int ret = rpma_atomic_write(x.conn, x.remote, LOG_TAIL_OFFSET, src,
						RPMA_F_COMPLETION_ON_ERROR, nullptr))
			return ret;
		*call = "rpma_flush";
		return rpma_flush(x.conn, x.remote, LOG_TAIL_OFFSET, sizeof(tail), type_[t],
				  RPMA_F_COMPLETION_ALWAYS, reinterpret_cast<const void *>(token));
	}

	Result message_completion(const ibv_wc &wc, unsigned t, uint64_t *token) override
	{
		return requests_[t].completion(wc, token);
	}

	// Replicas: a replicated operation's completion counts for the quorum;
	// a read's is the read's.
	Result acknowledged(unsigned t, uint64_t *token) override
	{
		if (*token == AOF_START_CONTEXT)
			*token = quorum_.ack(t, 0); // the log's start: the first
		else if (*token & REPLICA_OP)
			*token = quorum_.ack(t, *token & ~REPLICA_OP);
		return Result::DONE;
	}

	// "replica 2 of 3 (192.0.2.1:7205)"
	std::string replica_name(unsigned t) const
	{
		return "replica " + std::to_string(t + 1) + " of " + std::to_string(ntargets_) +
		       " (" + targets_[t].ip + ":" + targets_[t].port + ")";
	}

	Result target_lost(unsigned t, const char *why, uint64_t *token) override
	{
		*token = quorum_.lose(t);
		const auto ull = [](uint64_t v) { return static_cast<unsigned long long>(v); };
		const std::string name = replica_name(t);
		const unsigned live = quorum_.live();
		// a reading job reads one replica: the others are not waited for
		if (quorum_.reachable() || next_append_ == NOT_APPENDING) {
			note("%s[%u]: %s dropped at log offset %llu: %s; %u replica%s left, "
			     "write_quorum=%u: the job goes on\n",
			     td_->io_ops->name, td_->thread_number, name.c_str(),
			     ull(quorum_.durable(t)), why, live, live == 1 ? "" : "s", needed_);
			return Result::DONE;
		}
		return fail(
			td_, EIO, "write quorum",
			"the write quorum is lost: %s dropped at log offset %llu: %s; %u replica%s "
			"left, write_quorum=%u: the appends at log offsets [%llu, %llu) "
			"(%zu I/O%s in flight) could not be acknowledged",
			name.c_str(), ull(quorum_.durable(t)), why, live, live == 1 ? "" : "s",
			needed_, ull(quorum_.released()), ull(next_append_), in_flight(),
			in_flight() == 1 ? "" : "s");
	}

	Result stalled() override
	{
		const std::string why = "no completion for " +
					std::to_string(
						std::chrono::duration_cast<std::chrono::seconds>(
							OPERATION_TIMEOUT)
							.count()) +
					" s with operations outstanding";
		Result r = Result::RETRY;
		for (unsigned t = 0; t < ntargets_ && r != Result::FAILED; t++)
			if (quorum_.owes(t))
				r = lose_target(t, why.c_str());
		return r;
	}

	void finish() override
	{
		const FlushRequest notice = aof_end_notice(
			appended_.value_or(AOF_NOTHING_APPENDED));
		if (!replicated()) {
			requests_[0].finish(notice, [this] { return poll_batch(); });
			return;
		}
		// the replicas that lag get their last operations done first:
		// each then checks the whole log
		const auto deadline = Clock::now() + std::chrono::milliseconds(GOODBYE_TIMEOUT_MS);
		while (!quorum_.drained() && Clock::now() < deadline)
			if (failed(poll_batch()))
				return;
		for (unsigned t = 0; t < ntargets_; t++)
			if (!targets_[t].lost)
				requests_[t].finish(notice, [this] { return poll_batch(); });
		for (unsigned t = 0; t < ntargets_; t++)
			note("%s[%u]: %s: %s at %llu bytes\n", td_->io_ops->name,
			     td_->thread_number, replica_name(t).c_str(),
			     targets_[t].lost ? "lost" : "tail",
			     static_cast<unsigned long long>(quorum_.durable(t)));
	}
};

std::unique_ptr<Client> make()
{
	return std::make_unique<AofClient>();
}

}
}

ioengine_ops ioengine = rpma_fio::client_ops<rpma_fio::make>("librpma_aof_client",
							     rpma_fio::aof_client_options());
