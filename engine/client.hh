// SPDX-License-Identifier: BSD-3-Clause
// client.hh -- the part of librpma_apm_client and librpma_gpspm_client that
// does not depend on how writes are made persistent.
//
// An io_u goes through: pending (queued by fio) -> posted (commit) ->
// completed (the completion that finishes it arrived) -> handed to fio
// (getevents). Of a run of reads committed together only the last is
// signaled; writes are never signaled, the flushes after them are (APM:
// rpma_flush; GPSPM: a flush request to the server), shared and posted
// only when the client has to wait (docs/engines.md, "Writes share their
// flushes").
// With sync=1 fio waits for each io_u inside queue(): the client then posts
// it (and a write's own flush) and polls for the completion that ends it,
// with none of that bookkeeping (run_sync).
//
// fio frees its io_u buffers before it closes the engine, and after an
// error it does not wait for the io_us in flight: it asks for them once.
// So once the job fails the client gives up at once: it destroys the
// queue pair (the device writes nothing more into fio's buffers),
// deregisters the buffers, and hands every io_u fio gave it back with
// EIO. After a good run the same happens, after the goodbye, in
// io_u_free, the hook fio calls just before it frees the buffers.
#ifndef RPMA_ENGINE_CLIENT_HH
#define RPMA_ENGINE_CLIENT_HH

#include "compiler.hh"
#include "fio.hh"
#include "conn_events.hh"
#include "inflight.hh"
#include "link.hh"
#include "result.hh"
#include "wire_format.hh"

#include <librpma.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rpma_fio {

struct QueueSizes {
	uint32_t sq, rq, cq;
};

class Client {
public:
	virtual ~Client();

	// fio's hooks; `make` creates the APM or the GPSPM flavour.
	static int init(thread_data *td, std::unique_ptr<Client> (*make)());
	static int post_init(thread_data *td);
	static int get_file_size(thread_data *td, fio_file *f);
	static int open_file(thread_data *td, fio_file *f);
	static int close_file(thread_data *td, fio_file *f);
	static fio_q_status queue(thread_data *td, io_u *u);
	static int commit(thread_data *td);
	static int getevents(thread_data *td, unsigned min, unsigned max, const timespec *t);
	static io_u *event(thread_data *td, int i);
	static void io_u_free(thread_data *td, io_u *u);
	static void cleanup(thread_data *td);

protected:
	// Refuses a job the flavour cannot run (before connecting).
	virtual Result check_job() { return Result::DONE; }
	// The append-only log's method the flavour asks the server for in its
	// connection request, and requires of it (NONE: a server of the APM
	// or GPSPM engines).
	virtual AofMode aof_mode() const { return AofMode::NONE; }
	// Whether the connection request promises the end-of-run notice
	// (wire_format.hh), which finish() sends if the server can take it.
	virtual bool sends_end_notice() const { return false; }
	// What the flavour asks of the connection, for a job of iodepth io_us.
	virtual QueueSizes queue_sizes(unsigned iodepth) const = 0;
	// Which writes may share one flush.
	virtual InFlight::Merge flush_merge() const = 0;
	// Called once target t is connected; refuses a server it cannot work
	// with.
	virtual Result connected(const Workspace &ws, unsigned t) = 0;
	// DONE: posted; RETRY: not now, retry once something completes
	virtual Result post_flush(const Flush &flush) = 0;
	// A successful completion of target t that is not an RDMA
	// read/write/flush: sets *token to the token of the flush it
	// completes, if it does.
	virtual Result message_completion(const ibv_wc &wc, unsigned t, uint64_t *token) = 0;
	// How many servers a job may name (serverip=A,B,C): more than one are
	// the replicas of one log, each written at the same offsets
	// (docs/engines.md, "Replicas").
	virtual unsigned max_targets() const { return 1; }
	// Replicas: a completion of target t carried *token (not 0); sets
	// *token to what completes now (0: nothing yet).
	virtual Result acknowledged(unsigned, uint64_t *) { return Result::DONE; }
	// Replicas: target t is gone (why: what showed it); DONE when the job
	// goes on without it, with *token what its loss lets complete (0:
	// nothing), or FAILED, reported.
	virtual Result target_lost(unsigned, const char *, uint64_t *) { return Result::FAILED; }
	// Replicas: nothing completed for OPERATION_TIMEOUT: drops the targets
	// that owe completions (lose_target()); RETRY if none does.
	virtual Result stalled() { return Result::RETRY; }
	// Before disconnecting after a good run: tell the server it is over.
	virtual void finish() {}
	// fio opened the job's file f (its range checked): DONE, or FAILED
	// (reported).
	virtual Result opened(const fio_file *) { return Result::DONE; }
	// What makes writes persistent if not rpma_flush (nor rpma_atomic_
	// write), to say so instead of what those would be made of; nullptr
	// when the flavour uses them.
	virtual const char *persistence_without_flush() const { return nullptr; }

	// Disconnects and destroys the queue pair, if there is one: the device
	// then writes into no memory registered for it.
	void drop_connection();

	// Polls for completions once, handling them: DONE if there were some,
	// RETRY if not.
	Result poll_batch();

	// Replicas: target t failed (why): drops its connection and asks
	// target_lost(); DONE when the job goes on, else FAILED.
	Result lose_target(unsigned t, const char *why);
	// A post to target t failed: the job fails, or, with replicas, loses t.
	RPMA_COLD Result post_failed(unsigned t, const char *call, int ret);
	bool replicated() const { return ntargets_ > 1; }
	// io_us posted and not complete
	size_t in_flight() const { return inflight_.size(); }

	// A server of the job, and its region: fio's "file" is [base, +
	// remote_size_) of it (the append-only log's records: past its tail
	// pointer).
	struct Target {
		std::string ip, port;
		rpma_conn *conn = nullptr;
		rpma_cq *cq = nullptr;
		rpma_mr_remote *remote = nullptr;
		uint64_t base = 0;
		bool lost = false; // replicas: dropped during the run
	};
	static constexpr unsigned MAX_TARGETS = 3;

	thread_data *td_;
	rpma_peer *peer_ = nullptr; // one device reaches every target
	std::array<Target, MAX_TARGETS> targets_;
	unsigned ntargets_ = 0;
	unsigned reader_ = 0;      // reads go to this target: the first not lost
	uint64_t remote_size_ = 0; // the smallest of the targets' regions
	// The op_context of an operation waited for alone (wait_alone(): an
	// I/O done with sync=1): nothing else is in flight then, so any token
	// that comes back is its.
	static constexpr uint64_t SYNC_TOKEN = 1;
	// Waits for the completion that carries a token, nothing else being in
	// flight: DONE, or FAILED.
	Result wait_alone();
	// An appending client's next write must start here (fio's offset):
	// a log has no holes and never steps back. NOT_APPENDING: any offset.
	static constexpr uint64_t NOT_APPENDING = UINT64_MAX;
	uint64_t next_append_ = NOT_APPENDING;

private:
	// FAILED, saying that u is not at next_append_.
	Result misplaced_append(const io_u *u);
	Result connect();
	// Whether the server's workspace is of the kind of server this
	// flavour works with, saying why not.
	Result check_server(const Workspace &ws, const Target &target);
	void tell_native_ops();
	// What a stalled job's message adds when it posts native verbs.
	std::string native_ops_suspect(ibv_wc_status status) const;
	// The per-I/O paths are built twice, chosen by replicated() where fio
	// enters them (queue, commit, getevents): with Replicas false they
	// know their one target at compile time, so a job of one target walks
	// no targets_ and tests no lost flag nor released_ on each poll.
	template <bool Replicas> unsigned walked_targets() const
	{
		return Replicas ? ntargets_ : 1;
	}
	template <bool Replicas> RPMA_INLINE size_t post(io_u *const *batch, size_t n);
	// The helpers of the per-I/O paths are inlined into them: their calls'
	// register saves and restores cost as much as their work.
	template <bool Replicas> RPMA_INLINE Result read(io_u *u, int flags, uint64_t token);
	template <bool Replicas> RPMA_INLINE Result write(io_u *u);
	template <bool Replicas> RPMA_INLINE Result post_read(io_u *u, bool signaled);
	template <bool Replicas> RPMA_INLINE Result post_write(io_u *u);
	Result post_sync(io_u *u);
	Result post_flushes();
	template <bool Replicas>
	RPMA_INLINE Result completion_token(const ibv_wc &wc, unsigned t, uint64_t *token);
	template <bool Replicas> RPMA_INLINE Result handle(const ibv_wc &wc, unsigned t);
	template <bool Replicas> Result poll_batch();
	// serverip= and port= into targets_: DONE, or FAILED (reported).
	Result parse_targets();
	Result connect_target(unsigned t, rpma_conn_cfg *cfg, const rpma_conn_private_data &request,
			      bool iwarp);
	Result accept_target(unsigned t);
	Result overflow();
	fio_q_status queue_sync(io_u *u);
	// out of line, and the refusal out of the way: queue() and
	// queue_async() then need no frame
	RPMA_OUT_OF_LINE fio_q_status queue_async(io_u *u);
	RPMA_COLD fio_q_status refuse(io_u *u);
	template <bool Replicas> RPMA_INLINE Result run_sync(io_u *u);
	template <bool Replicas> RPMA_INLINE Result sync_flush(uint64_t offset, uint64_t length);
	template <bool Replicas> RPMA_INLINE Result sync_poll(uint64_t *token);
	template <bool Replicas> RPMA_INLINE Result sync_wait();
	Result wait_for_completions();
	RPMA_INLINE Result idle(size_t in_flight);
	Result idle_checks(size_t in_flight);
	// the rest of getevents(), which returns what it returns
	int getevents_wait(unsigned min, unsigned max);
	template <bool Replicas> Result reap(unsigned min);
	Result connection_check();
	Result link_check(size_t in_flight);
	Result stall_check(size_t in_flight);
	// Destroys the queue pair, then deregisters fio's buffers.
	void release_buffers();
	void abandon();
	void give_back(io_u *u);
	void end();

	rpma_mr_local *local_ = nullptr;
	char *local_base_ = nullptr;
	// Replicas: each record is copied here, and sent to every replica from
	// here, not from its io_u. fio refills an io_u's buffer as soon as the
	// quorum holds its append, while a replica that lags may not have sent
	// it yet: it would send the next record's bytes, which that replica's
	// tail pointer then covers (tests/twohosts/aof-poweroff --replicas). A
	// slot is used again after stage_slots_ writes, and a live replica never
	// owes more than 2 * iodepth of them (Quorum's lag: iodepth behind the
	// released point, which is at most iodepth behind the last write posted).
	std::vector<char> stage_;
	rpma_mr_local *stage_mr_ = nullptr;
	size_t stage_slot_ = 0, stage_slots_ = 0;
	uint64_t staged_ = 0; // writes staged so far
	bool busy_poll_ = true;
	LinkWatch link_;

	// sized for iodepth io_us once, in post_init: no allocation per I/O
	std::vector<io_u *> pending_; // [0, npending_) queued, not committed
	size_t npending_ = 0;
	InFlight inflight_; // and the complete ones, until fio takes them
	unsigned idle_polls_ = 0;
	// completions handled; the count and the time stall_check last saw it move
	uint64_t completions_ = 0;
	uint64_t stall_mark_ = 0;
	Clock::time_point stall_since_;
	bool failed_ = false; // the job failed: the connection is gone
	// replicas: what a target's loss let complete, for the next poll
	uint64_t released_ = 0;
	bool sync_reading_ = false; // sync=1: a read is in flight
};

}

#endif
