// SPDX-License-Identifier: BSD-3-Clause
#include "conn.hh"

#include <new>
#include <utility>

#include "config.h"
#include "error.hh"
#include "log.hh"
#include "mw.hh"
#include "peer.hh"

namespace rpma {

namespace {

// Connection parameters of upstream librpma, which old peers expect.
constexpr uint8_t RETRY_COUNT = 7;
constexpr uint8_t RNR_RETRY_COUNT = 7; // 7: retry forever on receiver-not-ready

rpma_conn_event translate(rdma_cm_event_type type) noexcept
{
	switch (type) {
	case RDMA_CM_EVENT_ESTABLISHED:
		return RPMA_CONN_ESTABLISHED;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return RPMA_CONN_LOST;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return RPMA_CONN_CLOSED;
	case RDMA_CM_EVENT_REJECTED:
		return RPMA_CONN_REJECTED;
	case RDMA_CM_EVENT_UNREACHABLE:
		return RPMA_CONN_UNREACHABLE;
	default:
		return RPMA_CONN_UNDEFINED;
	}
}

} // namespace

const char *conn_event_text(rpma_conn_event event) noexcept
{
	switch (event) {
	case RPMA_CONN_UNDEFINED:
		return "Undefined connection event";
	case RPMA_CONN_ESTABLISHED:
		return "Connection established";
	case RPMA_CONN_CLOSED:
		return "Connection closed";
	case RPMA_CONN_LOST:
		return "Connection lost";
	case RPMA_CONN_REJECTED:
		return "Connection rejected";
	case RPMA_CONN_UNREACHABLE:
		return "Connection unreachable";
	}
	return "Unsupported connection event";
}

Conn::Conn(Peer &peer, CmIdOwner id, std::unique_ptr<ConnQueues> queues, PrivateData private_data)
	: id_(std::move(id)), queues_(std::move(queues)), private_data_(std::move(private_data)),
	  qp_(queues_->qp())
{
	events_ = create_event_channel();
	if (rdma_migrate_id(id_.get(), events_.get()))
		throw_provider("rdma_migrate_id()", errno_or(EIO));

	// the emulated flush reads into it: a read destination, which an iWARP
	// device writes as a remote peer would (docs/platforms.md)
	errno = 0;
	flush_mr_ = MrOwner(ibv_reg_mr(peer.pd(), flush_page_.get(), FLUSH_LENGTH,
				       peer.access_for(RPMA_MR_USAGE_READ_DST)));
	if (!flush_mr_)
		throw_provider("ibv_reg_mr()", errno_or(EIO));
	flush_lkey_ = flush_mr_->lkey;

	// The provider fills in only the verbs the QP was created with.
	if (peer.native_atomic_write() || peer.native_flush())
		qpx_ = ibv_qp_to_qp_ex(qp_);
#if HAVE_DECL_IBV_WR_ATOMIC_WRITE
	native_atomic_write_ = qpx_ && qpx_->wr_atomic_write;
#endif
#if HAVE_DECL_IBV_WR_FLUSH
	native_flush_ = qpx_ && qpx_->wr_flush;
#endif
}

void Conn::establish(bool incoming, const rpma_conn_private_data *pdata, bool qp_ready)
{
	rdma_conn_param param{};
	param.responder_resources = RDMA_MAX_RESP_RES;
	param.initiator_depth = RDMA_MAX_INIT_DEPTH;
	param.flow_control = 1;
	param.retry_count = RETRY_COUNT;
	param.rnr_retry_count = RNR_RETRY_COUNT;
	if (pdata) {
		param.private_data = pdata->ptr;
		param.private_data_len = pdata->len;
	}
	if (incoming && qp_ready) {
		// rdma_accept() moves id->qp through INIT, RTR and RTS, which would
		// fail on a queue pair in RTS; on an id without a QP it takes the
		// QP's number and SRQ flag from the parameters and leaves the QP
		// alone (librdmacm of rdma-core 44 and later).
		param.qp_num = qp_->qp_num;
		param.srq = qp_->srq ? 1 : 0;
		rdma_cm_id *id = id_.get();
		ibv_qp *qp = std::exchange(id->qp, nullptr);
		const int ret = rdma_accept(id, &param);
		const int err = errno_or(EIO);
		id->qp = qp;
		if (ret)
			throw_provider("rdma_accept()", err);
	} else if (incoming) {
		if (rdma_accept(id_.get(), &param))
			throw_provider("rdma_accept()", errno_or(EIO));
	} else {
		if (rdma_connect(id_.get(), &param))
			throw_provider("rdma_connect()", errno_or(EIO));
	}
}

int Conn::bind_mw(Mw &mw, const MrLocal &mr, size_t offset, size_t len, int usage, int flags,
		  const void *op_context) noexcept
{
	const auto lock = lock_windows();
	if (int ret = mw.reserve(*queues_, mr, offset, len, usage))
		return ret;
	ibv_send_wr wr;
	mw.bind_request(wr, signaled(flags), reinterpret_cast<uintptr_t>(op_context));
	if (int ret = queues_->send(wr)) {
		mw.invalidate();
		return ret;
	}
	mw.posted();
	return 0;
}

int Conn::next_event(rpma_conn_event *event) noexcept
{
	CmEvent cm_event;
	if (int ret = next_cm_event(events_.get(), cm_event))
		return ret;

	const rdma_cm_event_type type = cm_event->event;
	bool stored_now = false;
	// The active side learns the peer's private data from ESTABLISHED.
	if (type == RDMA_CM_EVENT_ESTABLISHED && private_data_.empty()) {
		try {
			private_data_ = PrivateData(cm_event->param.conn.private_data,
						    cm_event->param.conn.private_data_len);
		} catch (const std::bad_alloc &) {
			cm_event.ack();
			return RPMA_E_NOMEM;
		}
		stored_now = !private_data_.empty();
	}
	if (int err = cm_event.ack()) {
		if (stored_now)
			private_data_.clear();
		return provider_error("rdma_ack_cm_event()", err);
	}

	const rpma_conn_event translated = translate(type);
	if (translated == RPMA_CONN_UNDEFINED) {
		RPMA_LOG_WARNING("Unexpected event received: %s", rdma_event_str(type));
		return RPMA_E_UNKNOWN;
	}
	RPMA_LOG_NOTICE("%s", conn_event_text(translated));
	*event = translated;
	return 0;
}

int Conn::refuse_flush(FlushRefusal why) noexcept
{
	switch (why) {
	case FlushRefusal::NONE:
		return 0;
	case FlushRefusal::RANGE:
	case FlushRefusal::UNKNOWN_TYPE:
		return RPMA_E_INVAL;
	case FlushRefusal::PEER_NOT_PMEM:
		RPMA_LOG_ERROR("Connection does not support flush to persistency. "
			       "Check if the remote node supports direct write to "
			       "persistent memory.");
		return RPMA_E_NOSUPP;
	case FlushRefusal::REGION_NOT_PERSISTENT:
		RPMA_LOG_ERROR("The remote memory region does not support flushing to "
			       "persistency");
		return RPMA_E_NOSUPP;
	case FlushRefusal::REGION_NOT_VISIBLE:
		RPMA_LOG_ERROR("The remote memory region does not support flushing to "
			       "global visibility");
		return RPMA_E_NOSUPP;
	}
	return RPMA_E_UNKNOWN;
}

int Conn::wait(Cq **cq, bool *is_rcq) noexcept
{
	ibv_comp_channel *channel = shared_channel();
	if (!channel)
		return RPMA_E_NOT_SHARED_CHNL;
	ibv_cq *event_cq = nullptr;
	void *event_context = nullptr;
	if (ibv_get_cq_event(channel, &event_cq, &event_context))
		return RPMA_E_NO_COMPLETION;
	// Acknowledged whatever it is: ibv_destroy_cq waits for every event.
	ibv_ack_cq_events(event_cq, 1);

	Cq *fired = nullptr;
	if (event_cq == queues_->cq()->ibv())
		fired = queues_->cq();
	else if (queues_->rcq() && event_cq == queues_->rcq()->ibv())
		fired = queues_->rcq();
	if (!fired) {
		RPMA_LOG_ERROR("ibv_get_cq_event() returned an unknown CQ");
		return RPMA_E_UNKNOWN;
	}
	if (is_rcq)
		*is_rcq = fired == queues_->rcq();
	if (int ret = fired->arm()) {
		*cq = nullptr;
		return ret;
	}
	*cq = fired;
	return 0;
}

int Conn::disconnect() noexcept
{
	if (rdma_disconnect(id_.get()))
		return provider_error("rdma_disconnect()", errno_or(EIO));
	RPMA_LOG_NOTICE("Requesting for disconnection");
	return 0;
}

int Conn::native_atomic_write([[maybe_unused]] const MrRemote &dst,
			      [[maybe_unused]] size_t dst_offset,
			      [[maybe_unused]] const char src[8], [[maybe_unused]] int flags,
			      [[maybe_unused]] const void *op_context) noexcept
{
#if HAVE_DECL_IBV_WR_ATOMIC_WRITE
	return post_extended(op_context, signaled(flags) | IBV_SEND_FENCE, [&](ibv_qp_ex *qpx) {
		ibv_wr_atomic_write(qpx, dst.rkey(), dst.address() + dst_offset, src);
	});
#else
	return RPMA_E_NOSUPP;
#endif
}

int Conn::native_flush([[maybe_unused]] const MrRemote &dst, [[maybe_unused]] size_t dst_offset,
		       [[maybe_unused]] size_t len, [[maybe_unused]] rpma_flush_type type,
		       [[maybe_unused]] int flags, [[maybe_unused]] const void *op_context) noexcept
{
#if HAVE_DECL_IBV_WR_FLUSH
	const uint8_t ptype = type == RPMA_FLUSH_TYPE_PERSISTENT ? IBV_FLUSH_PERSISTENT
								 : IBV_FLUSH_GLOBAL;
	return post_extended(op_context, signaled(flags), [&](ibv_qp_ex *qpx) {
		ibv_wr_flush(qpx, dst.rkey(), dst.address() + dst_offset, len, ptype,
			     IBV_FLUSH_RANGE);
	});
#else
	return RPMA_E_NOSUPP;
#endif
}

int Conn::release() noexcept
{
	// the queue pair first: a flush posted last may still be writing
	// into the sink
	int ret = queues_ ? queues_->release() : 0;
	if (int mr_ret = flush_mr_.reset(); !ret)
		ret = mr_ret;
	if (int id_ret = id_.reset(); !ret)
		ret = id_ret;
	if (int channel_ret = events_.reset(); !ret)
		ret = channel_ret;
	private_data_.clear();
	return ret ? provider_error("releasing the connection", ret) : 0;
}

} // namespace rpma
