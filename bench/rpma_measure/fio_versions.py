# SPDX-License-Identifier: BSD-3-Clause
"""The verdicts of engine/tests/fio-versions on what each fio printed:
the shell runs the fios, this judges.

python3 -m rpma_measure.fio_versions STEP ARGS... prints one line,
"pass" or "fail", a tab and the detail, and exits 0 (2 on bad words):
  enghelp FILE...        FILE: fio --enghelp=NAME's output, named
                         enghelp-NAME.txt: each engine, loaded by its bare
                         name, lists its options
  builtin FILE           FILE: fio --enghelp's list of engines: "fail"
                         when fio has librpma engines of its own (they
                         would take our engines' names)
  warnings FILE          FILE: the log of the engines' build: "fail"
                         with the number of the compiler's warnings
  cross V W STATUS FILE  FILE: fio W's output loading the engines built
                         for fio V, STATUS its exit status: each must
                         refuse, never run or crash
  guard V W STATUS FILE  as cross, but only the engines' own version
                         guard's refusal passes (version-mismatch.sh: the
                         same fio, so the same ioops version)
"""
import os
import re
import sys

# what fio --enghelp of each of our engines lists; connect_timeout: only
# ours have it, not fio's own librpma engines
OPTIONS = ("serverip", "port", "connect_timeout")
# fio's refusal of an engine of another ioops version
BAD_IOOPS = "bad ioops version"
# timeout(1)'s statuses and a signal's start at 124
KILLED = 124


def enghelp(texts):
    """texts: {engine: its fio --enghelp=NAME output}"""
    missing = [name for name, text in texts.items()
               if not all(re.search(rf"^{o} ", text, re.M) for o in OPTIONS)]
    if not texts:
        return "fail", "no engines"
    if missing:
        return "fail", "no options listed by " + " ".join(missing)
    return "pass", f"{len(texts)} engines by bare name list their options"


def builtin(listing):
    """fio's list of its engines names a librpma engine of its own"""
    return "librpma_" in listing


def warnings(log):
    """the compiler's warnings in the log of a build: none passes"""
    n = sum(1 for line in log.splitlines() if "warning:" in line)
    return ("fail", f"{n} compiler warnings") if n else ("pass", "no warnings")


def guard(v, w, status, text):
    """the engines built for fio V, loaded by fio W (exit STATUS, output
    TEXT), were refused by their own version guard"""
    if status == 0 or status >= KILLED:
        return "fail", f"status {status}"
    if f"built for fio-{v} but is loaded by fio-{w}" in text:
        return "pass", "the engine refuses (same ioops version)"
    return "fail", "no refusal message"


def cross(v, w, status, text):
    """as guard, or refused by fio itself (another ioops version)"""
    if status != 0 and status < KILLED:
        for line in text.splitlines():
            if BAD_IOOPS in line:
                return "pass", f"fio refuses: {line}"
    return guard(v, w, status, text)


def _read(path):
    with open(path, errors="replace") as f:
        return f.read()


def main(argv):
    step, args = (argv[0], argv[1:]) if argv else ("", [])
    if step == "enghelp":
        texts = {re.sub(r"^enghelp-|\.txt$", "", os.path.basename(p)): _read(p) for p in args}
        verdict = enghelp(texts)
    elif step == "builtin" and len(args) == 1:
        own = builtin(_read(args[0]))
        verdict = ("fail", "has librpma engines of its own") if own else ("pass", "")
    elif step == "warnings" and len(args) == 1:
        verdict = warnings(_read(args[0]))
    elif step in ("cross", "guard") and len(args) == 4:
        verdict = (cross if step == "cross" else guard)(args[0], args[1], int(args[2]),
                                                         _read(args[3]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print("\t".join(verdict))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
