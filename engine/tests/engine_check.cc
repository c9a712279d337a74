// SPDX-License-Identifier: BSD-3-Clause
// engine_check.cc -- LD_PRELOAD into a fio running the engines, for the
// engine tests (errors.sh, safety cases):
//
// - It watches the order of teardown. Memory must be deregistered before
//   it is freed, and a queue pair destroyed before the memory it works on
//   is deregistered: otherwise the device may still write into memory the
//   program has handed back (fio frees its io_u buffers before it closes
//   the engine). Each violation prints an "engine-check: FAIL" line on
//   stderr (a free() also its backtrace: which teardown freed it), and
//   so does each region still registered at exit; then a summary line
//   tells how many registered regions were freed in order, and how many
//   violations there were.
//
// - ENGINE_CHECK_FAIL=FUNCTION:N makes the Nth call of FUNCTION (rpma_read,
//   rpma_write, rpma_flush or rpma_send) in the process fail as a failed
//   post would: RPMA_E_PROVIDER, nothing posted.
//
// - Two windows of a GPSPM server that sleeps between completions, made
//   certain (safety.sh): ENGINE_CHECK_HOLD=N deschedules the thread that
//   posts the process's Nth rpma_send, from then until its connection has
//   news: its rpma_cq_get_wc finds nothing (a completion's wake finds the
//   queue empty and the thread sleeps again) until it reads the
//   connection's event (rpma_conn_next_event); then every completion held
//   is there at once.
//   ENGINE_CHECK_HIDE_SENDS=1 keeps every successful SEND completion from
//   rpma_cq_get_wc, as if the acknowledgements of the server's answers had
//   not come yet. Each says so once ("engine-check: released ...",
//   "engine-check: hid ..."), so that a case knows the window was there.
//
// - ENGINE_CHECK_LATE_SENDS=MS (a client of one connection, busy polling):
//   each successful SEND completion reaches rpma_cq_get_wc MS milliseconds
//   after the device gave it, as when a loaded host's rxe takes the
//   acknowledgement of a flush request after the server's response. And it
//   counts the work requests in the send queue as the program can know
//   them: every one posted since the last signaled one it saw complete
//   (a send queue completes in order). More than the queue's size
//   (rpma_conn_cfg_set_sq_size) is a "FAIL": the device may refuse the
//   next post (ENOMEM). Says "engine-check: delayed ..." once.
//
// - ENGINE_CHECK_CONNECT_ERRNO=E[:N] makes the first N (1) calls of
//   rpma_conn_req_connect fail as the provider failed them, with errno E:
//   how iWARP's connect fails at once (rdma_connect connects over TCP).
//   Says "engine-check: failing rpma_conn_req_connect ..." once.
//
// - What a rogue client is handed by the test (hostile.sh, leaked_key):
//   ENGINE_CHECK_DESCRIPTOR_TO=FILE writes the first memory descriptor the
//   process takes (rpma_mr_remote_from_descriptor: a client's, of its
//   server region), in hex, to FILE; ENGINE_CHECK_REGIONS_TO=FILE appends
//   each memory registration of the process (a server's regions) to FILE,
//   a line "ADDRESS LENGTH RKEY ACCESS" in hex. Each file appears whole
//   (written aside, then renamed) or not at all.
#include <infiniband/verbs.h>
#include <librpma.h>
#include <rdma/rdma_cma.h>

#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

extern "C" void __libc_free(void *);

namespace {

struct Region {
	const void *mr;
	uintptr_t lo, hi;
	const ibv_pd *pd;
};

constexpr int MAX = 256;

// Plain arrays under a mutex: free() must not allocate.
std::mutex lock;
Region live[MAX];
int n_live;
uintptr_t gone[MAX]; // start addresses of deregistered regions, not freed yet
int n_gone;
const ibv_qp *qps[MAX];
int n_qps;
std::atomic<int> in_order, violations;

// printf's checks on every message, with or without arguments (a template
// passing fmt on trips -Wformat-security, an error in Debian's builds)
[[gnu::format(printf, 1, 2)]] void say(const char *fmt, ...)
{
	char buf[256];
	std::va_list args;
	va_start(args, fmt);
	int n = std::vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	if (n > 0 && write(2, buf, std::min<size_t>(n, sizeof(buf) - 1)) < 0)
		return;
}

// The function this one stands in for: fio may link the verbs itself, but
// librpma comes with the engine, loaded where RTLD_NEXT does not look.
template <typename F> F real(const char *lib, const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f)
		if (void *h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD))
			f = dlsym(h, name);
	if (!f) {
		say("engine-check: no %s to wrap\n", name);
		std::abort();
	}
	return reinterpret_cast<F>(f);
}

// ENGINE_CHECK_REGIONS_TO: the registrations so far, the file rewritten
// whole at each (registrations come before any connection)
void note_region(const ibv_mr *mr, unsigned int access)
{
	static const char *to = std::getenv("ENGINE_CHECK_REGIONS_TO");
	static std::mutex regions_lock;
	static char lines[MAX * 64];
	static size_t used;
	if (!to || !mr)
		return;
	std::lock_guard<std::mutex> g(regions_lock);
	const int n = std::snprintf(lines + used, sizeof(lines) - used, "%lx %zx %x %x\n",
				    reinterpret_cast<unsigned long>(mr->addr), mr->length, mr->rkey,
				    access);
	if (n <= 0 || used + n >= sizeof(lines))
		return;
	used += n;
	char tmp[4096];
	std::snprintf(tmp, sizeof(tmp), "%s.tmp", to);
	if (FILE *f = std::fopen(tmp, "w")) {
		std::fwrite(lines, 1, used, f);
		if (std::fclose(f) == 0)
			std::rename(tmp, to);
	}
}

void registered(ibv_mr *mr)
{
	if (!mr)
		return;
	std::lock_guard<std::mutex> g(lock);
	// libibverbs' ibv_reg_mr calls ibv_reg_mr_iova2 through its PLT, so
	// one registration can pass both wrappers. Two entries of one MR would
	// outlive its deregistration by one, and a later MR whose struct lands
	// at the same address would have its deregistration take the stale
	// entry: its memory would look registered when freed.
	const Region r{mr, reinterpret_cast<uintptr_t>(mr->addr),
		       reinterpret_cast<uintptr_t>(mr->addr) + mr->length, mr->pd};
	for (int i = 0; i < n_live; i++)
		if (live[i].mr == mr) {
			live[i] = r;
			return;
		}
	if (n_live < MAX)
		live[n_live++] = r;
}

// ENGINE_CHECK_FAIL: true for the call that is to fail
bool inject(const char *function)
{
	static const char *spec = std::getenv("ENGINE_CHECK_FAIL");
	static std::atomic<long> calls;
	if (!spec)
		return false;
	const char *colon = std::strchr(spec, ':');
	if (!colon || std::strncmp(spec, function, colon - spec) ||
	    std::strlen(function) != size_t(colon - spec))
		return false;
	if (++calls != std::atol(colon + 1))
		return false;
	say("engine-check: failing call %ld of %s\n", calls.load(), function);
	return true;
}

long env_number(const char *name)
{
	const char *v = std::getenv(name);
	return v ? std::atol(v) : 0;
}

// ENGINE_CHECK_HOLD and ENGINE_CHECK_HIDE_SENDS
const long hold_after = env_number("ENGINE_CHECK_HOLD");
const bool hide_sends = env_number("ENGINE_CHECK_HIDE_SENDS") != 0;
std::atomic<long> sends;
thread_local bool holding;

// ENGINE_CHECK_LATE_SENDS: the send queue as the program sees it. Work
// request k (from 1) is the kth posted; `signaled` holds the numbers of
// those that will complete, in order, so that the nth send-queue
// completion taken from the device is signaled[n]'s.
class SendQueue {
public:
	void sized(uint32_t sq) { size_ = sq; }
	void posted(bool is_signaled)
	{
		std::lock_guard<std::mutex> g(m_);
		++posted_;
		if (is_signaled && n_signaled_ < RING)
			signaled_[(first_ + n_signaled_++) % RING] = posted_;
		if (size_ && posted_ - seen_ > size_ && !overflowed_) {
			overflowed_ = true;
			violations++;
			say("engine-check: FAIL: %ld work requests in a send queue of %u: the "
			    "program cannot know that the device has room for them\n",
			    posted_ - seen_, size_);
		}
	}
	// The work request a send-queue completion just taken from the device
	// ends (0: none known).
	long taken()
	{
		std::lock_guard<std::mutex> g(m_);
		if (!n_signaled_)
			return 0;
		const long k = signaled_[first_];
		first_ = (first_ + 1) % RING;
		n_signaled_--;
		return k;
	}
	// The program sees the completion of work request k.
	void seen(long k)
	{
		std::lock_guard<std::mutex> g(m_);
		seen_ = std::max(seen_, k);
	}

private:
	static constexpr int RING = 4096;
	std::mutex m_;
	uint32_t size_ = 0;
	long posted_ = 0, seen_ = 0;
	long signaled_[RING] = {};
	int first_ = 0, n_signaled_ = 0;
	bool overflowed_ = false;
};
const long late_sends_ms = env_number("ENGINE_CHECK_LATE_SENDS");
SendQueue send_queue;

void posted(int ret, int flags)
{
	if (late_sends_ms && ret == 0)
		send_queue.posted((flags & RPMA_F_COMPLETION_ALWAYS) == RPMA_F_COMPLETION_ALWAYS);
}

struct Summary {
	~Summary()
	{
		// a region never deregistered: leaked, or a deregistration this
		// file did not see, which would make its bookkeeping wrong
		std::lock_guard<std::mutex> g(lock);
		for (int i = 0; i < n_live; i++) {
			violations++;
			say("engine-check: FAIL: [%#lx, +%lu) still registered at exit\n",
			    live[i].lo, live[i].hi - live[i].lo);
		}
		say("engine-check: %d registered regions freed after deregistration, "
		    "%d violations\n",
		    in_order.load(), violations.load());
	}
} summary;

} // namespace

extern "C" {

#undef ibv_reg_mr
ibv_mr *ibv_reg_mr(ibv_pd *pd, void *addr, size_t length, int access)
{
	static auto f = real<ibv_mr *(*)(ibv_pd *, void *, size_t, int)>("libibverbs.so.1",
									 "ibv_reg_mr");
	ibv_mr *mr = f(pd, addr, length, access);
	registered(mr);
	note_region(mr, static_cast<unsigned int>(access));
	return mr;
}

ibv_mr *ibv_reg_mr_iova2(ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
	static auto f = real<ibv_mr *(*)(ibv_pd *, void *, size_t, uint64_t, unsigned int)>(
		"libibverbs.so.1", "ibv_reg_mr_iova2");
	ibv_mr *mr = f(pd, addr, length, iova, access);
	registered(mr);
	note_region(mr, access);
	return mr;
}

int ibv_dereg_mr(ibv_mr *mr)
{
	static auto f = real<int (*)(ibv_mr *)>("libibverbs.so.1", "ibv_dereg_mr");
	unsigned qp_num = 0;
	bool qp_alive = false, known = false;
	{
		std::lock_guard<std::mutex> g(lock);
		for (int i = 0; i < n_live; i++) {
			if (live[i].mr != mr)
				continue;
			known = true;
			for (int q = 0; q < n_qps; q++)
				if (qps[q]->pd == mr->pd) {
					qp_alive = true;
					qp_num = qps[q]->qp_num;
				}
			if (n_gone < MAX)
				gone[n_gone++] = live[i].lo;
			live[i] = live[--n_live];
			break;
		}
	}
	if (known && qp_alive) {
		violations++;
		say("engine-check: FAIL: ibv_dereg_mr of [%p, +%zu) while queue pair "
		    "%u on its protection domain still exists\n",
		    mr->addr, mr->length, qp_num);
	}
	return f(mr);
}

int rdma_create_qp_ex(rdma_cm_id *id, ibv_qp_init_attr_ex *attr)
{
	static auto f = real<int (*)(rdma_cm_id *, ibv_qp_init_attr_ex *)>("librdmacm.so.1",
									   "rdma_create_qp_ex");
	int ret = f(id, attr);
	if (ret == 0 && id->qp) {
		std::lock_guard<std::mutex> g(lock);
		if (n_qps < MAX)
			qps[n_qps++] = id->qp;
	}
	return ret;
}

void rdma_destroy_qp(rdma_cm_id *id)
{
	static auto f = real<void (*)(rdma_cm_id *)>("librdmacm.so.1", "rdma_destroy_qp");
	{
		std::lock_guard<std::mutex> g(lock);
		for (int q = 0; q < n_qps; q++)
			if (qps[q] == id->qp) {
				qps[q] = qps[--n_qps];
				break;
			}
	}
	f(id);
}

void free(void *p)
{
	if (p) {
		const uintptr_t a = reinterpret_cast<uintptr_t>(p);
		Region hit{};
		bool registered_now = false, freed_in_order = false;
		{
			std::lock_guard<std::mutex> g(lock);
			for (int i = 0; i < n_live && !registered_now; i++)
				if (live[i].lo <= a && a < live[i].hi) {
					registered_now = true;
					hit = live[i];
				}
			for (int i = 0; i < n_gone && !freed_in_order; i++)
				if (gone[i] == a) {
					freed_in_order = true;
					gone[i] = gone[--n_gone];
				}
		}
		if (registered_now) {
			violations++;
			say("engine-check: FAIL: free(%p) of memory registered "
			    "[%#lx, +%lu): the device may still write into it\n",
			    p, hit.lo, hit.hi - hit.lo);
			void *bt[32];
			backtrace_symbols_fd(bt, backtrace(bt, 32), 2);
		} else if (freed_in_order) {
			in_order++;
		}
	}
	__libc_free(p);
}

#define FAULT(name, params, args)                                           \
	int name params                                                     \
	{                                                                   \
		static auto f = real<int(*) params>("librpma.so.0", #name); \
		if (inject(#name))                                          \
			return RPMA_E_PROVIDER;                             \
		const int ret = f args;                                     \
		posted(ret, flags);                                         \
		return ret;                                                 \
	}

FAULT(rpma_read,
      (rpma_conn * conn, rpma_mr_local *dst, size_t dst_offset, const rpma_mr_remote *src,
       size_t src_offset, size_t len, int flags, const void *op_context),
      (conn, dst, dst_offset, src, src_offset, len, flags, op_context))
FAULT(rpma_write,
      (rpma_conn * conn, rpma_mr_remote *dst, size_t dst_offset, const rpma_mr_local *src,
       size_t src_offset, size_t len, int flags, const void *op_context),
      (conn, dst, dst_offset, src, src_offset, len, flags, op_context))
FAULT(rpma_flush,
      (rpma_conn * conn, rpma_mr_remote *dst, size_t dst_offset, size_t len,
       enum rpma_flush_type type, int flags, const void *op_context),
      (conn, dst, dst_offset, len, type, flags, op_context))
int rpma_send(rpma_conn *conn, const rpma_mr_local *src, size_t offset, size_t len, int flags,
	      const void *op_context)
{
	static auto f = real<int (*)(rpma_conn *, const rpma_mr_local *, size_t, size_t, int,
				     const void *)>("librpma.so.0", "rpma_send");
	if (inject("rpma_send"))
		return RPMA_E_PROVIDER;
	int ret = f(conn, src, offset, len, flags, op_context);
	posted(ret, flags);
	if (ret == 0 && hold_after && ++sends == hold_after) {
		holding = true;
		say("engine-check: holding the completions of the thread of rpma_send %ld\n",
		    hold_after);
	}
	return ret;
}

namespace {

using GetWc = int (*)(rpma_cq *, int, ibv_wc *, int *);

// ENGINE_CHECK_LATE_SENDS: the SEND completions not yet due, oldest first.
class LateSends {
public:
	int get_wc(GetWc f, rpma_cq *cq, int num_entries, ibv_wc *wc, int *num_entries_got)
	{
		std::lock_guard<std::mutex> g(m_);
		const auto now = std::chrono::steady_clock::now();
		const auto due = now + std::chrono::milliseconds(late_sends_ms);
		int out = 0;
		// those due first: the device gave them before what it gives now
		while (out < num_entries && n_ && held_[first_].due <= now) {
			send_queue.seen(held_[first_].k);
			wc[out++] = held_[first_].wc;
			first_ = (first_ + 1) % RING;
			n_--;
		}
		ibv_wc taken[64];
		int got = 0;
		const int want = std::min<int>(num_entries - out, 64);
		const int ret = want > 0 ? f(cq, want, taken, &got) : RPMA_E_NO_COMPLETION;
		if (ret && ret != RPMA_E_NO_COMPLETION && out == 0)
			return ret;
		for (int i = 0; i < got; i++) {
			const ibv_wc &c = taken[i];
			// an error's opcode means nothing: the job fails on it
			const long k = c.status == IBV_WC_SUCCESS && !(c.opcode & IBV_WC_RECV)
					       ? send_queue.taken()
					       : 0;
			if (c.status == IBV_WC_SUCCESS && c.opcode == IBV_WC_SEND && n_ < RING) {
				if (!told_) {
					told_ = true;
					say("engine-check: delayed a SEND completion by %ld ms\n",
					    late_sends_ms);
				}
				held_[(first_ + n_++) % RING] = {c, k, due};
				continue;
			}
			if (k)
				send_queue.seen(k);
			wc[out++] = c;
		}
		if (out == 0)
			return RPMA_E_NO_COMPLETION;
		if (num_entries_got)
			*num_entries_got = out;
		return 0;
	}

private:
	struct Held {
		ibv_wc wc;
		long k;
		std::chrono::steady_clock::time_point due;
	};
	static constexpr int RING = 1024;
	std::mutex m_;
	Held held_[RING] = {};
	int first_ = 0, n_ = 0;
	bool told_ = false;
};
LateSends late_sends;

} // namespace

int rpma_conn_cfg_set_sq_size(rpma_conn_cfg *cfg, uint32_t sq_size)
{
	static auto f = real<int (*)(rpma_conn_cfg *, uint32_t)>("librpma.so.0",
								 "rpma_conn_cfg_set_sq_size");
	const int ret = f(cfg, sq_size);
	if (ret == 0)
		send_queue.sized(sq_size);
	return ret;
}

int rpma_cq_get_wc(rpma_cq *cq, int num_entries, ibv_wc *wc, int *num_entries_got)
{
	static auto f = real<GetWc>("librpma.so.0", "rpma_cq_get_wc");
	static std::atomic<long> hidden;
	if (holding)
		return RPMA_E_NO_COMPLETION;
	if (late_sends_ms)
		return late_sends.get_wc(f, cq, num_entries, wc, num_entries_got);
	if (!hide_sends)
		return f(cq, num_entries, wc, num_entries_got);
	for (;;) {
		int got = 1;
		int ret = f(cq, num_entries, wc, num_entries_got ? &got : nullptr);
		if (ret)
			return ret;
		int kept = 0;
		for (int i = 0; i < got; i++) {
			if (wc[i].status == IBV_WC_SUCCESS && wc[i].opcode == IBV_WC_SEND) {
				if (hidden++ == 0)
					say("engine-check: hid a SEND completion\n");
				continue;
			}
			wc[kept++] = wc[i];
		}
		if (kept) {
			if (num_entries_got)
				*num_entries_got = kept;
			return 0;
		}
	}
}

int rpma_conn_next_event(rpma_conn *conn, rpma_conn_event *event)
{
	static auto f = real<int (*)(rpma_conn *, rpma_conn_event *)>("librpma.so.0",
								      "rpma_conn_next_event");
	if (holding) {
		holding = false;
		say("engine-check: released the thread's completions: its connection has "
		    "news\n");
	}
	return f(conn, event);
}

int rpma_conn_req_connect(rpma_conn_req **req_ptr, const rpma_conn_private_data *pdata,
			  rpma_conn **conn_ptr)
{
	static auto f =
		real<int (*)(rpma_conn_req **, const rpma_conn_private_data *, rpma_conn **)>(
			"librpma.so.0", "rpma_conn_req_connect");
	static auto drop = real<int (*)(rpma_conn_req **)>("librpma.so.0", "rpma_conn_req_delete");
	static const long err = env_number("ENGINE_CHECK_CONNECT_ERRNO");
	static const long times = [] {
		const char *spec = std::getenv("ENGINE_CHECK_CONNECT_ERRNO");
		const char *colon = spec ? std::strchr(spec, ':') : nullptr;
		return colon ? std::atol(colon + 1) : 1;
	}();
	static std::atomic<long> calls;
	if (err && req_ptr && *req_ptr && ++calls <= times) {
		// as librpma fails it: the request is gone, errno the provider's
		drop(req_ptr);
		if (calls == 1)
			say("engine-check: failing rpma_conn_req_connect with errno %ld\n", err);
		errno = static_cast<int>(err);
		return RPMA_E_PROVIDER;
	}
	return f(req_ptr, pdata, conn_ptr);
}

int rpma_mr_remote_from_descriptor(const void *desc, size_t desc_size, rpma_mr_remote **mr_ptr)
{
	static auto f = real<int (*)(const void *, size_t, rpma_mr_remote **)>(
		"librpma.so.0", "rpma_mr_remote_from_descriptor");
	static const char *to = std::getenv("ENGINE_CHECK_DESCRIPTOR_TO");
	static std::atomic<bool> written;
	if (to && desc && !written.exchange(true)) {
		char tmp[4096];
		std::snprintf(tmp, sizeof(tmp), "%s.tmp", to);
		if (FILE *out = std::fopen(tmp, "w")) {
			for (size_t i = 0; i < desc_size; i++)
				std::fprintf(out, "%02x", static_cast<const uint8_t *>(desc)[i]);
			std::fprintf(out, "\n");
			if (std::fclose(out) == 0)
				std::rename(tmp, to);
		}
	}
	return f(desc, desc_size, mr_ptr);
}

} // extern "C"
