#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""PYTHONPATH=bench engine/tests/record_judged.py RESULTS DEST [NAME...] -- keeps the judged cases of an
engine suite's run (RESULTS, lib.sh's `expect`) for rules.py's unit tests
(test_rules.py): in DEST, their lines of RESULTS/cases and, of each case's
directory, what the rules read: facts, expect, the logs and traces, the
fio reports a rule parses or whose lines it reads (formats listing those
kept). NAME...: only these verdicts."""
import os
import shutil
import sys

import rules


def kept_files(case_dir):
    """{name: how} of the files in CASE_DIR the rules of its verdicts read"""
    out = {}
    for rule, args in rules.expectations(case_dir):
        for name, how in rules.reads(rule, args).items():
            # a file read whole by one rule is kept whole
            if out.get(name) in (None, "output"):
                out[name] = how
    return out


def keep(case_dir, dest):
    os.makedirs(dest, exist_ok=True)
    kept = set()
    for name in ("facts", "expect"):
        if os.path.exists(os.path.join(case_dir, name)):
            shutil.copy(os.path.join(case_dir, name), dest)
    # the texts the rules look for: a report read for its lines is kept
    # only where it holds one (the engines' notes in normal,json formats)
    texts = [a for rule, args in rules.expectations(case_dir)
             if "output" in rules.reads(rule, args).values() for a in args[1:]]
    for name, how in kept_files(case_dir).items():
        path = os.path.join(case_dir, name)
        if not os.path.exists(path):
            continue
        if how == "output" and not any(t in open(path, errors="replace").read() for t in texts):
            continue
        shutil.copy(path, dest)
        kept.add(name)
    try:
        lines = open(os.path.join(case_dir, "formats")).read().splitlines()
    except OSError:
        lines = []
    listed = [line for line in lines if line.split("\t")[0] in kept]
    if listed:
        with open(os.path.join(dest, "formats"), "w") as f:
            f.write("".join(line + "\n" for line in listed))


def main(argv):
    results, dest, names = argv[0], argv[1], set(argv[2:])
    os.makedirs(dest, exist_ok=True)
    out = []
    for line in open(os.path.join(results, "cases")).read().splitlines():
        name, kind, detail = line.split("\t", 2)
        if kind == "judge" and (not names or name in names):
            keep(os.path.join(results, detail), os.path.join(dest, detail))
            out.append(line + "\n")
    with open(os.path.join(dest, "cases"), "w") as f:
        f.write("".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
