#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# bench/counts.py RAW RESULTS -- instructions per I/O, per layer, from the
# callgrind profiles bench/in-vm.sh writes in --counts mode (RAW/counts/),
# into RESULTS/counts.md and RESULTS/raw/counts.json.
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
import json
import os
import re
import sys

LAYERS = ["fio", "engine", "librpma", "verbs", "other"]


def layer_of(ob, fl):
	base = os.path.basename(ob)
	if re.match(r"librpma_(apm|gpspm)_(client|server)\.so", base):
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


def parse(path):
	"""self cost per (ob, fl, fn), inclusive cost of calls per (caller ob,
	caller fl, callee ob) and call counts per callee fn"""
	names = {}
	self_cost = collections.Counter()
	call_cost = collections.Counter()
	calls = collections.Counter()
	ob = fl = fi = fn = cob = cfn = ""
	pending_call = None
	total = 0

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
				cost = int(line.split()[1]) if len(line.split()) > 1 else 0
				if pending_call is not None:
					call_cost[(ob, fi or fl, pending_call[0])] += cost
					calls[pending_call[1]] += pending_call[2]
					pending_call = None
				else:
					self_cost[(ob, fi or fl, fn)] += cost
					total += cost
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
	return self_cost, call_cost, calls, total


def layers(path):
	self_cost, call_cost, calls, total = parse(path)
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
	return out, total, self_cost, calls


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
		lay, total, self_cost, calls = layers(path)
		data.append(dict(row=row, impl=impl, rep=rep, n=int(n), side=side,
			status="0", total=total, layers=dict(lay),
			top=[[o, f, c] for (o, f), c in top_functions(self_cost, 25)],
			top_el=[[o, f, c] for (o, f), c in
				top_functions(self_cost, 25, ("engine", "librpma"))],
			polls={k: v for k, v in calls.items()
				if re.search(r"poll_cq|rpma_cq_get_wc|td_io_queue$", k)}))
	os.makedirs(os.path.join(results, "raw"), exist_ok=True)
	with open(os.path.join(results, "raw", "counts.json"), "w") as f:
		json.dump(data, f, indent=1)
	write_md(data, os.path.join(results, "counts.md"))


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


def write_md(data, path):
	ok = [d for d in data if d["status"] == "0"]
	rows = []
	for d in ok:
		if d["row"] not in rows:
			rows.append(d["row"])
	o = ["# Instructions per I/O, per layer", "",
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
		"to the layer that called them. Kernel work (rxe itself) is not counted. The GPSPM "
		"servers run with `busy_wait_polling=0` (they sleep between requests, so the count is "
		"their work); the clients poll busily, so a client's count includes the polls that came "
		"back empty (see the calls per I/O below). 4 KiB, one job; iodepth 1 with `sync=1`.", ""]
	o.append("| row | side | impl | fio | engine | librpma | verbs | other | engine + librpma | "
		"/ ref | all | polls | I/Os | spread |")
	o.append("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
	for row in rows:
		for side in ("client", "server"):
			el = {}
			lines = []
			for impl in IMPLS:
				ds = [d for d in ok if d["row"] == row and d["side"] == side and d["impl"] == impl]
				if not ds:
					continue
				v, ns = per_io(ds)
				el[impl] = v["engine"] + v["librpma"]
				sp = spread(ds)
				big = max(ds, key=lambda x: x["n"])
				polls = big["polls"].get("rpma_cq_get_wc", 0) / big["n"]
				lines.append((impl, v, ns, sp, polls))
			for impl, v, ns, sp, polls in lines:
				ratio = "%.2f" % (el[impl] / el["ref"]) if impl != "ref" and el.get("ref") else ""
				o.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %s | %s |" % (
					row, side, impl, *(fmt(v[lay]) for lay in LAYERS),
					fmt(el[impl]), ratio, fmt(v["total"]), polls, ns,
					"%.2f %%" % sp if sp is not None else "-"))
	o += ["", "A row with one I/O count keeps the fixed costs inside the counted calls: the "
		"reference APM server's fio passes over its file once whatever the client does (its "
		"fio column), ours waits for the disconnect inside its queue call.",
		"", "/ ref: engine + librpma against the reference's. polls: `rpma_cq_get_wc` calls "
		"per I/O; more than the completions an I/O needs means the side spun on an empty "
		"queue, and then its count is not exact but depends on how long it waited (the "
		"GPSPM clients wait for the server's answer; their counts are not comparable). "
		"Spread: (max - min) / min of the total count of repeated runs with the same I/Os.", ""]
	o.append("## Where it goes (self instructions per I/O of the largest run, top functions)")
	o.append("")
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
	failed = [d for d in data if d["status"] != "0"]
	if failed:
		o.append("Failed: " + ", ".join("%s %s %s %s (%s)" % (d["row"], d["impl"], d["side"], d["rep"],
			d["status"]) for d in failed))
	with open(path, "w") as f:
		f.write("\n".join(o) + "\n")


if __name__ == "__main__":
	main()
