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
#include "wire_format.hh"
#include "apm_flush.hh"
#include "client_ops.hh"
#include "flush_requests.hh"
#include "report.hh"

#include <cerrno>
#include <cstring>
#include <optional>

namespace rpma_fio {
namespace {

class AofClient final : public Client {
public:
	~AofClient() override
	{
		drop_connection(); // before the messages' memory
	}

private:
	AofMode mode_ = AofMode::APM;
	rpma_flush_type type_ = RPMA_FLUSH_TYPE_VISIBILITY;
	// GPSPM: the flush requests; both: the end-of-run notice
	FlushRequests requests_;
	// the log's length with the appends the latest flush covers
	std::optional<uint64_t> appended_;
	bool started_ = false; // start_log() ran: fio may open the file again

	AofMode aof_mode() const override { return mode_; }

	// A log is appended to from its start, once over: no random or mixed
	// I/O, no wrap-around.
	Result check_job() override
	{
		mode_ = static_cast<AofMode>(options_of(td_).aof_mode);
		const thread_options &o = td_->o;
		const char *rw = ddir_str(static_cast<td_ddir>(o.td_ddir));
		if (o.td_ddir != TD_DDIR_WRITE && o.td_ddir != TD_DDIR_READ) {
			report(td_,
			       "rw=%s: an append-only log is appended to (rw=write) or read "
			       "back (rw=read), in order",
			       rw);
			return job_failed(td_, EINVAL, "rw");
		}
		if (o.td_ddir == TD_DDIR_READ)
			return Result::DONE;
		if (const char *option = moves_appends(o)) {
			report(td_,
			       "%s: an append-only log is appended to from its beginning, each "
			       "record right after the last, in one file",
			       option);
			return job_failed(td_, EINVAL, option);
		}
		if (o.time_based || o.loops > 1 || (o.io_size && o.size && o.io_size > o.size)) {
			report(td_, "the log is appended to once over: size the run with "
				    "size= (io_size= at most that), without time_based or loops=");
			return job_failed(td_, EINVAL, "size");
		}
		next_append_ = 0;
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
		if (o.io_size && o.io_size > f->io_size) {
			report(td_,
			       "io_size=%llu: more than the %llu bytes of the log's records, "
			       "which are appended to once over",
			       static_cast<unsigned long long>(o.io_size),
			       static_cast<unsigned long long>(f->io_size));
			return job_failed(td_, EINVAL, "io_size");
		}
		started_ = true;
		return start_log();
	}

	// A pointer left by an earlier run (Device DAX, an FS DAX file) would
	// cover the first records before they are persistent: a power cut then
	// would leave a log whose pointer covers records half new, half old.
	// So it is zeroed, persistently, before the first record is written,
	// and only now, when this client has checked the server and its job:
	// zeroed at the accept, a client that then refused the server would
	// have wiped the old log.
	Result start_log()
	{
		if (mode_ == AofMode::GPSPM) {
			if (Result r = requests_.post(aof_start_request()); r != Result::DONE)
				return r == Result::RETRY ? job_failed(td_, EPROTO, "start") : r;
		} else if (Result r = post_tail(0, SYNC_TOKEN); r != Result::DONE) {
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
		if (mode_ == AofMode::GPSPM) {
			// as librpma_gpspm_client's
			uint32_t sq = 3 * iodepth + 1;
			return {sq, iodepth, sq + iodepth};
		}
		// an io_u: a read or a write, and at most one flush of three
		// work requests; the end-of-run notice
		uint32_t sq = 4 * iodepth + 1;
		return {sq, 1, sq + 1};
	}

	Result connected(const Workspace &ws) override
	{
		if (ws.max_msg_num == 0) {
			report(td_, "the log's server takes no messages (max_msg_num 0)");
			return job_failed(td_, EPROTO, "connect");
		}
		if (mode_ == AofMode::GPSPM)
			return requests_.setup(td_, peer_, conn_,
					       std::min<uint32_t>(td_->o.iodepth, ws.max_msg_num));
		if (Result r = apm_flush_type(td_, conn_, remote_, ws, "aof_mode=gpspm", &type_);
		    r != Result::DONE)
			return r;
		return requests_.setup(td_, peer_, conn_, 1);
	}

	Result post_flush(const Flush &f) override
	{
		const uint64_t end = f.offset + f.length;
		Result r = mode_ == AofMode::APM
				   ? post_apm_append(f)
				   : requests_.post({remote_base_ + f.offset, f.length, f.token});
		if (r == Result::DONE)
			appended_ = end;
		return r;
	}

	// The records' flush, then the pointer's update.
	Result post_apm_append(const Flush &f)
	{
		int ret = rpma_flush(conn_, remote_, remote_base_ + f.offset, f.length, type_,
				     RPMA_F_COMPLETION_ON_ERROR, nullptr);
		if (ret)
			return rpma_failed(td_, "rpma_flush", ret);
		return post_tail(f.offset + f.length, f.token);
	}

	// The pointer's atomic write (fenced: it waits for any flush before
	// it), the pointer's flush, which carries the token.
	Result post_tail(uint64_t length, uint64_t token)
	{
		const uint64_t tail = log_tail_bytes(length);
		char src[8];
		std::memcpy(src, &tail, sizeof(src));
		int ret = rpma_atomic_write(conn_, remote_, LOG_TAIL_OFFSET, src,
					    RPMA_F_COMPLETION_ON_ERROR, nullptr);
		if (ret)
			return rpma_failed(td_, "rpma_atomic_write", ret);
		ret = rpma_flush(conn_, remote_, LOG_TAIL_OFFSET, sizeof(tail), type_,
				 RPMA_F_COMPLETION_ALWAYS, reinterpret_cast<const void *>(token));
		return ret ? rpma_failed(td_, "rpma_flush", ret) : Result::DONE;
	}

	Result message_completion(const ibv_wc &wc, uint64_t *token) override
	{
		return requests_.completion(wc, token);
	}

	void finish() override
	{
		requests_.finish(aof_end_notice(appended_.value_or(AOF_NOTHING_APPENDED)),
				 [this] { return poll_batch(); });
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
