# SPDX-License-Identifier: BSD-3-Clause
"""Where a figure came from: the rpma commit that ran it, the build's
flags, the kernel, fio, the transport and the date, each measured where
the run happened (bench/run writes RAW/host-env: the commit by git
describe, the flags from the build's config.status and Makefile;
bench/in-vm.sh writes RAW/env: uname -r, fio --version, the RDMA device,
date -u), never typed. A record read alone, or merged into a later run's
file, still says which build made it."""

import os

# the stamp every record carries, in this order (fio_version: counts.py
# records have a figure "fio", its layer)
STAMP = ("commit", "flags", "kernel", "fio_version", "transport", "date")
# where each comes from in the run's environment
_FROM = {"commit": "rpma_commit", "flags": "rpma_flags", "kernel": "kernel",
         "fio_version": "our_fio", "transport": "device", "date": "date"}


def env_of(raw):
    """RAW/env and RAW/host-env (KEY=VALUE lines) as one dict, env's keys
    first"""
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
    """the provenance every record of a run carries; "unknown" for what
    the run did not measure"""
    return {k: env.get(_FROM[k], "unknown") for k in STAMP}


def stamped(env, records):
    """RECORDS with the run's stamp in front, in place of any they had"""
    s = stamp(env)
    return [dict(s, **{k: v for k, v in r.items() if k not in STAMP}) for r in records]


def command_line(env):
    """the summary's line that bench/rerun runs again"""
    return "Command: `%s`" % env.get("command", "bench/run")


def describe(env):
    """where and when, for a summary's first lines"""
    return "At %s (%s), kernel %s, %s, %s; build flags: %s." % (
        env.get("rpma_commit", "unknown"), env.get("date", "unknown"), env.get("kernel", "unknown"),
        env.get("our_fio", "unknown"),
        "in the Soft-RoCE VM" if env.get("where") == "vm" else "on " + env.get("device", "the host"),
        env.get("rpma_flags", "unknown"))
