#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/records.py -- the records under bench/results and the summaries'
command line, shared by the kinds' summarizers (summarize.py, counts.py,
scaling.py, aof.py).

Each kind's folder holds summary.md and records.jsonl: JSON Lines, one
record a line, each stamped with the rpma commit that ran it, the build's
flags, the kernel it ran on and the date, so that a record read alone (or
merged into a later run's file, as --counts --impls does) still says which
build made it. The environment comes from RAW/env (bench/in-vm.sh: the
kernel, the date) and RAW/host-env (bench/run: the commit, the flags, the
command line)."""

import json
import os

STAMP = ("commit", "flags", "kernel", "date")


def env_of(raw):
    """RAW/env and RAW/host-env as one dict (env's keys first)"""
    env = {}
    for name in ("env", "host-env"):
        try:
            with open(os.path.join(raw, name)) as f:
                for line in f:
                    k, sep, v = line.rstrip("\n").partition("=")
                    if sep:
                        env.setdefault(k, v)
        except OSError:
            pass
    return env


def stamp(env):
    """the provenance every record of a run carries"""
    return {"commit": env.get("rpma_commit", "unknown"), "flags": env.get("rpma_flags", "unknown"),
            "kernel": env.get("kernel", "unknown"), "date": env.get("date", "unknown")}


def stamped(env, records):
    """records with the run's stamp in front"""
    s = stamp(env)
    return [dict(s, **{k: v for k, v in r.items() if k not in STAMP}) for r in records]


def write(path, records):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def read(path):
    """the records of PATH, [] when there is none"""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def command_line(env):
    """the summary's line that bench/rerun runs again"""
    return "Command: `%s`" % env.get("command", "bench/run")


def provenance(env):
    """where and when, for the summary's first lines"""
    return "At %s (%s), kernel %s, %s; build flags: %s." % (
        env.get("rpma_commit", "unknown"), env.get("date", "unknown"), env.get("kernel", "unknown"),
        "in the Soft-RoCE VM" if env.get("where") == "vm" else "on " + env.get("device", "the host"),
        env.get("rpma_flags", "unknown"))
