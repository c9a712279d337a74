#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/aof.py RAW RESULTS COUNTS: the append-only log's table (bench/run --aof)
bench/aof.py --md RESULTS COUNTS: the table again from RESULTS/records.jsonl

Reads RAW/aof (in-vm.sh's aof_pair lines) and the client reports in
RAW/fio into RESULTS/records.jsonl (a record a run, stamped:
rpma_measure) and, where bench/run --counts measured the aof-* rows,
the instructions per append from COUNTS (the counts' records.jsonl);
writes RESULTS/summary.md. Each row is set beside the sequential APM write of the same
size, iodepth and native_ops= (the yardstick; the GPSPM write's figures are
given too, the yardstick of aof_mode=gpspm): appends per second (the
median of the rounds) and packets on the wire per append (rxe's counters,
client and server on one device: every packet once).

The replicas' rows (aof-MODE-rR: the log on R = 1, 2, 3 replicas) get a
table of their own, each factor against one replica: latency at iodepth 1
(p50, p99, p99.9), appends per second at 16, packets per append per
replica, the client's instructions per append (--counts' rows
aof-MODE-rR-*), and the issue's two goals judged (3 replicas within 1.5x
one replica's p50 and instructions). A ratio is the median of the rounds'
own ratios: the factors run one after the other in each round, so a
round's ratio compares runs taken minutes apart, never across rounds."""

import os
import re
import sys

import counts  # the per-I/O arithmetic of --counts
from rpma_measure import fio, provenance, record, stats

KINDS = ["apm-write", "gpspm-write", "aof-apm", "aof-gpspm"]
# the replicated log's rows: aof-MODE-rR, 4 KiB records
MODES = ["aof-apm", "aof-gpspm"]
FACTORS = [1, 2, 3]
REPLICA_KINDS = ["%s-r%d" % (m, r) for m in MODES for r in FACTORS]
REPLICA_BS = 4096
# the goals of the fan-out (issue 47): 3 replicas against one
GOAL_FACTOR = 1.5
LATENCIES = [("lat_p50_us", "50"), ("lat_p99_us", "99"), ("lat_p99_9_us", "99.9")]


def replicas_of(kind):
	"""(the log's kind, its replicas) of a row's kind: aof-apm-r3 is
	aof-apm on 3; any other kind is itself on 1"""
	m = re.match(r"^(aof-[a-z]+)-r([1-9])$", kind)
	return (m.group(1), int(m.group(2))) if m else (kind, 1)


def run_records(raw):
	"""a record a run of RAW/aof: its appends per second (fio's IOPS),
	packets per append and what the client said it used; a run that did
	not end well has no figures"""
	recs = []
	with open(os.path.join(raw, "aof")) as f:
		for line in f:
			p = line.rstrip("\n").split("\t")
			if len(p) < 6:
				continue
			row, rnd, ios, packets, status, said = p[:6]
			kind, rest = row.split("-bs")
			bs, rest = rest.split("-qd")
			qd, native = rest.split("-native")
			mode, reps = replicas_of(kind)
			rec = dict(record="aof", row=row, kind=kind, mode=mode, replicas=reps, bs=int(bs),
				qd=int(qd), native=native, round=int(rnd), status=status)
			report = os.path.join(raw, "fio", "%s.r%s.client.json" % (row, rnd))
			try:
				w = fio.read(report)["jobs"][0]["write"]
			except (OSError, ValueError, KeyError, IndexError):
				w = None
			if status == "0 0" and w is not None and w["total_ios"] == int(ios):
				rec.update(iops=w["iops"], packets=int(packets) / int(ios),
					packets_per_replica=int(packets) / int(ios) / reps, said=said)
				# fio's completion latency: with sync=1 each append's own,
				# from its post to its acknowledgement
				rec.update({k: fio.percentile_us(w, p) for k, p in LATENCIES})
			recs.append(rec)
	return recs


def read_runs(recs):
	"""{(kind, bs, qd, native): [dict(iops, packets, said)]} of the runs
	that ended well, and the names of those that did not"""
	runs, failed = {}, []
	for r in recs:
		if r["record"] != "aof":
			continue
		if "iops" not in r:
			failed.append("%s round %s (status %s)" % (r["row"], r["round"], r["status"]))
			continue
		runs.setdefault((r["kind"], r["bs"], r["qd"], r["native"]), []).append(r)
	return runs, failed


def instructions(path):
	"""{(kind, qd): {"el": engine + librpma, "all": every layer}}:
	instructions per I/O of the client from --counts' rows (ours) in
	PATH, by counts.py's own arithmetic (kind: KINDS and REPLICA_KINDS)"""
	data = [d for d in record.read(path) if d["status"] == "0" and d["impl"] == "ours" and
		d["side"] == "client"]
	out = {}
	for kind in KINDS + REPLICA_KINDS:
		for qd in (1, 16):
			row = "%s-write-bs4k-qd%d-nj1" % (kind.replace("-write", ""), qd)
			ds = [d for d in data if d["row"] == row]
			if not ds:
				continue
			fit = counts.fit_spin(ds)
			if fit:
				v = {k: f["w"] for k, f in fit["layers"].items()}
			else:
				v, _ = counts.per_io(ds)
			out[(kind, qd)] = dict(el=v["engine"] + v["librpma"], all=v["total"])
	return out


def round_ratios(runs, kind, base, qd, key):
	"""stats.summary of KEY's ratio of KIND to BASE (4 KiB, iodepth QD),
	round by round: each round's runs against each other, rounds without
	both left out; None when none has both"""
	def by_round(k):
		return {r["round"]: r[key] for r in runs.get((k, REPLICA_BS, qd, "none"), [])
			if r.get(key)}
	a, b = by_round(kind), by_round(base)
	return stats.summary(a[n] / b[n] for n in sorted(a) if n in b)


def fmt_ratio(s):
	"""a summary of ratios: its median, and the rounds' range"""
	if not s:
		return "-"
	if s["n"] == 1:
		return "%.2f" % s["median"]
	return "%.2f (%.2f-%.2f)" % (s["median"], s["min"], s["max"])


def goal(what, s, note=""):
	"""the goal that WHAT's ratio S (a summary) stays within GOAL_FACTOR;
	NOTE: more words on it"""
	if not s:
		return "%s: not measured." % what
	v = s["median"]
	if v <= GOAL_FACTOR:
		return "%s: %s, **met** (%.0f %% under %.1fx)%s." % (
			what, fmt_ratio(s), (GOAL_FACTOR - v) / GOAL_FACTOR * 100, GOAL_FACTOR, note)
	return "%s: %s, **missed** by %.0f %% (%.2f against %.1f)%s." % (
		what, fmt_ratio(s), (v - GOAL_FACTOR) / GOAL_FACTOR * 100, v, GOAL_FACTOR, note)


def replicas_section(runs, ins):
	"""the replicated log's table and its goals, from the runs of the
	REPLICA_KINDS ({(kind, bs, qd, native): [records]}) and the client's
	instructions (instructions()); [] when none ran"""
	if not any((k, REPLICA_BS, qd, "none") in runs for k in REPLICA_KINDS for qd in (1, 16)):
		return []

	def med(kind, qd, key):
		return stats.median_or_none(r.get(key) for r in runs.get((kind, REPLICA_BS, qd, "none"), []))

	def num(v, f="%.0f"):
		return f % v if v is not None else "-"

	o = ["## The log on 1, 2 and 3 replicas", "",
		"4 KiB records, both `aof_mode`s, `write_quorum=all`: the log's R server jobs are one "
		"fio of `librpma_aof_server` in the same guest, on ports of their own "
		"(`numjobs=R`), and the client names each (`serverip=IP,IP,IP port=P,P+1,P+2`). "
		"4096 appends a run at either iodepth. The GPSPM servers sleep between requests "
		"(`busy_wait_polling=0`, every factor alike): three spinning servers and the "
		"spinning client would share the guest's 2 CPUs. Latency: fio's completion latency "
		"at iodepth 1 (`sync=1`), median of the rounds, in us. vs 1: the median of the "
		"rounds' own ratios to one replica (their range in brackets): the factors run one "
		"after the other in each round (3, 2, 1 in even rounds). Packets per append per "
		"replica: every packet of the device (client and servers) over the appends and the "
		"replicas. Instructions: the client's per append from `bench/run --counts` (rows "
		"`aof-MODE-rR-*`), engine + librpma and all (fio, engine, librpma, verbs).", "",
		"| aof_mode | replicas | p50 | vs 1 | p99 | p99.9 | appends/s, iodepth 16 | vs 1 "
		"| packets per append per replica, iodepth 1 / 16 | instructions per append, engine "
		"+ librpma, iodepth 1 / 16 | vs 1 | all layers, iodepth 1 / 16 |",
		"| --- | --- | ---: | --- | ---: | ---: | ---: | --- | --- | --- | --- | --- |"]
	goals = []
	for mode in MODES:
		base = "%s-r1" % mode
		for reps in FACTORS:
			kind = "%s-r%d" % (mode, reps)
			one = reps == 1
			i1, i16 = ins.get((kind, 1)), ins.get((kind, 16))
			b1 = ins.get((base, 1))
			o.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s | %s | %s / %s |" % (
				mode[4:], reps, num(med(kind, 1, "lat_p50_us")),
				"1" if one else fmt_ratio(round_ratios(runs, kind, base, 1, "lat_p50_us")),
				num(med(kind, 1, "lat_p99_us")), num(med(kind, 1, "lat_p99_9_us")),
				counts.fmt(med(kind, 16, "iops")) if med(kind, 16, "iops") else "-",
				"1" if one else fmt_ratio(round_ratios(runs, kind, base, 16, "iops")),
				num(med(kind, 1, "packets_per_replica"), "%.2f"),
				num(med(kind, 16, "packets_per_replica"), "%.2f"),
				counts.fmt(i1["el"]) if i1 else "-", counts.fmt(i16["el"]) if i16 else "-",
				("1" if one else ratio(i1["el"], b1 and b1["el"])) if i1 else "-",
				counts.fmt(i1["all"]) if i1 else "-", counts.fmt(i16["all"]) if i16 else "-"))
		three = "%s-r3" % mode
		goals.append(goal("`aof_mode=%s`, p50 at iodepth 1, 3 replicas over 1" % mode[4:],
			round_ratios(runs, three, base, 1, "lat_p50_us")))
		for qd in (1, 16):
			i3, i1 = ins.get((three, qd)), ins.get((base, qd))
			s = stats.summary([i3["el"] / i1["el"]]) if i3 and i1 else None
			goals.append(goal("`aof_mode=%s`, the client's instructions per append (engine + "
				"librpma) at iodepth %d, 3 replicas over 1" % (mode[4:], qd), s,
				"; all layers (fio and verbs too): %.2f" % (i3["all"] / i1["all"]) if s else ""))
	o += ["", "Goals (3 replicas within %.1fx of one replica):" % GOAL_FACTOR, ""]
	o += ["- " + g for g in goals]
	return o


def ratio(a, b):
	return "%.2f" % (a / b) if a and b else "-"


def load_line(env):
	"""the host's load average at the run's start and end (bench/run
	records /proc/loadavg), as a sentence; "" when not recorded"""
	a, b = env.get("host_load_start"), env.get("host_load_end")
	if not a:
		return ""
	return ("The host's load average (1, 5, 15 min, `uptime`) at the start: %s; at the end: %s "
		"(a 2-core host shared with other guests)." % (" ".join(a.split()[:3]),
			" ".join(b.split()[:3]) if b else "not recorded"))


def summary(recs, ins):
	"""summary.md's lines and the failed runs, from the records RECS and
	the instructions INS (instructions())"""
	env = next((r for r in recs if r["record"] == "env"), {})
	runs, failed = read_runs(recs)
	med = {k: dict(iops=stats.median(r["iops"] for r in v),
		packets=stats.median(r["packets"] for r in v), rounds=len(v), said=v[0]["said"])
		for k, v in runs.items()}
	single = any(k[0] in KINDS for k in med)
	o = ["# The append-only log: appends against APM writes" if single else
		"# The append-only log on 1, 2 and 3 replicas", "",
		provenance.command_line(env), "", provenance.describe(env)]
	if load_line(env):
		o += ["", load_line(env)]
	o += [""]
	if single:
		o += ["%s round(s) each. Each run appends 4096 records (1024 at iodepth 1, `sync=1`) of the given size "
			"to a log in DRAM (`filename=malloc`); `apm-write` and `gpspm-write` are "
			"`librpma_apm_client` and `librpma_gpspm_client` writing the same bytes in order, "
			"the yardsticks (ratios: to the APM write). Appends per second: the median "
			"of the rounds (fio's IOPS; timings of a 2-core TCG guest, for ratios taken in "
			"one run, not for absolute figures). Packets per append: rxe's sent packets "
			"over the run, client and server on one device (each packet once), "
			"connection set-up included (a few packets per run). Instructions per append: "
			"the client's engine and librpma, from `bench/run --counts` (rows aof-*, 4 KiB "
			"records; the GPSPM client's empty polls fitted out), in bench/results/counts/summary.md." % env.get("rounds", "?"), "",
			"| kind | record | iodepth | native_ops | appends/s | vs APM write | packets per append "
			"| vs APM write | engine + librpma instructions per append | vs APM write | the client used |",
			"| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
		o += main_table(med, ins)
	else:
		o += ["%s round(s) each." % env.get("rounds", "?"), ""]
	o += replicas_section(runs, ins)
	if failed:
		o += ["", "Failed runs (left out): " + ", ".join(failed) + "."]
	return o, failed


def main_table(med, ins):
	"""the rows of KINDS against the APM write, and the targets"""
	o = []
	for bs in (64, 512, 4096):
		for qd in (1, 16):
			for native in ("none", "all"):
				yard = med.get(("apm-write", bs, qd, native))
				for kind in KINDS:
					m = med.get((kind, bs, qd, native))
					if not m:
						continue
					i = ins.get((kind, qd)) if bs == 4096 and native == "none" else None
					i = i and i["el"]
					mark = kind == "apm-write"
					iy = ins.get(("apm-write", qd)) if i else None
					iy = iy and iy["el"]
					o.append("| %s | %d B | %d | %s | %s | %s | %.2f | %s | %s | %s | %s |" % (
						kind, bs, qd, native, counts.fmt(m["iops"]),
						"1" if mark else ratio(m["iops"], yard and yard["iops"]),
						m["packets"], "1" if mark else ratio(m["packets"], yard and yard["packets"]),
						counts.fmt(i) if i else "-",
						("1" if mark else ratio(i, iy)) if i else "-",
						m["said"] if m["said"] != "-" else "no flush, no atomic write (the server persists)"))
	target = []
	for bs in (64, 512, 4096):
		a, y = med.get(("aof-apm", bs, 16, "none")), med.get(("apm-write", bs, 16, "none"))
		if a and y:
			target.append("%d B: %.2f" % (bs, a["packets"] / y["packets"]))
	gp = []
	for bs in (64, 512, 4096):
		for qd in (1, 16):
			a, y = med.get(("aof-gpspm", bs, qd, "none")), med.get(("gpspm-write", bs, qd, "none"))
			if a and y:
				gp.append("%d B iodepth %d: %s and %s" % (bs, qd, ratio(a["iops"], y["iops"]),
					ratio(a["packets"], y["packets"])))
	o += ["", "Packets of an `aof_mode=apm` append over those of an APM write of the same "
		"size, iodepth 16 (target: at most 1.25): " + (", ".join(target) or "not measured") + ".",
		"", "`aof_mode=gpspm` appends over GPSPM writes, appends per second and packets: " +
		("; ".join(gp) or "not measured") + ".", ""]
	return o


def main():
	if sys.argv[1] == "--md":
		results, counts_path = sys.argv[2], sys.argv[3]
		recs = record.read(os.path.join(results, "records.jsonl"))
	else:
		raw, results, counts_path = sys.argv[1:4]
		env = provenance.env_of(raw)
		recs = provenance.stamped(env, [dict(record="env", **env)] + run_records(raw))
		record.write(os.path.join(results, "records.jsonl"), recs)
	o, failed = summary(recs, instructions(counts_path))
	with open(os.path.join(results, "summary.md"), "w") as f:
		f.write("\n".join(o) + "\n")
	print("\n".join(o))
	return 1 if failed else 0


if __name__ == "__main__":
	sys.exit(main())
