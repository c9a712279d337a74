// SPDX-License-Identifier: BSD-3-Clause
// many_server.hh -- a server job with clients=N (N > 1): it listens on one
// port and serves N connections, from any hosts, in its one thread.
//
// The job maps N times size= bytes; connection k (in the order they are
// accepted) gets [k * size, (k + 1) * size), registered on its own and
// described in its own workspace, so a client sees exactly what a job of
// clients=1 would show it. Connections are accepted while the others are
// served. A client that fails or vanishes is reported by name (its number,
// address and port) and closed; the others go on. The job ends once N
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
		std::string name;          // for messages: "client K of N (ADDR:PORT)"
		int err = 0;               // why it failed (errno)
		Clock::time_point since{}; // connecting since, or quiet since
		// the liveness probe (Server::liveness_check, one per client)
		uint64_t signs = 0;
		Clock::time_point probe_sent{};
		bool probing = false;

		bool live() const { return state == State::Connecting || state == State::Serving; }
	};

	unsigned clients() const { return static_cast<unsigned>(peers_.size()); }
	Peer &peer(size_t k) { return peers_[k]; }
	// the client whose queue pair is qp, or nullptr
	Peer *peer_of_qp(uint32_t qp);
	size_t index_of(const Peer &p) const { return &p - peers_.data(); }

	// The flavour's share of the serving loop:
	// Some work without waiting: 0 if it did some, -1 if there was none,
	// 1 after a failure of the whole job (reported).
	virtual int work() { return -1; }
	// Whether a disconnect of p now ends its run as it should.
	virtual bool ended_run(const Peer &) const { return true; }
	// The signs of life p has given (what it has sent; 0: it sends nothing).
	virtual uint64_t signs_of(const Peer &) const { return 0; }
	// A completion of p's queue other than the probe's: 0, or 1 after
	// failing the whole job (reported); p may be failed by it.
	virtual int sent(Peer &, const ibv_wc &) { return 0; }
	// Before client k's connection request is taken (its queues are made
	// from configure()): 0, or 1 after reporting a failure of the job.
	virtual int before_accept(size_t) { return 0; }
	// p ended, or failed: forget what the flavour keeps for it.
	virtual void dropped(Peer &) {}
	// A file descriptor of the flavour's to wait on, or -1; and what to
	// do when it is readable (0, or 1 after failing the job).
	virtual int extra_fd() const { return -1; }
	virtual int extra_ready() { return 0; }
	// busy_wait_polling= applies (GPSPM), else the loop sleeps.
	virtual bool may_spin() const { return false; }

	// Takes the completions of p's queue: 0, or 1 after failing the job.
	int take_completions(Peer &p);
	// Closes every connection (before what their queues use goes).
	void close_all();
	// Ends p's run with `what` (reported): the others go on.
	void lose(Peer &p, int err, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

private:
	int open(fio_file *f) override;
	void goodbye() override;
	int serve() override;

	int accept_one();
	int wait(int timeout_ms);
	int conn_event(Peer &p);
	int checks();
	int check_liveness(Peer &p, Clock::time_point now);
	void close_peer(Peer &p);
	void stop_listening();
	bool finished() const;

	std::vector<Peer> peers_;
	std::vector<std::array<uint8_t, 28>> workspaces_;
	std::unordered_map<uint32_t, size_t> by_qp_;
	std::vector<pollfd> fds_;
	std::vector<size_t> fd_owner_; // the client of each pair of fds_
	ibv_context *dev_ = nullptr;
	rpma_ep *ep_ = nullptr;
	std::string port_;
	size_t accepted_ = 0;  // connection requests taken
	bool gave_up_ = false; // runtime= passed before all came
	unsigned wakes_ = 0;
	Clock::time_point listening_since_{};
};

}

#endif
