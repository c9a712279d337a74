#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""judge.py [--guests 2|3] [--seconds S] [--host H] [--bed-status N]
[--table FILE] DIR -- the verdicts of the cases that tests/twohosts/guest
ran in the shared directory DIR, and their Markdown table.

The guest lists each case in DIR/cases (NAME METHOD KIND FAULT,
tab-separated) and leaves its files in DIR/NAME: fio's reports and logs,
and "facts" (KEY=VALUE lines: exit statuses, times, counters). A fault may
end a job, with a clear message; a case fails on a hang, a corrupt byte, a
server that never listened, a README step or an append-only log without
native operations that did not complete, or one with them that failed
without naming the way out (native_ops=none). A case named in
DIR/link-died ran when the virtual link died: the bed's event, listed
apart and not counted.

Prints a PASS or FAIL line per case and "N passed, N failed (bed status
N, S s)"; writes the table to FILE; exits 1 if a case failed, none ran, or
the bed's status is not 0.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import time

from rpma_measure import fio

MIB = 1 << 20


class Case:
    """one line of DIR/cases and what the guest left in its directory"""

    def __init__(self, line, root, directory=None):
        fields = line.split("\t")
        self.name, self.method, self.kind, self.fault = (fields + ["-"] * 4)[:4]
        self.dir = os.path.join(root, directory or self.name)
        self.facts = {}
        try:
            for fact in read_lines(os.path.join(self.dir, "facts")):
                key, _, value = fact.partition("=")
                self.facts[key] = value
        except OSError:
            pass

    def status(self, key):
        """an exit status among the facts: an int, or None if not there"""
        value = self.facts.get(key, "")
        return int(value) if re.fullmatch(r"-?\d+", value) else None

    def time(self, key):
        value = self.facts.get(key, "")
        return float(value) if value else None

    def path(self, name):
        return os.path.join(self.dir, name)


def read_lines(path):
    with open(path, errors="replace") as f:
        return f.read().splitlines()


def lines_of(path):
    """the lines of PATH, none if it is not there"""
    try:
        return read_lines(path)
    except OSError:
        return []


def first(lines, pattern, flags=0, unless=None):
    """the first line that matches PATTERN (and not UNLESS), or ''"""
    for line in lines:
        if re.search(pattern, line, flags) and not (unless and re.search(unless, line)):
            return line
    return ""


def report(path):
    """fio's JSON report in PATH, {} if there is none"""
    try:
        return fio.read(path)
    except (OSError, ValueError):
        return {}


def jobs_sum(doc, direction, key):
    return fio.total(fio.jobs(doc), direction, key)


def seconds(a, b, digits=1):
    return f"{b - a:.{digits}f} s"


class Verdict:
    def __init__(self, outcome, failed, notice="-", iops="-", detail=""):
        self.outcome, self.failed = outcome, failed
        self.notice, self.iops, self.detail = notice, iops, detail


def readme(case):
    client = report(case.path("client.json"))
    verified = jobs_sum(client, "read", "io_bytes")
    st, sst = case.status("client"), case.status("server")
    if st == 0 and sst == 0 and verified > 0:
        out = "completes"
    else:
        out = f"fails: client {st}, server {sst}, verified {verified} bytes"
    return Verdict(out, out != "completes", iops=math.floor(jobs_sum(client, "write", "iops")))


def atomic(case):
    st, sst = case.status("client"), case.status("server")
    if st == 0 and sst == 0:
        out = "completes"
    elif st == 124:
        out = "HANG (killed after 60 s)"
    else:
        said = first(lines_of(case.path("client.log")), r"error|fail|refus", re.I)
        out = f"fails: {said[:150]}"
    return Verdict(out, out.startswith("HANG"),
                   detail=f"server {sst}, kernels {case.facts.get('kernel')} client")


def aof(case):
    st, sst = case.status("client"), case.status("server")
    client_log = lines_of(case.path("client.log"))
    server_log = lines_of(case.path("server.log"))
    corrupt = first(client_log, r"verify|bad header|crc", re.I)
    if st == 0 and sst == 0 and first(
            server_log, re.escape(f"log checked: its tail pointer covers the {MIB} bytes")):
        out = "completes"
    elif st == 124:
        out = "HANG (killed after 90 s)"
    elif corrupt:
        out = f"CORRUPT: {corrupt}"
    else:
        # the job's own message, not its line on the mechanisms
        said = first(client_log, r"librpma|error|fio:", unless=r"flush [^,]*, atomic write ")
        out = f"fails: {said[:400]}"
    if case.fault == "none":
        failed = out != "completes"
    else:
        failed = out != "completes" and "try native_ops=none" not in out
    said = first(server_log, "librpma", unless="waiting for a client")
    return Verdict(out, failed, iops=math.floor(jobs_sum(report(case.path("client.json")),
                                                         "write", "iops")),
                   detail=f"server {sst}: {said[:150]}, kernels {case.facts.get('kernel')} client")


def fault(case):
    st, sst = case.status("client"), case.status("server")
    client = report(case.path("client.json"))
    client_log = lines_of(case.path("client.log"))
    t0, tf, t1 = case.time("t0"), case.time("tf"), case.time("t1")
    corrupt = first(client_log, r"verify|bad pattern|crc", re.I)
    notice = "-"
    if st == 124:
        out = "HANG (killed after 120 s)"
    elif corrupt:
        out = f"CORRUPT: {corrupt}"
    elif st == 0:
        out = "completes"
    else:
        said = first(client_log, r"librpma|error|fio:")
        out = f"fails: {said[:150]}"
        notice = seconds(tf or t0, t1)
    check = "skipped"
    if case.status("check") is not None:
        check = "ok" if case.status("check") == 0 else \
            "BAD: " + (lines_of(case.path("check.out")) or [""])[-1]
    failed = out.startswith(("HANG", "CORRUPT"))
    if check not in ("ok", "skipped"):
        out = f"CORRUPT (server check): {check}; {out}"
        failed = True
    if sst in (124, 125):
        out += "; SERVER HANG: still waiting for its client 30 s after the client ended (killed)"
        failed = True
    elif case.fault == "silence":
        said = first(lines_of(case.path("server.log")), "", unless="waiting for a client")
        out += f"; server {seconds(tf, case.time('server_end'))} after the silence: {said[:150]}"
    ios = jobs_sum(client, "read", "total_ios") + jobs_sum(client, "write", "total_ios")
    per_io = f"{int(case.facts['packets']) / ios:.2f}" if ios > 0 else "-"
    direction = "write" if case.kind == "fill" else case.kind
    return Verdict(out, failed, notice, math.floor(jobs_sum(client, direction, "iops")),
                   f"server {'-' if sst is None else sst}, check {check}, {per_io} packets/IO, "
                   f"MTU {case.facts.get('mtu')}")


def relayed(case):
    """fio --client's output, each line with the time it came (fio.log):
    the lines the servers relayed [(time, line)], then the JSON report"""
    said, text = [], []
    for line in lines_of(case.path("fio.log")):
        t, _, rest = line.partition(" ")
        if text or rest == "{":
            text.append(rest)
        else:
            said.append((float(t), rest))
    try:
        doc = fio.locate("\n".join(text))[0]
    except ValueError:
        doc = {}
    return said, doc


def clients_notice(case, said):
    """the time from the fault to the server's message naming the lost
    client (kill, poweroff) or to the last client's message
    (poweroff-server)"""
    if case.fault in ("kill", "poweroff"):
        at = [t for t, line in said if re.search(r"client [0-9]+ of [0-9]+ at", line)][:1]
    elif case.fault == "poweroff-server":
        at = [t for t, line in said if re.search(r"librpma_[a-z]+_client", line)][-1:]
    else:
        return "-"
    tf = case.time("tf")
    return seconds(tf, at[0]) if at and tf is not None else "-"


def connecting(lines):
    """the server's "all N clients connected, S s after the first one
    came", as "; all N connected in S s", or ''"""
    m = re.search(r"all ([0-9]+) clients connected, ([0-9.]+) s after", first(lines, "clients connected"))
    return f"; all {m[1]} connected in {m[2]} s" if m else ""


def clients_why(case, said, doc):
    """what a clients case came to, from fio's JSON report (client_stats:
    each job of each host, and "All clients", their sum) and the messages
    relayed: "completes", "ends as expected: ...", or "FAILS: why" """
    st = case.status("client")
    server, lost = case.facts.get("serverip"), case.facts.get("lost", "")
    lines = [line for _, line in said]
    err = lines_of(case.path("fio.err"))
    if st == 124:
        return "FAILS: HANG (fio --client killed after 240 s)"
    stats = doc.get("client_stats")
    if stats is None:
        why = first(lines + err, r"error|fail|timed out", re.I)
        return f"FAILS: no JSON report (fio --client {st}: {why[:160]})"
    jobs = [j for j in stats if j["jobname"] != "All clients"]
    sums = [j for j in stats if j["jobname"] == "All clients"]
    remain = [j for j in jobs if j["hostname"] not in (server, lost)]
    clients = case.status("clients") or 4
    why = []
    if lost == server:
        # with the server gone every client job fails: each is reported
        if len(remain) != clients:
            why.append(f"{len(remain)} client jobs reported, not {clients}")
    else:
        want = clients // 2 if lost else clients
        if len(remain) != want:
            why.append(f"{len(remain)} client jobs reported, not {want}")
        bad = sum(1 for j in remain if j["error"])
        if bad:
            why.append(f"{bad} of the remaining client jobs with an error")
        unverified = sum(1 for j in remain if j["read"]["io_bytes"] == 0)
        if unverified:
            why.append(f"{unverified} client jobs verified nothing")
    corrupt = first(lines + err, r"verify|bad pattern|crc32c", re.I)
    if corrupt:
        why.append(f"CORRUPT: {corrupt[:160]}")
    # fio 3.33 counts the reports to sum by each host's jobs, but a host
    # lost before its report by one: with 2 jobs on the lost host the sum
    # is never printed (client.c, remove_client)
    note = ""
    if len(sums) != 1:
        if lost:
            note = '; no "All clients" (fio waits for one more report of the lost host)'
        else:
            why.append('no "All clients" entry')
    elif not (all(sums[0][d][k] == sum(j[d][k] for j in jobs)
                  for d, k in (("write", "io_bytes"), ("read", "io_bytes"),
                               ("write", "total_ios")))
              and (sums[0]["error"] != 0) == any(j["error"] != 0 for j in jobs)):
        why.append('"All clients" is not the sum of the jobs')
    # a fault that struck after the lost host's jobs ended proves nothing
    if lost and lost != server and any(j["hostname"] == lost and j["error"] == 0 for j in jobs):
        why.append(f"the fault struck after the jobs of {lost} had ended well")
    serr = next((j["error"] for j in jobs
                 if j["jobname"] == "server" and j["hostname"] == server), "none")
    engine = case.method.removesuffix("-busy")
    if case.fault == "clean":
        if serr != 0:
            why.append(f"server job error {serr}")
        if st != 0:
            why.append(f"fio --client status {st}")
        if not why:
            return "completes" + connecting(lines)
    elif case.fault in ("kill", "poweroff"):
        named = first(lines, rf"client [0-9]+ of [0-9]+ at .*\(from {re.escape(lost)}:")
        if not named:
            why.append(f"the server did not name the lost client {lost}")
        elif serr in (0, "none"):
            why.append(f"the server job ended with error {serr}")
        if not why:
            return f"ends as expected: server job error {serr}; {named[:200]}{note}"
    elif case.fault == "poweroff-server":
        # fio relays each server's lines under the guest's host name
        gone = rf"librpma_{engine}_client.*(no completion|ended|failed|went down)"
        missing = [h for h in ("client", "client2") if not first(lines, f"<{h}> {gone}")]
        if missing:
            why.append(f"no message from the clients of {' '.join(missing)}")
        if not why:
            return f"ends as expected: {first(lines, gone)[:200]}{note}"
    else:
        why.append("unknown fault")
    return "FAILS: " + ";".join(why)


def clients(case):
    said, doc = relayed(case)
    out = clients_why(case, said, doc)
    iops = math.floor(sum(j["write"]["iops"] for j in doc.get("client_stats", [])
                          if j["jobname"] == "All clients"))
    st, t0, t1 = case.status("client"), case.time("t0"), case.time("t1")
    return Verdict(out, out.startswith("FAILS"), clients_notice(case, said), iops,
                   f"fio --client {st}, {seconds(t0, t1, 0)} in all")


def judge(case):
    """the verdict of CASE from the files in its directory"""
    if "refused" in case.facts:
        return Verdict(f"FAILS: {case.facts['refused']}", True, iops=0)
    if case.facts.get("listened") == "no":
        return Verdict("fails: the server never listened", True, iops=0)
    if case.name == "deadlink":
        return Verdict("completes", False)
    if case.name.startswith("diag-"):
        return Verdict(f"see diag.*.{case.name.removeprefix('diag-')}", False)
    kind = case.name.split("-")[0]
    by_kind = {"readme": readme, "atomic": atomic, "aof": aof, "clients": clients}
    if not case.facts:
        return Verdict("FAILS: the guest left no facts", True, iops=0)
    return by_kind.get(kind, fault)(case)


def header(args):
    try:
        commit = subprocess.run(
            ["git", "-C", os.path.dirname(os.path.abspath(__file__)), "describe", "--always",
             "--dirty"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    env = os.environ.get
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if args.guests == 3:
        text = [f"# Three-host results, {when}, {commit}", "",
                f"Three QEMU guests (TCG, 1 vCPU each) on {args.host}, one Ethernet segment (a UDP",
                "multicast group on the loopback); one fio --client in the client guest drives",
                "the server job (clients=4, DRAM; clients=N for a name that ends in N) and",
                "half of the client jobs in each client guest;",
                f'whole run {args.seconds} s. IOPS: fio\'s "All clients" write IOPS.']
    else:
        text = [f"# Two-host results, {when}, {commit}", "",
                f"Two QEMU guests (TCG, 1 vCPU each) on {args.host}, joined by a UDP socket pair;",
                "server on Device DAX for the fault cases; time_based runtime "
                f"{env('TWOHOSTS_RUNTIME', '10')} s;", f"whole run {args.seconds} s."]
    kernel = env("RPMA_VM_KERNEL", "default")
    text += [f"Kernels: server {env('RPMA_VM_KERNEL_SERVER', kernel)},",
             f"client {env('RPMA_VM_KERNEL_CLIENT', kernel)}."]
    if env("RPMA_VM_TRANSPORT", "rxe") == "siw":
        text.append("Transport: Soft-iWARP (siw0 on each guest's eth0).")
    else:
        text.append("Transport: Soft-RoCE (rxe0 on each guest's eth0).")
    return text


def table(rows, events, args):
    """the Markdown table: IOPS of each fault against the clean link's
    case of the same method and kind"""
    clean = {(c.method, c.kind): v.iops for c, v in rows if c.fault == "clean"}
    text = header(args) + [
        "", "| case | outcome | time to notice | IOPS | vs clean | server, check |",
        "| --- | --- | --- | --- | --- | --- |"]
    for c, v in rows:
        ref = clean.get((c.method, c.kind))
        ratio = "-"
        if isinstance(ref, int) and ref > 0 and not c.name.startswith("readme"):
            ratio = f"{(v.iops if isinstance(v.iops, int) else 0) / ref:.2f}"
        outcome = v.outcome.replace("|", "/")
        text.append(f"| {c.name} | {outcome} | {v.notice} | {v.iops} | {ratio} | {v.detail} |")
    if events:
        text += ["", "Rerun in a new boot, the virtual link dead under them (the bed's, "
                 "not the engines'):", ""]
        text += [f"- {c.name}: {v.outcome} (the guests no longer reach each other (ARP "
                 f"unanswered): the virtual link is dead (diag.*.{diag}); rerun in a new boot)"
                 for c, v, diag in events]
    return "\n".join(text) + "\n"


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--guests", type=int, default=2)
    parser.add_argument("--seconds", default="-")
    parser.add_argument("--host", default=os.uname().nodename)
    parser.add_argument("--bed-status", type=int, default=0)
    parser.add_argument("--table")
    parser.add_argument("dir")
    args = parser.parse_args(argv)
    lines = lines_of(os.path.join(args.dir, "cases"))
    died = {}
    for line in lines_of(os.path.join(args.dir, "link-died")):
        number, diag, directory = line.split("\t")
        died[int(number)] = (diag, directory)
    rows, events = [], []
    for number, line in enumerate(lines, 1):
        if number in died:
            diag, directory = died[number]
            case = Case(line, args.dir, directory)
            events.append((case, judge(case), diag))
        else:
            case = Case(line, args.dir)
            rows.append((case, judge(case)))
    text = table(rows, events, args)
    print(text, end="")
    if args.table:
        with open(args.table, "w") as f:
            f.write(text)
    for c, v in rows:
        print(f"{'FAIL' if v.failed else 'PASS'} {c.name}: {v.outcome}")
    failed = sum(1 for _, v in rows if v.failed)
    print(f"{len(rows) - failed} passed, {failed} failed "
          f"(bed status {args.bed_status}, {args.seconds} s)")
    return 1 if failed or args.bed_status or not rows else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
