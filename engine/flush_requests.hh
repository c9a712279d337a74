// SPDX-License-Identifier: BSD-3-Clause
// flush_requests.hh -- a client's side of the GPSPM messages: flush requests
// out, their responses in (librpma_gpspm_client; librpma_aof_client, which
// also sends its end-of-run notice with it).
//
// Message buffers: ClientMsgLayout (wire_format.hh), in one MsgMemory
// (msg_memory.hh): no room crosses a page boundary.
//
// A server answers the flush requests in the order they were sent (the old
// server did too, and the old client relied on it as well): a response
// must carry the op_context of the oldest request not answered yet. One
// that does not is a protocol error, which fails the job: taken as it
// came, it would complete writes not flushed yet, or reads the device may
// still be writing into.
#ifndef RPMA_ENGINE_FLUSH_REQUESTS_HH
#define RPMA_ENGINE_FLUSH_REQUESTS_HH

#include "conn_events.hh"
#include "fio.hh"
#include "msg_memory.hh"
#include "report.hh"
#include "result.hh"
#include "ring.hh"
#include "wire_format.hh"

#include <infiniband/verbs.h>
#include <librpma.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <vector>

namespace rpma_fio {

class FlushRequests {
public:
	// The owner drops its connection before this goes: the device then
	// writes into none of the buffers.
	~FlushRequests() { rpma_mr_dereg(&mr_); }

	// Registers the buffers on peer and posts the receives of `slots`
	// responses on conn: at most `slots` requests are ever outstanding.
	Result setup(thread_data *td, rpma_peer *peer, rpma_conn *conn, uint32_t slots);

	// Sends a request: DONE, RETRY while `slots` are unanswered or every
	// send buffer waits for its SEND completion, or FAILED.
	Result post(const FlushRequest &req);
	// post() would not RETRY now.
	bool ready() const { return !unanswered_.full() && free_send_slot(); }
	// As post(), but a failed rpma_send is not reported: FAILED with its
	// error in *ret (a replica's, which the job may go on without).
	Result post(const FlushRequest &req, int *ret);

	// A SEND or RECV completion of the connection (status success): sets
	// *token to the op_context of a request that is done, or 0. A request
	// is done once both its response and its SEND completion came, in
	// either order: until its SEND completes, the request and the writes
	// posted before it hold their places in the send queue (a loaded rxe
	// gives the SEND completion after the response), and the I/Os done at
	// the response would post more than the queue holds.
	Result completion(const ibv_wc &wc, uint64_t *token);

	// After a good run: sends `notice`, which gets no response, and waits
	// for its SEND to complete, polling with poll() (DONE, RETRY or
	// FAILED, as Client::poll_batch). Only with no request outstanding:
	// then the server has reposted the receive of each, and one is free
	// for the notice; else the SEND would meet RNR NAKs, retried forever,
	// until the deadline. Gives up quietly: the run's result stands.
	template <typename Poll> void finish(const FlushRequest &notice, Poll poll)
	{
		if (!unanswered_.empty())
			return;
		const auto deadline = Clock::now() + std::chrono::milliseconds(GOODBYE_TIMEOUT_MS);
		std::optional<size_t> k;
		while (!(k = free_send_slot()) && Clock::now() < deadline)
			if (failed(poll()))
				return;
		if (!k || send(notice, *k) != Result::DONE)
			return;
		while (sent_[*k].busy && Clock::now() < deadline)
			if (failed(poll()))
				return;
	}

private:
	Result post_recv(size_t k);
	// none if all send buffers wait for their SEND completion
	std::optional<size_t> free_send_slot() const;
	// ret: where a failure goes unreported, or nullptr: reported
	Result send(const FlushRequest &req, size_t k, int *ret = nullptr);
	// A response that is not the answer due (EPROTO): says what it was.
	Result unexpected(uint64_t ctx);

	thread_data *td_ = nullptr;
	rpma_conn *conn_ = nullptr;
	MsgMemory msgs_;
	rpma_mr_local *mr_ = nullptr;
	uint32_t slots_ = 0;
	ClientMsgLayout layout_{0};
	// each send buffer's request: its op_context, and whether its SEND
	// waits for its completion, or its response came before that
	struct Sent {
		uint64_t ctx = 0;
		bool busy = false, answered = false;
	};
	std::vector<Sent> sent_;
	// the requests not answered yet, oldest first: op_context, send buffer
	struct Unanswered {
		uint64_t ctx;
		size_t k;
	};
	Ring<Unanswered> unanswered_;
};

// On every request and response: defined here, where the engines' own
// hooks can take them in.

inline Result FlushRequests::post_recv(size_t k)
{
	int ret = rpma_recv(conn_, mr_, layout_.recv_off(k), MSG_ROOM,
			    reinterpret_cast<const void *>(k));
	return ret ? rpma_failed(td_, "rpma_recv", ret) : Result::DONE;
}

inline std::optional<size_t> FlushRequests::free_send_slot() const
{
	for (size_t k = 0; k < slots_; k++)
		if (!sent_[k].busy)
			return k;
	return std::nullopt;
}

inline Result FlushRequests::send(const FlushRequest &req, size_t k, int *failure)
{
	size_t len = pack_request(req, &msgs_[layout_.send_off(k)], layout_.send_room());
	int ret = rpma_send(conn_, mr_, layout_.send_off(k), len, RPMA_F_COMPLETION_ALWAYS,
			    reinterpret_cast<const void *>(k));
	if (ret && failure) {
		*failure = ret;
		return Result::FAILED;
	}
	if (ret)
		return rpma_failed(td_, "rpma_send", ret);
	sent_[k] = {req.op_context, true, false};
	return Result::DONE;
}

inline Result FlushRequests::post(const FlushRequest &req)
{
	return post(req, nullptr);
}

inline Result FlushRequests::post(const FlushRequest &req, int *ret)
{
	const std::optional<size_t> k = free_send_slot();
	if (unanswered_.full() || !k)
		return Result::RETRY;
	if (Result r = send(req, *k, ret); r != Result::DONE)
		return r;
	(void)unanswered_.push({req.op_context, *k}); // not full: checked above
	return Result::DONE;
}

inline Result FlushRequests::completion(const ibv_wc &wc, uint64_t *token)
{
	if (wc.opcode == IBV_WC_SEND) {
		Sent &s = sent_[wc.wr_id];
		s.busy = false;
		if (s.answered) {
			s.answered = false;
			*token = s.ctx;
		}
		return Result::DONE;
	}
	size_t k = wc.wr_id;
	std::optional<uint64_t> ctx = unpack_response(&msgs_[layout_.recv_off(k)], wc.byte_len);
	if (!ctx)
		return fail(td_, EPROTO, "flush response",
			    "cannot unpack the flush response (%u bytes)", wc.byte_len);
	if (unanswered_.empty() || *ctx != unanswered_.front().ctx) [[unlikely]]
		return unexpected(*ctx);
	Sent &s = sent_[unanswered_.front().k];
	unanswered_.pop();
	if (s.busy)
		s.answered = true;
	else
		*token = *ctx;
	return post_recv(k);
}

}

#endif
