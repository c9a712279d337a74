// SPDX-License-Identifier: BSD-3-Clause
// server.hh -- the part of librpma_{apm,gpspm,aof}_server that does not
// depend on the persistency method: a job that serves clients= connections
// (1 by default) in its one thread.
//
// Opening its "file" maps clients= times size= bytes of memory and
// registers each client's region [k * size, (k + 1) * size) on its own,
// then listens on serverip:port+N-1 (job N). The job's first I/O is the
// serving: connections are accepted as they come, beside the serving of
// those already up, each described in the accept's private data (the
// workspace) so that a client sees exactly its own region. A client that
// fails or vanishes, even without a word (its probe), is reported by name
// and closed; with clients=N the others go on. The job ends once every
// client came and ended its run, and fails if any of them failed.
//
// With isolation=window (by default where the device has type 2 memory
// windows) the memory is registered with no remote right at all, and each
// accepted request gets a window of its own over its client's region,
// bound on its queue pair before the accept: a key that leaks or is
// guessed opens nothing on any other connection (isolation.hh).
//
// Anyone who reaches the port may send connection requests; with allow=
// those from elsewhere are refused inside librpma before anything is made
// for them (rpma_ep_set_peer_filter), counted and told (tell_refused). A
// request that cannot be taken, or is accepted and never completes (given
// up, or its handshake left unfinished for handshake_timeout= seconds),
// gives its place back: it is no client, fails nothing and touches no
// connected client, however many there are. While every place is taken and
// some connection is still being made, the listener is paused (new
// requests wait); once every place holds a connection made, it stops.
//
// One thread waits on one epoll set (wait_set.hh) that holds the listening
// endpoint, each connection's events and completions, the flavour's own
// queue and a tick of CHECK_PERIOD: accepting and connection events are
// taken as they come, and the checks (the link, the deadlines, the probes)
// run at least every CHECK_PERIOD, however busy the clients keep it.
#ifndef RPMA_ENGINE_SERVER_HH
#define RPMA_ENGINE_SERVER_HH

#include "allow.hh"
#include "conn_events.hh"
#include "connection.hh"
#include "fio.hh"
#include "link.hh"
#include "result.hh"
#include "server_memory.hh"
#include "wait_set.hh"
#include "wire_format.hh"

#include <infiniband/verbs.h>
#include <librpma.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace rpma_fio {

class Server {
public:
	Server() = default;
	Server(const Server &) = delete;
	Server &operator=(const Server &) = delete;
	virtual ~Server();

	// fio's hooks; `make` creates the flavour.
	static int init(thread_data *td, std::unique_ptr<Server> (*make)());
	static int get_file_size(thread_data *td, fio_file *f);
	static int open_file(thread_data *td, fio_file *f);
	static int close_file(thread_data *td, fio_file *f);
	static int invalidate(thread_data *td, fio_file *f);
	static fio_q_status queue(thread_data *td, io_u *u);
	static void cleanup(thread_data *td);

protected:
	// The flavour's hooks, each with what it may return. FAILED fails
	// the whole job (reported); a hook that fails one client lose()s it.

	// Maps and registers the memory, listens (DONE or FAILED).
	virtual Result open(fio_file *f);
	// A connection with the flavour's per-client state.
	virtual std::unique_ptr<Connection> new_connection() const
	{
		return std::make_unique<Connection>();
	}
	// Queues of every connection; called before each request is taken.
	virtual void configure(rpma_conn_cfg *) {}
	// Before c's connection request is taken.
	virtual Result prepare(Connection &) { return Result::DONE; }
	// c's request came: the last moment to post receives on req.
	virtual Result accepting(Connection &, rpma_conn_req *) { return Result::DONE; }
	// The receives the flavour posted for c: its workspace's max_msg_num.
	virtual uint16_t receives(const Connection &) const { return 0; }
	// The workspace that describes c's region to its client (DONE or
	// FAILED).
	virtual Result workspace_of(const Connection &c, std::vector<uint8_t> *ws);
	// c's connection is up.
	virtual Result established(Connection &) { return Result::DONE; }
	// Some work without waiting: DONE if there may be more, RETRY if the
	// flavour's queue (flavour_fd) was found drained, done or not: its fd
	// then wakes a wait for what comes next.
	virtual Result work() { return Result::RETRY; }
	// A completion of c's queue other than its probe's.
	virtual Result completion(Connection &, const ibv_wc &) { return Result::DONE; }
	// Whether c's disconnect now ends its run as it should.
	virtual bool ended_run(Connection &) { return true; }
	// Whether c said its run ended (its end-of-run request or notice
	// came): then only its disconnect may still be missing.
	virtual bool said_end(const Connection &) const { return false; }
	// The signs of life c has given (what it has sent; 0: it sends none).
	virtual uint64_t signs_of(const Connection &) const { return 0; }
	// c ended or failed: forget what the flavour keeps of its run.
	virtual void dropped(Connection &) {}
	// A descriptor of the flavour's to wait on (-1: none; its value is
	// fixed once open() returned), and what to do when it is ready.
	virtual int flavour_fd() const { return -1; }
	virtual Result flavour_ready() { return Result::DONE; }
	// busy_wait_polling= applies (GPSPM), else the thread sleeps.
	virtual bool may_spin() const { return false; }
	// Whether a completion of a connection's queue wakes the thread from
	// the start (else only while watch_completions() says so; the checks
	// take its completions every CHECK_PERIOD either way).
	virtual bool completions_wake() const { return true; }

	// For the flavours:
	size_t clients() const { return conns_.size(); }
	Connection &connection(size_t k) { return *conns_[k]; }
	// the client whose queue pair is qp, or nullptr; `likely`, the index
	// of the client it most likely is, is looked at first
	Connection *connection_of_qp(uint32_t qp, size_t likely);
	// Whether a completion of c's queue wakes the thread (a failure to
	// watch it loses c).
	void watch_completions(Connection &c, bool on);
	// Takes the completions of c's queue.
	Result take_completions(Connection &c);
	// Ends c's run with `what` (reported; with clients=N the others go
	// on): `what` reads after the client's name ("the client ...").
	void lose(Connection &c, int err, const char *fmt, ...)
		__attribute__((format(printf, 4, 5)));
	// Closes every connection (before what their queues use goes).
	void close_all();
	// What describes c's region to its client, for a workspace: its
	// window's descriptor (isolation=window), else its region's.
	static std::vector<uint8_t> descriptor_of(const Connection &c);

	thread_data *td_ = nullptr;
	ibv_context *dev_ = nullptr; // serverip's device
	rpma_peer *peer_ = nullptr;
	Memory mem_;
	unsigned iodepth_ = 1; // the job's iodepth= (fio's own is set to 1)

private:
	// The epoll tags: what kind of descriptor, and for a connection its
	// index (tag >> KIND_BITS).
	enum Kind : uint64_t { LISTENER, FLAVOUR, EVENTS, COMPLETIONS, KIND_BITS = 2 };
	static uint64_t tag(size_t k, Kind kind)
	{
		return static_cast<uint64_t>(k) << KIND_BITS | kind;
	}

	// isolation= on this device (DONE), or a refusal (FAILED, told).
	Result choose_isolation();
	Result descriptors_for(size_t n);
	Result map_memory(fio_file *f, size_t bytes);
	Result register_memory(size_t offset, size_t len, rpma_mr_local **mr);
	// isolation=window: c's request gets a window over c's region, bound
	// on its queue pair when it is accepted. DONE; DONE with *lost set
	// (the request could not be given one, told); FAILED.
	Result open_window(Connection &c, rpma_conn_req *req, bool *lost);
	// What a client does to its region: it writes and reads it (reads,
	// verify=), and its flush is a read.
	int client_usage() const;
	Result listen();
	// DONE with *req, or with nullptr for a request that could not be
	// taken (told); RETRY if none waits; FAILED.
	Result next_request(rpma_conn_req **req);
	Result serve();
	// The job's verdict once the serving ends.
	Result verdict();
	// work(), never entered again from inside (ended())
	Result do_work();
	Result wait(int timeout_ms);
	// Takes the next request: DONE if one was taken (or failed, reported),
	// RETRY if none waits.
	Result accept_one();
	// c's connection request never completed (why): c's place is free
	// again, for the next request.
	void give_back(Connection &c, const char *why);
	// A connection request could not be taken or accepted (what
	// happened): the first told in full, the others counted (tell_lost).
	void request_lost(const std::string &what);
	// Counts a request that came to nothing: true for the first of its
	// kind (*told then set), which the caller tells in full.
	bool first_lost(bool *told);
	// Tells the requests lost since the last time, if LOST_TELL_PERIOD
	// passed or `now_or_never`.
	void tell_lost(bool now_or_never);
	// allow='s filter (librpma_private.h): counts and keeps where a
	// refused request came from
	static int allowed(const sockaddr *src, void *server);
	// Tells the requests refused since the last time (the first at once),
	// as tell_lost does.
	void tell_refused(bool now_or_never);
	// The listener while places are free, paused while every place is
	// taken and some connection is still being made, stopped once every
	// place holds a connection made (or runtime= gave up).
	void listen_as_places_allow();
	Result watch(Connection &c);
	// Adds c's fd to the wait set; false if it could not (c lost).
	bool wait_on(Connection &c, int fd, Kind kind);
	Result conn_event(Connection &c);
	Result ended(Connection &c, rpma_conn_event ev);
	Result checks();
	Result check_connection(Connection &c, Clock::time_point now);
	// c's probe failed or went unanswered (why).
	void went_silent(Connection &c, const char *why);
	// c's run ended as it should: it is closed.
	void end_well(Connection &c);
	Result link_check();
	void close_connection_of(Connection &c);
	void stop_listening();
	bool finished() const;

	std::vector<std::unique_ptr<Connection>> conns_;
	std::unordered_map<uint32_t, size_t> by_qp_;
	WaitSet waits_;
	rpma_ep *ep_ = nullptr;
	std::string port_;
	std::vector<size_t> free_;    // the places Waiting, the next one taken last
	size_t established_ = 0;      // connections that came up
	size_t live_ = 0;             // connections Connecting or Serving
	bool paused_ = false;         // the listener out of the wait set
	uint64_t lost_ = 0;           // connection requests that came to nothing
	uint64_t lost_told_ = 0;      // ... of which told
	bool told_not_taken_ = false; // the first one not taken or accepted
	bool told_never_completed_ = false;
	Clock::time_point told_at_{};    // when lost requests were last told
	std::optional<AllowList> allow_; // allow=, if given
	uint64_t refused_ = 0;           // requests from outside allow=
	uint64_t refused_told_ = 0;      // ... of which told
	// where those not yet told came from: the first few, and whether
	// there were others (a stranger may spoof any number of sources)
	std::vector<std::string> refused_from_;
	bool refused_elsewhere_ = false;
	Clock::time_point refused_told_at_{};
	bool gave_up_ = false; // runtime= passed before all came
	bool served_ = false;
	bool working_ = false;   // inside work()
	bool soft_roce_ = false; // the device is rxe (FS DAX: a warning)
	// isolation=window in force (isolation.hh), and why, or why not: the
	// start note
	bool windows_ = false;
	std::string isolation_why_;
	LinkWatch link_;
	Clock::time_point listening_since_{};
	Clock::time_point first_came_{}; // the first connection request
	// the checks' period: also how often the loop looks at td->terminate
	static constexpr auto CHECK_PERIOD = std::chrono::milliseconds(POLL_MS);
	// a probe failed by the client's disconnect precedes that event by little
	static constexpr auto DISCONNECT_GRACE = std::chrono::seconds(1);
	// a stranger may send requests without end: a line at most this often
	static constexpr auto LOST_TELL_PERIOD = std::chrono::seconds(10);
	// the sources of refused requests a line names at most
	static constexpr size_t REFUSED_SOURCES_TOLD = 4;
	// connection requests taken at one wake, between the clients' work
	static constexpr unsigned ACCEPTS_PER_WAKE = 16;
};

}

#endif
