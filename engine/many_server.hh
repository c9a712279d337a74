// SPDX-License-Identifier: BSD-3-Clause
// many_server.hh -- a server job with clients=N (N > 1): it listens on one
// port and serves N connections, from any hosts, in its one thread.
//
// The job maps N times size= bytes; connection k (in the order they are
// accepted) gets [k * size, (k + 1) * size), registered on its own and
// described in its own workspace, so a client sees exactly what a job of
// clients=1 would show it. Connections are accepted while the others are
// served. A client that fails or vanishes is reported by name (its number,
// the job's address and port, and its own address) and closed; the others
// go on. The job ends once N
// connections came and all of them ended; it fails if any of them failed.
#ifndef RPMA_ENGINE_MANY_SERVER_HH
#define RPMA_ENGINE_MANY_SERVER_HH

#include "conn_events.hh"
#include "server.hh"

#include <poll.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace rpma_fio {

std::unique_ptr<Server> make_apm_many();
std::unique_ptr<Server> make_gpspm_many();

class ManyServer : public Server {
public:
	~ManyServer() override;

protected:
	enum class State { Connecting, Serving, Ended, Failed };

	// One client's connection.
	struct Peer {
		rpma_conn *conn = nullptr;
		rpma_mr_local *mr = nullptr; // its region of the memory
		rpma_cq *cq = nullptr;
		int event_fd = -1, cq_fd = -1;
		uint32_t qp = 0;
		State state = State::Connecting;
		std::string name;          // for messages: "client K of N at ADDR:PORT"
		int err = 0;               // why it failed (errno)
		Clock::time_point since{}; // connecting since
		Probe probe;
		ibv_wc_status probe_failed = IBV_WC_SUCCESS; // settle() says why

		bool live() const { return state == State::Connecting || state == State::Serving; }
	};

	unsigned clients() const { return static_cast<unsigned>(peers_.size()); }
	Peer &peer(size_t k) { return peers_[k]; }
	// the client whose queue pair is qp, or nullptr
	Peer *peer_of_qp(uint32_t qp);
	size_t index_of(const Peer &p) const { return &p - peers_.data(); }

	// The flavour's share of the serving loop:
	// Some work without waiting: DONE if it did some, RETRY if there was
	// none, FAILED (the whole job).
	virtual Result work() { return Result::RETRY; }
	// Whether a disconnect of p now ends its run as it should.
	virtual bool ended_run(Peer &) { return true; }
	// The signs of life p has given (what it has sent; 0: it sends nothing).
	virtual uint64_t signs_of(const Peer &) const { return 0; }
	// A completion of p's queue other than the probe's: DONE (p may be
	// lost by it), or FAILED (the whole job).
	virtual Result sent(Peer &, const ibv_wc &) { return Result::DONE; }
	// Before client k's connection request is taken (its queues are made
	// from configure()).
	virtual Result before_accept(size_t) { return Result::DONE; }
	// Client k's connection request came: the last moment to post
	// receives for it. DONE, or FAILED (the whole job).
	virtual Result taking(size_t, rpma_conn_req *) { return Result::DONE; }
	// The receives posted for client k (its workspace's max_msg_num).
	virtual uint16_t receives_of(size_t) const { return msg_slots(); }
	// p ended, or failed: forget what the flavour keeps for it.
	virtual void dropped(Peer &) {}
	// A file descriptor of the flavour's to wait on, or -1; and what to
	// do when it is readable.
	virtual int extra_fd() const { return -1; }
	virtual Result extra_ready() { return Result::DONE; }
	// busy_wait_polling= applies (GPSPM), else the loop sleeps.
	virtual bool may_spin() const { return false; }

	// Takes the completions of p's queue.
	Result take_completions(Peer &p);
	// Closes every connection (before what their queues use goes).
	void close_all();
	// Ends p's run with `what` (reported): the others go on.
	void lose(Peer &p, int err, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

private:
	Result open(fio_file *f) override;
	void goodbye() override;
	Result serve() override;

	// work(), never entered again from inside (ended())
	Result do_work();
	// What the probes that failed since the last call mean.
	Result settle();
	Result accept_one();
	Result wait(int timeout_ms);
	Result conn_event(Peer &p);
	Result ended(Peer &p, rpma_conn_event ev);
	Result checks();
	Result check_liveness(Peer &p, Clock::time_point now);
	void close_peer(Peer &p);
	void stop_listening();
	bool finished() const;

	std::vector<Peer> peers_;
	std::unordered_map<uint32_t, size_t> by_qp_;
	std::vector<pollfd> fds_;
	std::vector<size_t> fd_owner_; // the client of each pair of fds_
	ibv_context *dev_ = nullptr;
	rpma_ep *ep_ = nullptr;
	std::string port_;
	size_t accepted_ = 0;         // connection requests taken
	bool gave_up_ = false;        // runtime= passed before all came
	Clock::time_point checked_{}; // the checks' last run
	std::vector<size_t> failing_; // clients whose probe failed, for settle()
	bool working_ = false;        // inside work()
	static constexpr auto CHECK_PERIOD = std::chrono::milliseconds(POLL_MS);
	Clock::time_point listening_since_{};
};

}

#endif
