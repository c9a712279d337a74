#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tally.py -- adds up what test programs say of themselves, for the
scripts that run several (CI's summary, the integration run, a platform
cell, a Debian root's check): the shell runs the programs, this counts.

Each test program closes its output with "N passed, N failed" (", N
skipped" when it skipped cases): its last such line is its count. What a
program's end says overrides a count that hides a failure.

  tally.py sum [--trs] ITEM...
      ITEM is LOG, or LOG=STATUS with the program's exit status: a status
      other than 0 and 77 with no failure counted is one failure (a line
      names it), 77 with nothing counted is one skip. With --trs the
      automake .trs file beside each LOG gives the verdict so: FAIL,
      ERROR or XPASS with no failure counted is one failure, SKIP with
      nothing counted one skip. Prints "N passed, N failed" (", N skipped"
      when some were); exits 1 when one failed.
  tally.py counts LOG
      prints "PASSED FAILED SKIPPED" of LOG's last count line; exits 1 when
      it has none.
"""
import os
import re
import sys

COUNT = re.compile(r"\b(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\b")
SKIPPED = 77


def counts(text):
    """(passed, failed, skipped) of the last count line in text, or None."""
    last = None
    for last in COUNT.finditer(text):
        pass
    if last is None:
        return None
    return int(last[1]), int(last[2]), int(last[3] or 0)


def trs_result(log):
    """The :test-result: of the automake .trs file beside log, or None."""
    try:
        with open(re.sub(r"\.log$", ".trs", log), errors="replace") as f:
            for line in f:
                if line.startswith(":test-result: "):
                    return line.split()[1]
    except OSError:
        pass
    return None


def program(text, status=0, trs=None):
    """(passed, failed, skipped, note) of one program: its count, unless its
    exit status or its .trs verdict says what the count hides."""
    p, f, s = counts(text) or (0, 0, 0)
    note = None
    if f == 0 and (status not in (0, SKIPPED) or trs in ("FAIL", "ERROR", "XPASS")):
        f = 1
        note = "exit status %d" % status if status else "automake says %s" % trs
    elif p + f + s == 0 and (status == SKIPPED or trs == "SKIP"):
        s = 1
    return p, f, s, note


def line(p, f, s):
    return "%d passed, %d failed" % (p, f) + (", %d skipped" % s if s else "")


def item(arg):
    """LOG or LOG=STATUS"""
    log, sep, status = arg.rpartition("=")
    if not sep or not status.lstrip("-").isdigit():
        return arg, 0
    return log, int(status)


def main(argv):
    if len(argv) >= 2 and argv[0] == "counts":
        try:
            with open(argv[1], errors="replace") as f:
                c = counts(f.read())
        except OSError as e:
            print("tally: %s: %s" % (argv[1], e.strerror), file=sys.stderr)
            return 2
        if c is None:
            return 1
        print("%d %d %d" % c)
        return 0
    if not argv or argv[0] != "sum":
        print(__doc__, file=sys.stderr)
        return 2
    args = argv[1:]
    use_trs = "--trs" in args
    total = [0, 0, 0]
    for arg in (a for a in args if a != "--trs"):
        log, status = item(arg)
        try:
            with open(log, errors="replace") as f:
                text = f.read()
        except OSError:
            text = ""
        p, f, s, note = program(text, status, trs_result(log) if use_trs else None)
        if note:
            print("tally: %s: %s and no failure counted: one failure"
                  % (os.path.basename(log), note))
        total = [total[0] + p, total[1] + f, total[2] + s]
    print(line(*total))
    return 1 if total[1] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
