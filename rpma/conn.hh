// SPDX-License-Identifier: BSD-3-Clause
// An RDMA connection and its data path. Each data-path call builds one work
// request on the stack and makes one verbs call: no allocation, lock or
// system call of the library's own.
#ifndef RPMA_CONN_HH
#define RPMA_CONN_HH

#include <arpa/inet.h>

#include <atomic>
#include <cassert>
#include <cstdint>
#include <memory>

#include "conn_queues.hh"
#include "librpma.h"
#include "mr.hh"
#include "page.hh"
#include "private_data.hh"
#include "verbs.hh"

namespace rpma {

class Peer;

// The words for a connection event, as rpma_utils_conn_event_2str() returns
// them.
const char *conn_event_text(rpma_conn_event event) noexcept;

class Conn {
public:
	// Moves the id onto an event channel of the connection's own and
	// registers the buffer the emulated flush reads into (a page of its own).
	Conn(Peer &peer, CmIdOwner id, std::unique_ptr<ConnQueues> queues,
	     PrivateData private_data);
	Conn(const Conn &) = delete;
	Conn &operator=(const Conn &) = delete;
	~Conn() { release(); }

	// rdma_accept() or rdma_connect() with upstream's parameters. qp_ready:
	// the queue pair is in RTS already (ConnReq::connect bound windows).
	void establish(bool incoming, const rpma_conn_private_data *pdata, bool qp_ready);

	// Posts the bind of `mw` over [offset, offset + len) of `mr` granting
	// `usage` (Mw::reserve says what is refused); the completion
	// (IBV_WC_BIND_MW) comes on the connection's CQ as flags ask.
	int bind_mw(Mw &mw, const MrLocal &mr, size_t offset, size_t len, int usage, int flags,
		    const void *op_context) noexcept;

	int event_fd() const noexcept { return events_->fd; }
	int next_event(rpma_conn_event *event) noexcept;
	rpma_conn_private_data private_data() const noexcept { return private_data_.view(); }
	void set_direct_write_to_pmem(bool supported) noexcept
	{
		direct_write_to_pmem_ = supported;
	}
	bool direct_write_to_pmem() const noexcept { return direct_write_to_pmem_.load(); }
	uint32_t qp_num() const noexcept { return qp_->qp_num; }
	Cq *cq() const noexcept { return queues_->cq(); }
	Cq *rcq() const noexcept { return queues_->rcq(); }
	// The shared completion channel, or null.
	ibv_comp_channel *shared_channel() const noexcept { return queues_->shared_channel(); }
	// Waits on the shared channel; see rpma_conn_wait().
	int wait(Cq **cq, bool *is_rcq) noexcept;
	int disconnect() noexcept;

	// The bytes the emulated flush reads at the flushed offset.
	static constexpr size_t FLUSH_LENGTH = 8;

	// Data path. Arguments were validated by the caller (rpma/c/): every
	// local range fits one SGE (MrLocal::holds), so its length narrows to
	// 32 bits losslessly. Checked builds (configure --enable-checked)
	// assert these preconditions.
	int read(const MrLocal *dst, size_t dst_offset, const MrRemote *src, size_t src_offset,
		 size_t len, int flags, const void *op_context) noexcept
	{
		assert(transfer_fits(dst, dst_offset, src, src_offset, len));
		ibv_send_wr wr = work_request(IBV_WR_RDMA_READ, flags, op_context);
		ibv_sge sge;
		if (src)
			set_transfer(wr, sge, dst->address() + dst_offset, len, dst->lkey(), *src,
				     src_offset);
		return post(wr);
	}

	int write(const MrRemote *dst, size_t dst_offset, const MrLocal *src, size_t src_offset,
		  size_t len, int flags, const void *op_context) noexcept
	{
		return write_with(IBV_WR_RDMA_WRITE, dst, dst_offset, src, src_offset, len, flags,
				  0, op_context);
	}

	int write_with_imm(const MrRemote *dst, size_t dst_offset, const MrLocal *src,
			   size_t src_offset, size_t len, int flags, uint32_t imm,
			   const void *op_context) noexcept
	{
		return write_with(IBV_WR_RDMA_WRITE_WITH_IMM, dst, dst_offset, src, src_offset, len,
				  flags, imm, op_context);
	}

	// Eight bytes stored at once. The fence makes an earlier flush (an RDMA
	// read) complete first, so the store lands after the data it publishes.
	int atomic_write(const MrRemote &dst, size_t dst_offset, const char src[8], int flags,
			 const void *op_context) noexcept
	{
		assert(src && dst_offset % 8 == 0 && dst.holds(dst_offset, 8));
		if (native_atomic_write_)
			return native_atomic_write(dst, dst_offset, src, flags, op_context);
		ibv_send_wr wr = work_request(IBV_WR_RDMA_WRITE, flags, op_context);
		wr.send_flags |= IBV_SEND_INLINE | IBV_SEND_FENCE;
		ibv_sge sge;
		set_sge(wr, sge, reinterpret_cast<uintptr_t>(src), 8, 0);
		set_remote(wr, dst, dst_offset);
		return post(wr);
	}

	// The pre-1.0 atomic write: eight bytes taken from a registered region.
	int write_atomic(const MrRemote &dst, size_t dst_offset, const MrLocal &src,
			 size_t src_offset, int flags, const void *op_context) noexcept
	{
		assert(dst_offset % 8 == 0 && dst.holds(dst_offset, 8) && src.holds(src_offset, 8));
		ibv_send_wr wr = work_request(IBV_WR_RDMA_WRITE, flags, op_context);
		wr.send_flags |= IBV_SEND_FENCE;
		ibv_sge sge;
		set_sge(wr, sge, src.address() + src_offset, 8, src.lkey());
		set_remote(wr, dst, dst_offset);
		return post(wr);
	}

	// Natively (where the peer enables it, see Peer::native_flush) the
	// responder flushes the range itself. Otherwise read-after-write: an
	// 8-byte RDMA read of the flushed range cannot pass the writes before it
	// on the same RC queue pair, so its completion means they were placed
	// (persistent where Direct Write to PMem holds). Either way only a flush
	// the connection and the region promise is posted (flush_refusal()).
	int flush(const MrRemote &dst, size_t dst_offset, size_t len, rpma_flush_type type,
		  int flags, const void *op_context) noexcept
	{
		if (const FlushRefusal why = flush_refusal(dst, dst_offset, len, type);
		    why != FlushRefusal::NONE) [[unlikely]]
			return refuse_flush(why);
		if (native_flush_)
			return native_flush(dst, dst_offset, len, type, flags, op_context);
		ibv_send_wr wr = work_request(IBV_WR_RDMA_READ, flags, op_context);
		ibv_sge sge;
		set_transfer(wr, sge, flush_sink_address(), FLUSH_LENGTH, flush_lkey_, dst,
			     dst_offset);
		return post(wr);
	}

	int send(const MrLocal *src, size_t offset, size_t len, int flags,
		 const void *op_context) noexcept
	{
		return send_with(IBV_WR_SEND, src, offset, len, flags, 0, op_context);
	}

	int send_with_imm(const MrLocal *src, size_t offset, size_t len, int flags, uint32_t imm,
			  const void *op_context) noexcept
	{
		return send_with(IBV_WR_SEND_WITH_IMM, src, offset, len, flags, imm, op_context);
	}

	int recv(const MrLocal *dst, size_t offset, size_t len, const void *op_context) noexcept
	{
		assert(message_fits(dst, offset, len));
		ibv_recv_wr wr{};
		wr.wr_id = reinterpret_cast<uintptr_t>(op_context);
		ibv_sge sge;
		if (dst) {
			sge = {dst->address() + offset, static_cast<uint32_t>(len), dst->lkey()};
			wr.sg_list = &sge;
			wr.num_sge = 1;
		}
		return queues_->recv(wr);
	}

	// Releases everything the connection holds; 0 or the first error code.
	int release() noexcept;

private:
	// A work request of an RC queue pair with no SGE and no remote range
	// yet. Only the members the verbs read for the opcodes posted here are
	// set: zeroing all 128 bytes (the XRC, bind and TSO members too) costs
	// more than the rest of the call.
	static ibv_send_wr work_request(ibv_wr_opcode opcode, int flags,
					const void *op_context) noexcept
	{
		ibv_send_wr wr;
		wr.wr_id = reinterpret_cast<uintptr_t>(op_context);
		wr.next = nullptr;
		wr.sg_list = nullptr;
		wr.num_sge = 0;
		wr.opcode = opcode;
		wr.send_flags = signaled(flags);
		wr.imm_data = 0;
		wr.wr.rdma = {0, 0};
		return wr;
	}

	// Only RPMA_F_COMPLETION_ALWAYS asks for a completion on success; errors
	// complete anyway.
	static unsigned signaled(int flags) noexcept
	{
		return (flags & RPMA_F_COMPLETION_ALWAYS & ~RPMA_F_COMPLETION_ON_ERROR)
			       ? IBV_SEND_SIGNALED
			       : 0;
	}

	static void set_sge(ibv_send_wr &wr, ibv_sge &sge, uint64_t addr, size_t len,
			    uint32_t lkey) noexcept
	{
		sge = {addr, static_cast<uint32_t>(len), lkey};
		wr.sg_list = &sge;
		wr.num_sge = 1;
	}

	static void set_remote(ibv_send_wr &wr, const MrRemote &mr, size_t offset) noexcept
	{
		wr.wr.rdma.remote_addr = mr.address() + offset;
		wr.wr.rdma.rkey = mr.rkey();
	}

	static void set_transfer(ibv_send_wr &wr, ibv_sge &sge, uint64_t addr, size_t len,
				 uint32_t lkey, const MrRemote &mr, size_t offset) noexcept
	{
		set_sge(wr, sge, addr, len, lkey);
		set_remote(wr, mr, offset);
	}

	int write_with(ibv_wr_opcode opcode, const MrRemote *dst, size_t dst_offset,
		       const MrLocal *src, size_t src_offset, size_t len, int flags, uint32_t imm,
		       const void *op_context) noexcept
	{
		assert(transfer_fits(src, src_offset, dst, dst_offset, len));
		ibv_send_wr wr = work_request(opcode, flags, op_context);
		wr.imm_data = htonl(imm);
		ibv_sge sge;
		if (src)
			set_transfer(wr, sge, src->address() + src_offset, len, src->lkey(), *dst,
				     dst_offset);
		return post(wr);
	}

	int send_with(ibv_wr_opcode opcode, const MrLocal *src, size_t offset, size_t len,
		      int flags, uint32_t imm, const void *op_context) noexcept
	{
		assert(message_fits(src, offset, len));
		ibv_send_wr wr = work_request(opcode, flags, op_context);
		wr.imm_data = htonl(imm);
		ibv_sge sge;
		if (src)
			set_sge(wr, sge, src->address() + offset, len, src->lkey());
		return post(wr);
	}

	int post(ibv_send_wr &wr) noexcept
	{
		ibv_send_wr *bad = nullptr;
		if (int ret = ibv_post_send(qp_, &wr, &bad)) [[unlikely]]
			return ConnQueues::post_failure("ibv_post_send()", ret);
		return 0;
	}

	// One work request through the extended interface: `add` puts the
	// verb between ibv_wr_start() and ibv_wr_complete().
	template <typename Add>
	int post_extended(const void *op_context, unsigned wr_flags, Add add) noexcept
	{
		ibv_wr_start(qpx_);
		qpx_->wr_id = reinterpret_cast<uintptr_t>(op_context);
		qpx_->wr_flags = wr_flags;
		add(qpx_);
		if (int ret = ibv_wr_complete(qpx_)) [[unlikely]]
			return ConnQueues::post_failure("ibv_wr_complete()", ret);
		return 0;
	}

	// Why a flush may not be posted, if it may not. The rules live here
	// alone, inline on the data path; refuse_flush(), out of line, turns
	// a refusal into its message and error code.
	enum class FlushRefusal {
		NONE,
		RANGE,                 // RPMA_E_INVAL
		UNKNOWN_TYPE,          // RPMA_E_INVAL
		PEER_NOT_PMEM,         // RPMA_E_NOSUPP
		REGION_NOT_PERSISTENT, // RPMA_E_NOSUPP
		REGION_NOT_VISIBLE,    // RPMA_E_NOSUPP
	};

	FlushRefusal flush_refusal(const MrRemote &dst, size_t dst_offset, size_t len,
				   rpma_flush_type type) const noexcept
	{
		// the flushed range, and the bytes the emulated flush reads, must
		// be the region's (upstream posts them unchecked)
		if (!dst.holds(dst_offset, len > FLUSH_LENGTH ? len : FLUSH_LENGTH))
			return FlushRefusal::RANGE;
		switch (type) {
		case RPMA_FLUSH_TYPE_VISIBILITY:
			return (dst.usage() & RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY)
				       ? FlushRefusal::NONE
				       : FlushRefusal::REGION_NOT_VISIBLE;
		case RPMA_FLUSH_TYPE_PERSISTENT:
			if (!direct_write_to_pmem())
				return FlushRefusal::PEER_NOT_PMEM;
			return (dst.usage() & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)
				       ? FlushRefusal::NONE
				       : FlushRefusal::REGION_NOT_PERSISTENT;
		}
		// upstream posts an unknown type unchecked; its manual promises INVAL
		return FlushRefusal::UNKNOWN_TYPE;
	}

	static int refuse_flush(FlushRefusal why) noexcept;
	int native_atomic_write(const MrRemote &dst, size_t dst_offset, const char src[8],
				int flags, const void *op_context) noexcept;
	int native_flush(const MrRemote &dst, size_t dst_offset, size_t len, rpma_flush_type type,
			 int flags, const void *op_context) noexcept;

	uint64_t flush_sink_address() const noexcept
	{
		return reinterpret_cast<uintptr_t>(flush_page_.get());
	}

	// Declared in creation order: destroyed in reverse.
	EventChannelOwner events_;
	CmIdOwner id_;
	std::unique_ptr<ConnQueues> queues_;
	PrivateData private_data_;
	Page flush_page_;
	MrOwner flush_mr_;
	uint32_t flush_lkey_ = 0; // flush_mr_'s, at hand
	ibv_qp *qp_;
	ibv_qp_ex *qpx_ = nullptr; // the extended interface, for the native verbs
	bool native_atomic_write_ = false;
	bool native_flush_ = false;
	std::atomic<bool> direct_write_to_pmem_{false};
};

} // namespace rpma

#endif
