#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""connections.py CASE_DIR N RSS_BEFORE RSS_AFTER -- judges a case of
connections.sh: a server job of clients=N and the client fios (client1.json,
client2.json, ...) of its N jobs.

It passes when the server and every client job report error 0, the client
jobs are N, and each of them wrote and read its data back (verify=: a
mismatch is a job error). Prints the time until all N were connected (the
server's note), the server's resident memory per connection (RSS_AFTER,
its peak, less RSS_BEFORE, sampled while it listened, in KiB, over N) and
its CPU per I/O (the server job's user and
system time over the clients' I/Os). Exits 1 with the reason otherwise.
"""
import os
import re
import sys

from evaluate import Failed, jobs_of

CONNECTED = re.compile(r"all (\d+) clients connected, ([0-9.]+) s after")


def judge(case_dir, n, before, after):
    server = jobs_of(case_dir, "server")
    clients = []
    k = 1
    while os.path.exists(os.path.join(case_dir, f"client{k}.json")):
        clients += jobs_of(case_dir, f"client{k}")
        k += 1
    if len(clients) != n:
        raise Failed(f"{len(clients)} client jobs reported, not {n}")
    idle = [f"{j['jobname']}#{i}" for i, j in enumerate(clients)
            if not (j["write"]["total_ios"] and j["read"]["total_ios"])]
    if idle:
        raise Failed(f"{idle[0]} and {len(idle) - 1} more did not both write and "
                     "read back")
    ios = sum(j[d]["total_ios"] for j in clients for d in ("read", "write"))
    job = server[0]
    cpu_s = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] / 1000
    out = [f"{n} connections, {ios} I/Os"]
    log = open(os.path.join(case_dir, "server.log"), errors="replace").read()
    m = CONNECTED.search(log)
    if m:
        out.append(f"all connected {float(m.group(2)):.2f} s after the first came")
    if before and after:
        out.append(f"server memory {(after - before) / n:.1f} KiB per connection "
                   f"({before} KiB resident listening, {after} KiB at its peak)")
    out.append(f"server CPU {cpu_s / ios * 1e6:.1f} us per I/O")
    return "; ".join(out)


def main():
    case_dir, n, before, after = sys.argv[1], *map(int, sys.argv[2:5])
    try:
        print(f"  {os.path.basename(case_dir)}: {judge(case_dir, n, before, after)}")
    except (Failed, OSError, KeyError, ValueError) as e:
        print(f"  {os.path.basename(case_dir)}: {e}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
