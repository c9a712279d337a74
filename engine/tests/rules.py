# SPDX-License-Identifier: BSD-3-Clause
"""The rules of the engine suite's judged cases (lib.sh, `expect`).

A case that is not an ordinary pair leaves in its directory what it saw,
"facts" (KEY<TAB>VALUE lines: each process's exit status as ROLE.status,
seconds, counts), and what it must show, "expect" (NAME<TAB>RULE<TAB>ARG...
lines, NAME being the verdict's, as several verdicts may judge one
directory). Each RULE below reads the facts or the files the case left and
says what is wrong (Broken), or nothing when the rule holds (or what its
PASS line shows); evaluate.py passes a verdict when all of its rules hold.
"""
import os
import re

from rpma_measure import fio


def _number(text):
    return None if text == "-" else int(text)


# Exit statuses as the cases see them: wait_exit's, 124 when the process
# still ran at the bound (then killed), 128+N when signal N ended it.
STATUS_CLASSES = {
    "ok": ("0", lambda s: s == 0),
    "nonzero": ("not 0", lambda s: s != 0),
    "failed": ("not 0, not 124: ended with an error within the wait",
               lambda s: s not in (0, 124)),
    "job-error": ("1 to 123: a job's error, neither the wait's bound nor a signal",
                  lambda s: 0 < s < 124),
}


class Case:
    """the directory of a judged case: its facts, its files, its reports"""

    def __init__(self, case_dir, report):
        """REPORT(NAME): the parsed fio report NAME of the case, or Broken
        (evaluate.py's, which knows the formats)"""
        self.dir = case_dir
        self.report = report
        self.facts = {}
        try:
            for line in open(self.path("facts")).read().splitlines():
                key, value = line.split("\t", 1)
                self.facts[key] = value
        except OSError:
            pass

    def path(self, name):
        return os.path.join(self.dir, name)

    def lines(self, *names):
        """the lines of the files NAMES (those that exist)"""
        out = []
        for name in names:
            try:
                out += open(self.path(name), errors="replace").read().splitlines()
            except OSError:
                pass
        return out

    def said(self, role):
        """what ROLE's process printed: notes go to its stderr (ROLE.log)
        or, by the engines' log level and fio's format, into its report
        (ROLE.json)"""
        return self.lines(f"{role}.log", f"{role}.json")

    def fact(self, key):
        if key not in self.facts:
            raise Broken(f"no {key} recorded")
        return self.facts[key]


class Broken(Exception):
    """a rule that does not hold: the message says how"""


# RULE: (the function that judges it, the function that says which files
# it reads: {name: "lines"} for a file whose lines it reads, {name:
# "report"} for a fio report it parses, {name: "output"} for a report
# whose lines it reads for a process's notes), both of its arguments
RULES = {}


def rule(name, reads):
    def add(judge):
        RULES[name] = (judge, reads)
        return judge
    return add


def _output(role, *_):
    """the files of what ROLE's process printed (Case.said): its report
    only for the lines around the document ("output")"""
    return {f"{role}.log": "lines", f"{role}.json": "output"}


def _file(name, *_):
    return {name: "lines"}


def _report(*roles):
    return {f"{role}.json": "report" for role in roles}


@rule("status", reads=lambda *_: {})
def status(case, role, cls):
    """status ROLE CLASS: ROLE's exit status is of CLASS (STATUS_CLASSES)"""
    what, holds = STATUS_CLASSES[cls]
    value = int(case.fact(f"{role}.status"))
    if not holds(value):
        raise Broken(f"{role} status {value} (wanted {what})")


@rule("between", reads=lambda *_: {})
def between(case, key, low, high):
    """between KEY LOW HIGH: the number KEY is within LOW..HIGH (- for no
    bound)"""
    value = int(case.fact(key))
    lo, hi = _number(low), _number(high)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise Broken(f"{key} {value} (wanted {low}..{high})")


def _in_order(line, texts):
    at = 0
    for text in texts:
        at = line.find(text, at)
        if at < 0:
            return False
        at += len(text)
    return True


@rule("says", reads=_output)
def says(case, role, *texts):
    """says ROLE TEXT...: a line of ROLE's output holds the TEXTs, in this
    order"""
    if not any(_in_order(line, texts) for line in case.said(role)):
        raise Broken(f"{role} did not say " + " ... ".join(repr(t) for t in texts))


@rule("says-one-of", reads=_output)
def says_one_of(case, role, *texts):
    """says-one-of ROLE TEXT...: a line of ROLE's output holds one of the
    TEXTs"""
    if not any(t in line for line in case.said(role) for t in texts):
        raise Broken(f"{role} said none of " + ", ".join(repr(t) for t in texts))


@rule("never-says", reads=_output)
def never_says(case, role, text):
    """never-says ROLE TEXT: no line of ROLE's output holds TEXT"""
    if any(text in line for line in case.said(role)):
        raise Broken(f"{role} said {text!r}")


COUNT_HOW = {
    "contains": lambda line, text: text in line,
    "is": lambda line, text: line == text,
    "ends": lambda line, text: line.endswith(text),
}


@rule("count", reads=_file)
def count(case, name, low, high, how, text):
    """count FILE LOW HIGH contains|is|ends TEXT: the lines of FILE that
    contain TEXT, are TEXT or end with it number LOW..HIGH (- for no
    bound)"""
    if not os.path.exists(case.path(name)):
        raise Broken(f"no {name}")
    n = sum(COUNT_HOW[how](line, text) for line in case.lines(name))
    lo, hi = _number(low), _number(high)
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        raise Broken(f"{n} lines of {name} {how} {text!r} (wanted {low}..{high})")


ENGINE_CHECK_END = "registered regions freed after deregistration, 0 violations"


@rule("engine-check", reads=lambda role, _: {f"{role}.log": "lines"})
def engine_check(case, role, least):
    """engine-check ROLE LEAST: ROLE's fio, run under engine_check.cc, saw no
    violation and at its end at least LEAST of fio's registered buffers
    (its io_u buffers: the client's) freed after their deregistration"""
    lines = case.lines(f"{role}.log")
    bad = [line for line in lines if "engine-check: FAIL" in line]
    if bad:
        raise Broken(f"{role}.log: {bad[0].strip()}")
    ends = [line for line in lines if "engine-check: " in line and ENGINE_CHECK_END in line]
    if not ends:
        raise Broken(f"{role}.log: no \"engine-check: N {ENGINE_CHECK_END}\"")
    freed = int(ends[-1].split("engine-check: ", 1)[1].split()[0])
    if freed < int(least):
        raise Broken(f"{role}.log: {freed} registered regions freed after "
                     f"deregistration (wanted at least {least})")


def _jobs(case, role):
    return fio.jobs(case.report(f"{role}.json"))


@rule("written", reads=lambda role, _: _report(role))
def written(case, role, expected):
    """written ROLE BYTES: ROLE's report counts BYTES written by its jobs"""
    n = sum(j["write"]["io_bytes"] for j in _jobs(case, role))
    if n != int(expected):
        raise Broken(f"{role} wrote {n} bytes (wanted {expected})")


@rule("job-failed", reads=_report)
def job_failed(case, role):
    """job-failed ROLE: a job in ROLE's report ended with an error (a fio
    that a signal ended exits 129 whatever its jobs did)"""
    if not any(j["error"] for j in _jobs(case, role)):
        raise Broken(f"no job of {role}.json has an error")


def _figure_kinds(case, role):
    """what kinds of figures ROLE's one write job has: the depth buckets
    of submissions and of completions used, and whether it has submission
    latencies"""
    job = _jobs(case, role)[0]

    def used(buckets):
        return [k for k, v in buckets.items() if v > 0]
    return {"submitted at depths": used(job["iodepth_submit"]),
            "completed at depths": used(job["iodepth_complete"]),
            "submission latencies": job["write"]["slat_ns"]["N"] > 0}


@rule("same-figures", reads=_report)
def same_figures(case, role, other):
    """same-figures ROLE OTHER: the write jobs of ROLE's and OTHER's reports
    have figures of the same kinds"""
    ours, theirs = _figure_kinds(case, role), _figure_kinds(case, other)
    if ours != theirs:
        raise Broken(f"{role} {ours}, {other} {theirs}")


@rule("tails", reads=_file)
def tails(case, name, step, most):
    """tails FILE STEP MOST: every value= of FILE (rxe's atomic writes, a
    kprobe's trace) is a multiple of STEP at most MOST: a log's tail"""
    values = [int(line.rsplit("value=", 1)[1]) for line in case.lines(name) if "value=" in line]
    bad = [v for v in values if v % int(step) or v > int(most)]
    if bad:
        raise Broken(f"{len(bad)} of {len(values)} values in {name} are no multiple of "
                     f"{step} up to {most}: {bad[0]}, ...")


VALGRIND_SUMMARY = re.compile(r"^==\d+== ERROR SUMMARY: (\d+) errors")


@rule("valgrind-clean",
      reads=lambda _, *roles: {f"{role}.valgrind": "lines" for role in roles})
def valgrind_clean(case, tool, *roles):
    """valgrind-clean TOOL ROLE...: valgrind (--tool=TOOL) counted no error
    in each ROLE's process (its log ROLE.valgrind), and ended: its last
    summary says 0"""
    found = []
    for role in roles:
        counts = [m[1] for m in map(VALGRIND_SUMMARY.match, case.lines(f"{role}.valgrind")) if m]
        if not counts or counts[-1] != "0":
            found.append(f"{role} {counts[-1] if counts else 'none (no summary)'}")
    if found:
        raise Broken(f"{tool} errors: " + ", ".join(found)
                     + " (" + ", ".join(f"{r}.valgrind" for r in roles) + ")")
    return f"{tool}: no errors in the " + " or the ".join(roles)


def reads(name, args):
    """the files rule NAME with ARGS reads (RULES)"""
    return RULES[name][1](*args) if name in RULES else {}


def expectations(case_dir, name=None):
    """the rules of verdict NAME (of every verdict: None) in CASE_DIR's
    expect file: [(RULE, ARGS)]"""
    out = []
    try:
        for line in open(os.path.join(case_dir, "expect")).read().splitlines():
            verdict, rule_name, *args = line.split("\t")
            if name in (None, verdict):
                out.append((rule_name, args))
    except OSError:
        pass
    return out


def judge(case_dir, name, report):
    """verdict NAME judged in CASE_DIR: (broken, notes), a message for each
    rule that does not hold and what those that hold show, in the order
    stated; broken is empty when all hold"""
    stated = expectations(case_dir, name)
    if not stated:
        return [f"no rules for {name} in {os.path.basename(case_dir)}/expect"], []
    case = Case(case_dir, report)
    broken, notes = [], []
    for rule_name, args in stated:
        if rule_name not in RULES:
            broken.append(f"unknown rule {rule_name!r}")
            continue
        try:
            note = RULES[rule_name][0](case, *args)
        except Broken as e:
            broken.append(str(e))
        except TypeError as e:  # the wrong number of arguments
            broken.append(f"{rule_name} {args}: {e}")
        else:
            if note:
                notes.append(note)
    return broken, notes
