// SPDX-License-Identifier: BSD-3-Clause
// end_notice.hh -- an APM server's side of the end-of-run notice
// (wire_format.hh, "The end of a run"): how it tells a client that ended
// its run from one that was killed, since both only disconnect.
//
// A client that promised the notice gets its receive; its disconnect ends
// its run well only if the notice came first. A client that promises
// nothing (the old engines) is trusted: its disconnect is its end.
#ifndef RPMA_ENGINE_END_NOTICE_HH
#define RPMA_ENGINE_END_NOTICE_HH

#include "fio.hh"
#include "wire_format.hh"
#include "result.hh"

#include <infiniband/verbs.h>
#include <librpma.h>

#include <array>
#include <string>

namespace rpma_fio {

class EndNotice {
public:
	EndNotice() = default;
	EndNotice(const EndNotice &) = delete;
	EndNotice &operator=(const EndNotice &) = delete;
	// The connection is closed before this goes: the device then writes
	// into no receive buffer.
	~EndNotice() { rpma_mr_dereg(&mr_); }

	// Before the accept: if req promises the notice, posts the receive
	// for it (DONE or FAILED, reported).
	Result expect(thread_data *td, rpma_peer *peer, rpma_conn_req *req);
	// The receives posted for the notice: the workspace's max_msg_num.
	uint16_t receives() const { return expected_ ? 1 : 0; }
	// Whether wc is the notice's receive; if so, takes it.
	bool take(const ibv_wc &wc);
	// What the client did with the notice's receive instead of sending
	// the notice (why_no_message()), or "".
	const std::string &misuse() const { return misuse_; }
	// Takes the notice if cq holds it, passing over what else completed
	// there (the connection is ending: a probe's result no longer counts).
	void drain(rpma_cq *cq);
	// Whether a disconnect now ends the run well.
	bool run_ended() const { return !expected_ || came_; }
	// Whether the notice came.
	bool came() const { return came_; }

private:
	std::array<char, MSG_ROOM> buf_{};
	rpma_mr_local *mr_ = nullptr;
	bool expected_ = false;
	bool came_ = false;
	std::string misuse_;
};

}

#endif
