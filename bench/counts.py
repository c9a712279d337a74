#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# bench/counts.py RAW RESULTS -- instructions per I/O, per layer, from the
# callgrind profiles bench/in-vm.sh writes in --counts mode (RAW/counts/),
# into RESULTS/summary.md and RESULTS/records.jsonl (a record a profile,
# stamped with the run that made it: rpma_measure; merged with the
# records already there that this run did not measure).
# bench/counts.py --md RESULTS -- summary.md again from records.jsonl alone.
# bench/counts.py --functions RESULTS -- each row's top functions, from them.
# bench/counts.py --self-test -- the arithmetic on made-up numbers.
#
# A profile covers only what runs inside fio's I/O loop calls that reach
# the engine (td_io_queue, io_queue_event, io_u_queued_complete: callgrind
# --collect-atstart=no --toggle-collect=...), so start-up, connection and
# teardown are outside it; the difference of two runs (N and 2N I/Os) over
# N, or one run's count over its I/Os, gives instructions per I/O. Costs are "self" costs of each
# function, grouped by the object they ran in; the reference's engines are
# compiled into its fio, so its fio's functions from engines/librpma_* count
# as engine. libc, libstdc++ and the like are charged to whichever layer
# called into them (the call's inclusive cost), so "engine + library"
# includes the memcpy/malloc the engine and librpma ask for.
import collections
import os
import re
import subprocess
import sys

from rpma_measure import provenance, record

LAYERS = ["fio", "engine", "librpma", "verbs", "other"]


def layer_of(ob, fl):
	base = os.path.basename(ob)
	if re.match(r"librpma_(apm|gpspm|aof)_(client|server)\.so", base):
		return "engine"
	if base.startswith("librpma.so"):
		return "librpma"
	if base.startswith("libprotobuf-c") or base.startswith("libpmem"):
		return "engine"
	if re.match(r"lib(ibverbs|rxe|rdmacm|mlx|efa|hns|bnxt|irdma)", base):
		return "verbs"
	if base == "fio":
		if "librpma" in fl:
			return "engine"
		return "fio"
	return None  # libc, libstdc++, ld.so, vdso: charged to the caller


# The function whose empty returns count the empty polls, and what it
# returns then (RPMA_E_NO_COMPLETION, as the 32-bit immediate the compiler
# loads into the return register on that path and no other)
POLL_FN = "rpma_cq_get_wc"
NO_COMPLETION_IMM = "$0x%x" % ((-100005) & 0xFFFFFFFF)


def parse(path):
	"""self cost per (ob, fl, fn), inclusive cost of calls per (caller ob,
	caller fl, callee ob), call counts per callee fn, and the count of each
	instruction of POLL_FN per (ob, address) (profiles taken with
	--dump-instr=yes --compress-pos=no; an instruction's Ir is the number
	of times it ran)"""
	names = {}
	self_cost = collections.Counter()
	call_cost = collections.Counter()
	calls = collections.Counter()
	poll_instr = collections.Counter()
	ob = fl = fi = fn = cob = cfn = ""
	pending_call = None
	total = 0
	npos = 1
	instr = False

	def name(kind, v):
		m = re.match(r"\((\d+)\)\s*(.*)", v)
		if not m:
			return v
		key = (kind, m.group(1))
		if m.group(2):
			names[key] = m.group(2)
		return names.get(key, "?")

	with open(path) as f:
		for line in f:
			line = line.rstrip("\n")
			if not line:
				continue
			c = line[0]
			if c.isdigit() or c in "+-*":
				f = line.split()
				cost = int(f[npos]) if len(f) > npos else 0
				if pending_call is not None:
					call_cost[(ob, fi or fl, pending_call[0])] += cost
					calls[pending_call[1]] += pending_call[2]
					pending_call = None
				else:
					self_cost[(ob, fi or fl, fn)] += cost
					total += cost
					if instr and fn == POLL_FN:
						poll_instr[(ob, int(f[0], 16))] += cost
				continue
			if line.startswith("positions:"):
				pos = line.split()[1:]
				npos = len(pos)
				instr = pos[0] == "instr"
				continue
			key, _, v = line.partition("=")
			if key == "ob":
				ob = name("ob", v)
			elif key == "fl":
				fl = name("fl", v)
				fi = ""
			elif key in ("fi", "fe"):
				fi = name("fl", v)
			elif key == "fn":
				fn = name("fn", v)
				fi = ""
				cob = ""
			elif key == "cob":
				cob = name("ob", v)
			elif key in ("cfi", "cfl"):
				name("fl", v)
			elif key == "cfn":
				cfn = name("fn", v)
			elif key == "calls":
				pending_call = (cob or ob, cfn, int(v.split()[0]))
				cob = ""
	return self_cost, call_cost, calls, total, poll_instr


def poll_code(ob):
	"""POLL_FN's entry address in the object ob and the addresses of its
	instructions that load NO_COMPLETION_IMM (objdump; the profile's
	instruction addresses are the object's own)"""
	sym = subprocess.run(["nm", "-D", "--defined-only", "-S", ob], capture_output=True,
		text=True, check=True).stdout
	for line in sym.splitlines():
		p = line.split()
		if len(p) == 4 and p[3].split("@")[0] == POLL_FN:
			start, size = int(p[0], 16), int(p[1], 16)
			break
	else:
		raise ValueError("%s: no %s" % (ob, POLL_FN))
	dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--start-address=%#x" % start,
		"--stop-address=%#x" % (start + size), ob], capture_output=True, text=True,
		check=True).stdout
	empty = [int(m.group(1), 16) for m in
		re.finditer(r"^\s*([0-9a-f]+):\s+mov\s+" + re.escape(NO_COMPLETION_IMM) + ",%eax",
			dis, re.M)]
	if not empty:
		raise ValueError("%s: %s never loads %s" % (ob, POLL_FN, NO_COMPLETION_IMM))
	return start, empty


def polls_of(poll_instr, code=poll_code):
	"""(calls, empty returns, instructions of one empty call) of POLL_FN,
	from its instructions' counts: the entry's count is the calls K, the
	count of the load of RPMA_E_NO_COMPLETION the empty returns P; an empty
	call runs the instructions that ran K times (every call's) and those
	that ran P times (the empty return's), which is checked by every count
	being K, P or K - P (the other return's); else the direct cost is
	None. None when the profile has no instruction counts of POLL_FN."""
	obs = {ob for ob, _ in poll_instr}
	if len(obs) != 1:
		return None
	ob = obs.pop()
	start, empty = code(ob)
	counts = {a: c for (o, a), c in poll_instr.items()}
	k = counts.get(start, 0)
	p = sum(counts.get(a, 0) for a in empty)
	if k == 0:
		return None
	direct = None
	if p and k - p != p and all(c in (k, p, k - p) for c in counts.values()):
		direct = sum(1 for c in counts.values() if c in (k, p))
	return dict(calls=k, empty=p, direct_librpma=direct)


def layers(path):
	self_cost, call_cost, calls, total, poll_instr = parse(path)
	out = collections.Counter()
	for (ob, fl, fn), c in self_cost.items():
		lay = layer_of(ob, fl)
		if lay is not None:
			out[lay] += c
	# the unowned objects' cost goes to the owned layer that called in
	charged = 0
	for (ob, fl, cob), c in call_cost.items():
		lay = layer_of(ob, fl)
		if lay is not None and layer_of(cob, "") is None:
			out[lay] += c
			charged += c
	unowned = sum(c for (ob, fl, fn), c in self_cost.items() if layer_of(ob, fl) is None)
	# unowned code that is entered from nowhere owned (a toggled-on
	# function in libc, say): keep the books balanced
	out["other"] += max(0, unowned - charged)
	return out, total, self_cost, calls, poll_instr


def top_functions(self_cost, n=12, only=None):
	"""the n functions of most self cost; only: of these layers alone"""
	byfn = collections.Counter()
	for (ob, fl, fn), c in self_cost.items():
		if only is None or layer_of(ob, fl) in only:
			byfn[(os.path.basename(ob), fn)] += c
	return byfn.most_common(n)


def main():
	raw, results = sys.argv[1], sys.argv[2]
	cdir = os.path.join(raw, "counts")
	lines = []
	with open(os.path.join(cdir, "list")) as f:
		for line in f:
			# ROW IMPL REP N SIDE FILE STATUS
			p = line.split("\t")
			if len(p) >= 7:
				lines.append(p)
	data = []
	for row, impl, rep, n, side, fname, status in lines:
		path = os.path.join(cdir, fname)
		if status.strip() != "0" or not os.path.exists(path):
			data.append(dict(row=row, impl=impl, rep=rep, n=int(n), side=side,
				status=status.strip()))
			continue
		lay, total, self_cost, calls, poll_instr = layers(path)
		d = dict(row=row, impl=impl, rep=rep, n=int(n), side=side,
			status="0", total=total, layers=dict(lay),
			top=[[o, f, c] for (o, f), c in top_functions(self_cost, 25)],
			top_el=[[o, f, c] for (o, f), c in
				top_functions(self_cost, 25, ("engine", "librpma"))],
			polls={k: v for k, v in calls.items()
				if re.search(r"poll_cq|rpma_cq_get_wc|td_io_queue$|td_io_getevents$", k)})
		pl = polls_of(poll_instr) if poll_instr else None
		if pl:
			d.update(pl)
		data.append(d)
	# the I/Os a pair did: fio stops at the end of --size before number_ios
	# when that asks for more, so the client's calls of td_io_queue tell
	done = {(d["row"], d["impl"], d["rep"], d["n"]): d["polls"]["td_io_queue"] for d in data
		if d["status"] == "0" and d["side"] == "client" and d["polls"].get("td_io_queue")}
	for d in data:
		d["n"] = done.get((d["row"], d["impl"], d["rep"], d["n"]), d["n"])
	data = merge_into(os.path.join(results, "records.jsonl"), provenance.env_of(raw), data)
	write_md(data, os.path.join(results, "summary.md"))


def merge_into(path, env, new):
	"""the records of PATH merged with the run's new ones, stamped by env,
	written back to PATH: the kept records keep their own stamps"""
	data = merge(record.read(path), provenance.stamped(env, new))
	record.write(path, data)
	return data


def merge(old, new):
	"""the new entries, and the old ones of every row, side and
	implementation the new ones do not measure (bench/run --impls, --rows:
	the reference need not run again after a change of ours)"""
	fresh = {(d["row"], d["side"], d["impl"]) for d in new if d["status"] == "0"}
	return [d for d in old if (d["row"], d["side"], d["impl"]) not in fresh] + new


def solve(a, b):
	"""x with a x = b (Gaussian elimination, partial pivoting); None when a
	is singular"""
	n = len(b)
	m = [list(map(float, r)) + [float(v)] for r, v in zip(a, b)]
	for i in range(n):
		piv = max(range(i, n), key=lambda r: abs(m[r][i]))
		if abs(m[piv][i]) < 1e-9 * max(1.0, max(abs(v) for v in m[piv][:n])):
			return None
		m[i], m[piv] = m[piv], m[i]
		for r in range(n):
			if r != i and m[r][i]:
				f = m[r][i] / m[i][i]
				m[r] = [x - f * y for x, y in zip(m[r], m[i])]
	return [m[i][n] / m[i][i] for i in range(n)]


def lstsq(xs, ys):
	"""least squares: coefficients c of ys ~ xs c and the residuals; None
	when the columns of xs are linearly dependent (the runs cannot tell
	them apart)"""
	k = len(xs[0])
	# scale each column to 1 so that N (thousands) and 1 solve alike
	sc = [max(abs(x[j]) for x in xs) or 1.0 for j in range(k)]
	xn = [[x[j] / sc[j] for j in range(k)] for x in xs]
	a = [[sum(x[i] * x[j] for x in xn) for j in range(k)] for i in range(k)]
	b = [sum(x[i] * y for x, y in zip(xn, ys)) for i in range(k)]
	c = solve(a, b)
	if c is None:
		return None
	c = [v / s for v, s in zip(c, sc)]
	return c, [y - sum(cj * xj for cj, xj in zip(c, x)) for x, y in zip(xs, ys)]


def fit_spin(ds):
	"""the spinning side's count of every run, per layer, as W N + e P + F
	(N its I/Os, P its empty polls): W the work per I/O, e the cost of one
	empty poll, F what the counted calls cost once per run. When a poll
	can return several completions (ours at iodepth 16), how many polls
	find some, B, depends on the timing too: then W N + e P + b B + F, and
	W is given at the runs' mean B / N (and over their range: wmin, wmax).
	None with too few runs (more than the unknowns, so that the residuals
	test the model) or runs that cannot tell N, P (and B) apart"""
	ds = [d for d in ds if "empty" in d]
	ratio = [(d["calls"] - d["empty"]) / d["n"] for d in ds]
	batched = max(ratio, default=0) - min(ratio, default=0) > 1e-9
	if len(ds) < (5 if batched else 4):
		return None
	xs = [[d["n"], d["empty"]] + ([d["calls"] - d["empty"]] if batched else []) + [1] for d in ds]
	mean = sum(ratio) / len(ratio)
	out = {}
	for k in LAYERS + ["total"]:
		r = lstsq(xs, [d["total"] if k == "total" else d["layers"].get(k, 0) for d in ds])
		if r is None:
			return None
		c, res = r
		b = c[2] if batched else 0.0
		out[k] = dict(w=c[0] + b * mean, e=c[1], b=b if batched else None, f=c[-1],
			wmin=c[0] + b * min(ratio), wmax=c[0] + b * max(ratio),
			res=max(abs(v) for v in res))
	# librpma's e directly, from the runs that had empty polls
	direct = {d.get("direct_librpma") for d in ds if d["empty"]}
	return dict(layers=out, runs=len(ds), direct_librpma=direct.pop() if len(direct) == 1 else None,
		empty_per_io=[min(d["empty"] / d["n"] for d in ds), max(d["empty"] / d["n"] for d in ds)],
		full_per_io=[min(ratio), max(ratio)], batched=batched, ns=sorted({d["n"] for d in ds}))


def per_io(ds):
	"""instructions per I/O per layer (and in all) of one row, side and
	implementation: the difference between its largest and smallest I/O
	counts over their difference (fixed costs cancel), else the count over
	the I/Os; the repeats of one count are alike (see spread)"""
	by_n = {}
	for d in ds:
		by_n.setdefault(d["n"], d)
	lo, hi = min(by_n), max(by_n)
	a, b = by_n[lo], by_n[hi]
	keys = LAYERS + ["total"]
	def val(d, k):
		return d["total"] if k == "total" else d["layers"].get(k, 0)
	if hi > lo:
		return {k: (val(b, k) - val(a, k)) / (hi - lo) for k in keys}, "%d-%d" % (lo, hi)
	return {k: val(a, k) / lo for k in keys}, "%d" % lo


def spread(ds):
	"""(max - min) / min of the totals of the repeats of one I/O count"""
	worst = None
	by_n = {}
	for d in ds:
		by_n.setdefault(d["n"], []).append(d["total"])
	for tot in by_n.values():
		if len(tot) > 1:
			s = (max(tot) - min(tot)) / min(tot) * 100
			worst = s if worst is None else max(worst, s)
	return worst


IMPLS = ["base", "ours", "final", "ref"]


def fmt(v):
	return "{:,.0f}".format(v)


def function_table(top, n):
	"""the 15 first functions of a top list, per I/O of n I/Os"""
	o = ["| object | function | per I/O |", "| --- | --- | ---: |"]
	for ob, fn, c in top[:15]:
		o.append("| %s | `%s` | %s |" % (ob, fn.replace("|", "\\|")[:90], "{:,.1f}".format(c / n)))
	return o


def spin_section(fits):
	"""the spinning clients' fits: work per I/O, cost of an empty poll
	and how well the model holds"""
	o = ["## Spinning clients: work per I/O without the empty polls", "",
		"The GPSPM clients poll busily for the server's answer, so each run's count includes "
		"the polls that came back empty, as many as the wait lasted. Rows marked W above "
		"(polls column) give instead W, the work per I/O, from a least-squares fit of every "
		"run's count, per layer, to W N + e P + F: N the run's I/Os, P its empty polls (how "
		"often `rpma_cq_get_wc` returned `RPMA_E_NO_COMPLETION`, exactly: the count of its "
		"one instruction that loads that value, from callgrind's per-instruction counts "
		"and objdump), e the instructions of one empty poll (the engine's loop turn, "
		"librpma's call, the provider's poll), F what the counted calls cost once per run. "
		"The runs take N, 2N and 3N I/Os against a server at full speed and one slowed by "
		"callgrind, so P varies apart from N. The model is checked twice: the residuals "
		"(largest |count - fit| of a run, in instructions; per I/O: over the fewest I/Os of "
		"a run, the order of the error it leaves in W) must be small next to the run's count, and librpma's e must equal the instructions that one empty call of "
		"`rpma_cq_get_wc` runs, counted directly: the instructions that ran once per call "
		"plus those that ran once per empty return (every instruction of the function "
		"having run K, P or K - P times, K its calls). Where one poll can return several "
		"completions (ours at iodepth 16: up to 16), the number of polls that return some, "
		"B = K - P, depends on the timing as well, and the model is W N + e P + b B + F; W "
		"is then given at the runs' mean B / N, and in brackets over the range of B / N the "
		"runs saw: how much the batching that the timing allows moves it. Where each "
		"poll takes one completion (the reference; ours at iodepth 1) B is a fixed number "
		"per I/O and belongs to W.", "",
		"| row | impl | runs | empty polls per I/O | polls with completions per I/O | layer "
		"| W per I/O | e per empty poll | b per poll with completions | F per run "
		"| largest residual | per I/O |",
		"| --- | --- | ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
	for row, impl, fit in fits:
		for k in LAYERS + ["total"]:
			f = fit["layers"][k]
			if k != "total" and max(abs(f["w"]), abs(f["e"]), f["res"]) < 0.5:
				continue
			w = "{:,.1f}".format(f["w"])
			if f["b"] is not None:
				w += " ({:,.1f}-{:,.1f})".format(*sorted((f["wmin"], f["wmax"])))
			o.append("| %s | %s | %d | %.1f-%.1f | %.2f-%.2f | %s | %s | %s | %s | %s | %s | %.2f |" % (
				row, impl, fit["runs"], *fit["empty_per_io"], *fit["full_per_io"],
				"all" if k == "total" else k, w, "%.2f" % f["e"],
				"%.2f" % f["b"] if f["b"] is not None else "", fmt(f["f"]), fmt(f["res"]),
				f["res"] / fit["ns"][0]))
	o += ["", "librpma's e counted directly (fitted): " + ", ".join(
		"%s %s %s (%.2f)" % (row, impl, fit["direct_librpma"] if fit["direct_librpma"] is not None
			else "-", fit["layers"]["librpma"]["e"]) for row, impl, fit in fits) + "; - where "
		"the instructions' counts did not split into K, P and K - P in every run.", ""]
	return o


def write_md(data, path):
	ok = [d for d in data if d["status"] == "0"]
	rows = []
	for d in ok:
		if d["row"] not in rows:
			rows.append(d["row"])
	o = ["# Instructions per I/O, per layer", "",
		# the runs merge (--impls, --rows): this command measures them all
		"Command: `bench/run --counts`", "",
		"Each record in records.jsonl carries the commit, build flags, kernel and date of the "
		"run that measured it (later runs with `--impls` or `--rows` replace only what they "
		"measured).", "",
		"User-space instructions (callgrind, exact) that the client's and the server's fio spend "
		"inside the calls of fio's I/O loop that reach the engine (`td_io_queue`, "
		"`io_queue_event`, `io_u_queued_complete`: the engine's queue, commit, getevents and "
		"event, and fio's accounting of each submission and completion), per I/O of the "
		"client: the difference between two runs of N and 2N I/Os (fio `number_ios`) over N "
		"where both ran (I/Os column), else the count of one run over its I/Os. Start-up, "
		"connection and teardown are outside the count; symbols are bound at start-up "
		"(`LD_BIND_NOW`). **ours**: Debian's fio 3.33 + our engines + our librpma; **ref**: "
		"fio 3.33's own librpma engines + Debian's librpma 1.2; **base** (when present): our "
		"engines (and, with `BENCH_BASE_RPMA_LIB_DIR`, our librpma) before the change under "
		"test; **final** (when present): a later build of ours "
		"measured on some rows only. Layers: fio (fio's own code in those calls), "
		"engine (the reference's is compiled into its fio; protobuf-c and libpmem count here), "
		"librpma, verbs (libibverbs + the rxe provider); libc, libstdc++ and ld.so are charged "
		"to the layer that called them. Kernel work (rxe itself) is not counted. A server is "
		"counted in runs of its own, its client at full speed (not under callgrind), so that "
		"its checks every 100 ms do not count as work of each I/O. The GPSPM "
		"servers run with `busy_wait_polling=0` (they sleep between requests, so the count is "
		"their work); the clients poll busily, so a client's count includes the polls that came "
		"back empty: for them the row gives W, the work per I/O without the empty polls, from a "
		"fit of runs that spun for different lengths (polls column W; see \"Spinning clients\" "
		"below). 4 KiB, one job; iodepth 1 with `sync=1`.", ""]
	o.append("| row | side | impl | fio | engine | librpma | verbs | other | engine + librpma | "
		"/ ref | all | polls | I/Os | spread |")
	o.append("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
	fits = []
	for row in rows:
		for side in ("client", "server"):
			el = {}
			fitted = {}
			lines = []
			for impl in IMPLS:
				ds = [d for d in ok if d["row"] == row and d["side"] == side and d["impl"] == impl]
				if not ds:
					continue
				fit = fit_spin(ds) if side == "client" else None
				big = max(ds, key=lambda x: x["n"])
				polls = "%.2f" % (big["polls"].get("rpma_cq_get_wc", 0) / big["n"])
				if fit:
					fits.append((row, impl, fit))
					v = {k: f["w"] for k, f in fit["layers"].items()}
					ns = "%s (%d runs)" % ("-".join(map(str, fit["ns"])), fit["runs"])
					polls = "W"
					sp = "fit"
				else:
					v, ns = per_io(ds)
					sp = spread(ds)
					sp = "%.2f %%" % sp if sp is not None else "-"
				el[impl] = v["engine"] + v["librpma"]
				fitted[impl] = fit is not None
				lines.append((impl, v, ns, sp, polls))
			for impl, v, ns, sp, polls in lines:
				# a spinning count against a fitted W compares nothing
				ratio = "%.2f" % (el[impl] / el["ref"]) if (impl != "ref" and el.get("ref") and
					fitted[impl] == fitted["ref"]) else ""
				o.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
					row, side, impl, *(fmt(v[lay]) for lay in LAYERS),
					fmt(el[impl]), ratio, fmt(v["total"]), polls, ns, sp))
	o += ["", "A row with one I/O count keeps the fixed costs inside the counted calls: the "
		"reference APM server's fio passes over its file once whatever the client does (its "
		"fio column), ours waits for the disconnect inside its queue call.",
		"", "/ ref: engine + librpma against the reference's. polls: `rpma_cq_get_wc` calls "
		"per I/O; more than the completions an I/O needs means the side spun on an empty "
		"queue, and then its count depends on how long it waited (W: the row gives the "
		"work per I/O of a spinning client, see below). Spread: (max - min) / min of the "
		"total count of repeated runs with the same I/Os.", ""]
	if fits:
		o += spin_section(fits)
	# the tables of functions are in the records: printed on demand, not
	# repeated in the summary (they were 1,500 of its lines)
	o += ["## Where it goes", "",
		"Self instructions per I/O of each row's largest run, top functions: "
		"`bench/counts.py --functions bench/results/counts` prints them from records.jsonl.", ""]
	failed = [d for d in data if d["status"] != "0"]
	if failed:
		o.append("Failed: " + ", ".join("%s %s %s %s (%s)" % (d["row"], d["impl"], d["side"], d["rep"],
			d["status"]) for d in failed))
	with open(path, "w") as f:
		f.write("\n".join(o) + "\n")


def functions_md(data):
	"""each row's largest run's top functions (self instructions per I/O),
	from the records"""
	ok = [d for d in data if d["status"] == "0"]
	rows = []
	for d in ok:
		if d["row"] not in rows:
			rows.append(d["row"])
	o = ["## Where it goes (self instructions per I/O of the largest run, top functions)", ""]
	for row in rows:
		for side in ("client", "server"):
			for impl in IMPLS:
				ds = [d for d in ok if d["row"] == row and d["side"] == side and d["impl"] == impl]
				if not ds:
					continue
				d = max(ds, key=lambda x: x["n"])
				o.append("<details><summary>%s %s %s</summary>" % (row, side, impl))
				o.append("")
				o += function_table(d["top"], d["n"])
				if d.get("top_el"):
					o += ["", "Engine and librpma alone (self, without the libc they call):", ""]
					o += function_table(d["top_el"], d["n"])
				calls = ", ".join("%s %.2f" % (k, v / d["n"]) for k, v in sorted(d["polls"].items()))
				o.append("")
				o.append("Calls per I/O: %s" % (calls or "-"))
				o.append("</details>")
				o.append("")
	return o


def self_test():
	"""the fit, the empty-poll count and the merge on made-up numbers
	(bench/run --self-test); exits 1 on the first failure"""
	import tempfile
	fails = []

	def check(what, ok):
		print("%s: %s" % ("ok" if ok else "FAIL", what))
		if not ok:
			fails.append(what)

	# counts made of known W, e, F per layer, as N and P vary apart
	truth = {"fio": (990, 0, 35), "engine": (1800, 7, 400), "librpma": (210, 30, 0),
		"verbs": (600, 48, 120), "other": (0, 0, 0)}
	runs = [(2000, 90000), (2000, 230000), (4000, 170000), (4000, 470000), (6000, 260000),
		(6000, 700000)]
	ds = []
	for n, p in runs:
		lay = {k: w * n + e * p + f for k, (w, e, f) in truth.items()}
		ds.append(dict(n=n, empty=p, calls=p + 2 * n, layers=lay, total=sum(lay.values()),
			direct_librpma=30))
	fit = fit_spin(ds)
	check("the fit finds W, e and F of every layer", fit is not None and all(
		abs(fit["layers"][k]["w"] - w) < 1e-6 and abs(fit["layers"][k]["e"] - e) < 1e-6 and
		abs(fit["layers"][k]["f"] - f) < 1e-3 for k, (w, e, f) in truth.items()))
	check("the residuals of exact counts are 0",
		fit is not None and all(v["res"] < 1e-3 for v in fit["layers"].values()))
	bent = [dict(d, layers=dict(d["layers"], engine=d["layers"]["engine"] + (d["empty"] // 1000) ** 2))
		for d in ds]
	fit = fit_spin(bent)
	check("counts the model does not fit leave residuals",
		fit is not None and fit["layers"]["engine"]["res"] > 1000)
	check("3 runs are too few to test the model", fit_spin(ds[:3]) is None)
	check("P in proportion to N cannot be told apart",
		fit_spin([dict(d, empty=d["n"] * 40) for d in ds]) is None)

	# a batching poller: polls with completions B vary apart from N
	bs = [210, 460, 330, 250, 430, 360]
	bd = []
	for (n, p), b in zip(runs, bs):
		lay = {k: w * n + e * p + 34 * b + f for k, (w, e, f) in truth.items()}
		bd.append(dict(n=n, empty=p, calls=p + b, layers=lay, total=sum(lay.values())))
	fit = fit_spin(bd)
	mean = sum(b / n for (n, _), b in zip(runs, bs)) / len(bs)
	check("batched polls: b found, W given at the runs' mean B / N", fit is not None and
		fit["batched"] and all(abs(fit["layers"][k]["b"] - 34) < 1e-6 and
			abs(fit["layers"][k]["w"] - (w + 34 * mean)) < 1e-6 for k, (w, e, f) in truth.items()))
	check("polls of one completion each: no b",
		fit_spin([dict(d, calls=d["empty"] + 2 * d["n"]) for d in ds])["batched"] is False)

	# rpma_cq_get_wc's instruction counts: K calls, P empty returns
	code = lambda ob: (0x100, [0x140])
	k, p = 5000, 4100
	ins = {0x100: k, 0x104: k, 0x108: k, 0x120: k - p, 0x124: k - p, 0x140: p, 0x145: p}
	pl = polls_of({("lib", a): c for a, c in ins.items()}, code)
	check("calls, empty returns, direct cost of an empty call",
		pl == dict(calls=k, empty=p, direct_librpma=5))
	ins[0x130] = 7
	pl = polls_of({("lib", a): c for a, c in ins.items()}, code)
	check("an instruction on neither path voids the direct cost",
		pl == dict(calls=k, empty=p, direct_librpma=None))

	# a profile with per-instruction positions
	prof = "\n".join(["positions: instr line", "events: Ir", "ob=(1) /x/librpma.so.0",
		"fl=(1) ???", "fn=(1) rpma_cq_get_wc", "0x100 0 9", "0x140 0 4", "cob=(2) /x/librxe.so",
		"cfn=(2) poll", "calls=9 0x200 0", "0x110 0 300", "fn=(3) other", "0x300 0 11", ""])
	with tempfile.NamedTemporaryFile("w", suffix=".cg") as f:
		f.write(prof)
		f.flush()
		self_cost, call_cost, calls, total, poll_instr = parse(f.name)
	check("per-instruction profiles: self costs, calls and the poll's instructions",
		total == 24 and calls["poll"] == 9 and sum(call_cost.values()) == 300 and
		poll_instr == {("/x/librpma.so.0", 0x100): 9, ("/x/librpma.so.0", 0x140): 4})

	old = [dict(row="r", side="client", impl=i, status="0") for i in ("ours", "ref", "base")]
	new = [dict(row="r", side="client", impl="ours", status="0", x=1)]
	m = merge(old, new)
	check("a rerun of ours keeps ref and base and replaces ours",
		sorted(d["impl"] for d in m) == ["base", "ours", "ref"] and
		[d for d in m if d["impl"] == "ours"] == new)
	# through the records file, as bench/run --counts --impls ours: the
	# kept entries keep the stamp of the run that measured them
	with tempfile.TemporaryDirectory() as tmp:
		path = os.path.join(tmp, "records.jsonl")
		merge_into(path, dict(rpma_commit="old"), old)
		merge_into(path, dict(rpma_commit="new"), new)
		m = {d["impl"]: d for d in record.read(path)}
	check("a merged rerun stamps its own entries and keeps the others' stamps",
		m["ours"]["commit"] == "new" and m["ref"]["commit"] == "old" and
		m["base"]["commit"] == "old" and all(k in m["ref"] for k in provenance.STAMP))
	print("self-test: %d failed" % len(fails))
	sys.exit(1 if fails else 0)


if __name__ == "__main__":
	if sys.argv[1:] == ["--self-test"]:
		self_test()
	if len(sys.argv) == 3 and sys.argv[1] == "--md":
		# summary.md again from the records alone (the profiles are gone
		# after the next run)
		write_md(record.read(os.path.join(sys.argv[2], "records.jsonl")),
			os.path.join(sys.argv[2], "summary.md"))
		sys.exit(0)
	if len(sys.argv) == 3 and sys.argv[1] == "--functions":
		print("\n".join(functions_md(record.read(os.path.join(sys.argv[2], "records.jsonl")))))
		sys.exit(0)
	main()
