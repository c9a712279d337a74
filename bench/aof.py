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
client and server on one device: every packet once)."""

import os
import sys

import counts  # the per-I/O arithmetic of --counts
from rpma_measure import fio, provenance, record, stats

KINDS = ["apm-write", "gpspm-write", "aof-apm", "aof-gpspm"]


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
			rec = dict(record="aof", row=row, kind=kind, bs=int(bs), qd=int(qd), native=native,
				round=int(rnd), status=status)
			report = os.path.join(raw, "fio", "%s.r%s.client.json" % (row, rnd))
			try:
				w = fio.read(report)["jobs"][0]["write"]
			except (OSError, ValueError, KeyError, IndexError):
				w = None
			if status == "0 0" and w is not None and w["total_ios"] == int(ios):
				rec.update(iops=w["iops"], packets=int(packets) / int(ios), said=said)
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
	"""{(kind, qd): engine + librpma instructions per I/O of the client}
	from --counts' rows (ours) in PATH, by counts.py's own arithmetic"""
	data = [d for d in record.read(path) if d["status"] == "0" and d["impl"] == "ours" and
		d["side"] == "client"]
	out = {}
	for kind in KINDS:
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
			out[(kind, qd)] = v["engine"] + v["librpma"]
	return out


def ratio(a, b):
	return "%.2f" % (a / b) if a and b else "-"


def main():
	if sys.argv[1] == "--md":
		results, counts_path = sys.argv[2], sys.argv[3]
		recs = record.read(os.path.join(results, "records.jsonl"))
	else:
		raw, results, counts_path = sys.argv[1:4]
		env = provenance.env_of(raw)
		recs = provenance.stamped(env, [dict(record="env", **env)] + run_records(raw))
		record.write(os.path.join(results, "records.jsonl"), recs)
	env = next((r for r in recs if r["record"] == "env"), {})
	runs, failed = read_runs(recs)
	ins = instructions(counts_path)
	med = {k: dict(iops=stats.median(r["iops"] for r in v),
		packets=stats.median(r["packets"] for r in v), rounds=len(v), said=v[0]["said"])
		for k, v in runs.items()}
	o = ["# The append-only log: appends against APM writes", "",
		provenance.command_line(env), "", provenance.describe(env), "",
		"%s round(s) each. Each run appends 4096 records (1024 at iodepth 1, `sync=1`) of the given size "
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
	for bs in (64, 512, 4096):
		for qd in (1, 16):
			for native in ("none", "all"):
				yard = med.get(("apm-write", bs, qd, native))
				for kind in KINDS:
					m = med.get((kind, bs, qd, native))
					if not m:
						continue
					i = ins.get((kind, qd)) if bs == 4096 and native == "none" else None
					mark = kind == "apm-write"
					iy = ins.get(("apm-write", qd)) if i else None
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
		("; ".join(gp) or "not measured") + "."]
	if failed:
		o += ["", "Failed runs (left out): " + ", ".join(failed) + "."]
	with open(os.path.join(results, "summary.md"), "w") as f:
		f.write("\n".join(o) + "\n")
	print("\n".join(o))
	return 1 if failed else 0


if __name__ == "__main__":
	sys.exit(main())
