#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/transports.py DIR: the table of bench/transports' raw reports.

Per row, the median over the rounds of each transport's client IOPS and
mean completion latency, and Soft-iWARP's IOPS as a ratio of Soft-RoCE's.
A pair whose client or server failed counts as failed, never as a figure.
"""
import pathlib
import re
import sys

from rpma_measure import fio, stats


def read_pair(base):
    """(iops, clat_us) of one pair, or None if it failed."""
    for side in ("client", "server"):
        status = pathlib.Path(f"{base}.{side}.status")
        if not status.exists() or status.read_text().strip() != "0":
            return None
    try:
        report = fio.read(f"{base}.client.json")
    except (OSError, ValueError):
        return None
    iops = clat = 0.0
    for job in report.get("jobs", []):
        for d in ("read", "write"):
            iops += job[d]["iops"]
            if job[d]["io_bytes"]:
                clat = max(clat, job[d]["clat_ns"]["mean"] / 1000)
    return iops, clat


def main():
    out = pathlib.Path(sys.argv[1])
    env = (out / "env").read_text() if (out / "env").exists() else ""
    pairs = {}
    failed = []
    for status in sorted(out.glob("*.client.status")):
        m = re.fullmatch(r"(.+)\.(siw|rxe)\.r(\d+)\.client\.status", status.name)
        if not m:
            continue
        row, transport = m.group(1), m.group(2)
        figures = read_pair(out / status.name[: -len(".client.status")])
        if figures is None:
            failed.append(status.name[: -len(".client.status")])
            continue
        pairs.setdefault(row, {}).setdefault(transport, []).append(figures)
    kernel = re.search(r"^kernel=(.*)$", env, re.M)
    print(f"kernel {kernel.group(1) if kernel else '?'}; median of the rounds; "
          "IOPS and mean completion latency of the client")
    print()
    print("| row | Soft-RoCE IOPS | Soft-iWARP IOPS | iWARP / RoCE | RoCE clat (us) | iWARP clat (us) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in sorted(pairs):
        by = pairs[row]
        if "siw" not in by or "rxe" not in by:
            continue
        rxe_iops = stats.median(f[0] for f in by["rxe"])
        siw_iops = stats.median(f[0] for f in by["siw"])
        rxe_clat = stats.median(f[1] for f in by["rxe"])
        siw_clat = stats.median(f[1] for f in by["siw"])
        ratio = siw_iops / rxe_iops if rxe_iops else float("nan")
        print(f"| {row} | {rxe_iops:.0f} | {siw_iops:.0f} | {ratio:.2f} | "
              f"{rxe_clat:.0f} | {siw_clat:.0f} |")
    if failed:
        print()
        print("failed pairs: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
