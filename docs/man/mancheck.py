#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks of the manual, run by make check (docs/man/tests/*.sh).

    mancheck.py coverage --map MAP --header H --src SRC --built DIR [--installed LIST]
        every exported symbol (the global: list of the version script) is
        declared in the header and has a page source, a built page and a
        place in the list of installed pages, and nothing else has;
        librpma(7) exists; every rpma_*(3) or librpma(7) a page refers to
        exists.
    mancheck.py synopsis --header H --built DIR
        reads the SYNOPSIS back out of every built section 3 page and
        compares it with the declarations in the header; NAME and .TH name
        the page's function; every word in italics is a parameter the
        SYNOPSIS shows (so a renamed parameter cannot linger in the text).
    mancheck.py groff --built DIR [--groff GROFF]
        groff -man -ww -z reports nothing for any built page.
    mancheck.py errors --src SRC --header H --seen DIR [-v]
        the RPMA_E_* codes each page's ERRORS lists are exactly the codes
        the unit tests saw its function return (DIR: the records
        tests/unit/record.cc writes), and every function returning int is
        called by some unit test.

Each prints what is wrong and exits 1, or exits 0.
"""

import argparse
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
import manlib  # noqa: E402


def built_pages(built, section):
    d = os.path.join(built, "man" + section)
    if not os.path.isdir(d):
        return {}
    return {f[:-2]: os.path.join(d, f) for f in sorted(os.listdir(d))
            if f.endswith("." + section)}


def check_coverage(args):
    problems = []
    exported = set(manlib.read_map(args.map))
    header = manlib.read_header(args.header)
    declared = set(header.protos)
    pages = manlib.load_pages(args.src)
    sources3 = {n for (n, s) in pages if s == "3"}
    built3 = set(built_pages(args.built, "3"))
    built7 = set(built_pages(args.built, "7"))
    for name in sorted(exported - declared):
        problems.append("%s is exported by %s but not declared in %s" % (name, args.map, args.header))
    for name in sorted(declared - exported):
        problems.append("%s is declared in the header but not exported" % name)
    for name in sorted(exported - sources3):
        problems.append("%s has no page source %s/%s.3.md" % (name, args.src, name))
    for name in sorted(sources3 - exported):
        problems.append("page source %s.3.md describes no exported function" % name)
    for name in sorted(exported - built3):
        problems.append("%s has no built page %s/man3/%s.3" % (name, args.built, name))
    for name in sorted(built3 - exported):
        problems.append("built page man3/%s.3 describes no exported function" % name)
    if args.installed is not None:
        installed = {os.path.basename(x) for x in args.installed.split()}
        wanted = {n + ".3" for n in exported} | {"librpma.7"} | {
            "%s.%s" % (n, s) for (n, s) in pages if s == "1"}
        for page in sorted(wanted - installed):
            problems.append("%s is not in the list of pages make install installs (MAN3_NAMES in docs/Makefile.am)" % page)
        for page in sorted(installed - wanted):
            problems.append("%s is installed but describes no exported function" % page)
    if ("librpma", "7") not in pages:
        problems.append("no page source librpma.7.md")
    if "librpma" not in built7:
        problems.append("no built page man7/librpma.7")
    known = {(n, s) for (n, s) in pages}
    for (name, section), page in sorted(pages.items()):
        for ref in sorted(page.references()):
            if (ref[0].startswith("rpma_") or ref[0] == "librpma") and ref not in known:
                problems.append("%s refers to %s(%s), which does not exist" % (page.path, ref[0], ref[1]))
    return problems, "%d exported functions, each with a page" % len(exported)


def synopsis_statements(lines):
    """Declarations of a SYNOPSIS read back from troff, split at top-level ';'."""
    body = []
    for line in lines:
        if line.strip().startswith("#include") or line.strip().startswith("Link with"):
            continue
        if line.strip() == "-lrpma.":
            continue
        body.append(line)
    text = "\n".join(body)
    statements, depth, cur = [], 0, []
    for c in text:
        cur.append(c)
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == ";" and depth == 0:
            statements.append("".join(cur).strip())
            cur = []
    if "".join(cur).strip():
        statements.append("".join(cur).strip())
    return statements


def check_synopsis(args):
    problems = []
    header = manlib.read_header(args.header)
    pages = built_pages(args.built, "3")
    for name, path in sorted(pages.items()):
        with open(path, encoding="utf-8") as f:
            troff = f.read()
        th = re.search(r'^\.TH\s+"?([^"\s]+)"?\s+"?(\d)"?', troff, re.M)
        if not th or th.group(1) != name.upper() or th.group(2) != "3":
            problems.append("%s: .TH does not name %s(3)" % (path, name))
        nm = re.search(r"^\.SH NAME\n(\S+) \\- ", troff, re.M)
        if not nm or nm.group(1).replace("\\e", "\\") != name:
            problems.append("%s: NAME does not name %s" % (path, name))
        lines = manlib.page_synopsis(troff)
        if not any(l.strip() == "#include <librpma.h>" for l in lines):
            problems.append("%s: SYNOPSIS lacks #include <librpma.h>" % path)
        if name not in header.protos:
            problems.append("%s: %s is not declared in the header" % (path, name))
            continue
        # every italic word of the page is a parameter it shows
        params = set()
        for text in header.synopsis(name):
            for m in re.finditer(r"(\w+)\s*(?:\[[^\]]*\])?\s*[,)]", text):
                params.add(m.group(1))
        for word in sorted(set(re.findall(r"\\fI\\?%?(\w+)\\f[PR]", troff)) - params):
            problems.append("%s: italic '%s' is not a parameter of %s" % (path, word, name))
        got = [manlib.normalize_prototype(s) for s in synopsis_statements(lines)]
        want = [manlib.normalize_prototype(s) for s in header.synopsis(name)]
        if got != want:
            problems.append("%s: SYNOPSIS differs from the header\n  page:   %s\n  header: %s"
                            % (path, "\n          ".join(got), "\n          ".join(want)))
    if not pages:
        problems.append("no built pages in %s/man3" % args.built)
    return problems, "%d synopses match the header" % len(pages)


def check_groff(args):
    from concurrent.futures import ThreadPoolExecutor
    groff = args.groff or os.environ.get("GROFF") or "groff"
    pages = [p for s in ("1", "3", "7") for p in built_pages(args.built, s).values()]

    def run(path):
        try:
            done = subprocess.run([groff, "-man", "-ww", "-z", path], capture_output=True, text=True)
        except OSError as e:
            return "cannot run %s (%s): install the Debian package groff-base" % (groff, e)
        out = (done.stdout + done.stderr).strip()
        if done.returncode or out:
            return "%s:\n  %s" % (path, out.replace("\n", "\n  ") or "exit %d" % done.returncode)
        return None

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        problems = [p for p in pool.map(run, pages) if p]
    if not pages:
        problems.append("no built pages in %s" % args.built)
    return problems, "%d pages format without warnings" % len(pages)


def read_seen(directory):
    """{function: {code}} from the unit tests' records (tests/unit/record.cc):
    a line "<function>" for a call, "<function> <code>" for a code returned."""
    seen = {}
    files = sorted(f for f in os.listdir(directory) if f.endswith(".txt"))
    if not files:
        raise manlib.ManError("%s holds no record: run the unit tests first" % directory)
    for name in files:
        with open(os.path.join(directory, name), encoding="utf-8") as f:
            for line in f:
                words = line.split()
                if words:
                    seen.setdefault(words[0], set()).update(words[1:2])
    return seen


def check_errors(args):
    problems = []
    seen = read_seen(args.seen)
    header = manlib.read_header(args.header)
    pages = {n: p for (n, s), p in manlib.load_pages(args.src).items() if s == "3"}
    for fn, page in sorted(pages.items()):
        listed = {code for code, _ in page.errors()}
        if fn not in seen:
            # the string functions return no code and are not recorded
            if listed or (fn in header.protos and header.protos[fn].text.startswith("int")):
                problems.append("%s: no unit test calls %s" % (page.path, fn))
            continue
        for code in sorted(listed - seen[fn]):
            problems.append("%s: ERRORS lists %s, which no unit test saw %s return"
                            % (page.path, code, fn))
        for code in sorted(seen[fn] - listed):
            problems.append("%s: ERRORS does not list %s, which a unit test saw %s return"
                            % (page.path, code, fn))
    if args.verbose:
        for fn in sorted(seen):
            print("%s: %s" % (fn, " ".join(sorted(seen[fn])) or "-"))
    return problems, "the ERRORS of %d pages match what the unit tests saw" % len(pages)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("coverage")
    p.add_argument("--map", required=True)
    p.add_argument("--header", required=True)
    p.add_argument("--src", required=True)
    p.add_argument("--built", required=True)
    p.add_argument("--installed", help="the pages make install installs, space-separated")
    p = sub.add_parser("synopsis")
    p.add_argument("--header", required=True)
    p.add_argument("--built", required=True)
    p = sub.add_parser("groff")
    p.add_argument("--built", required=True)
    p.add_argument("--groff")
    p = sub.add_parser("errors")
    p.add_argument("--src", required=True)
    p.add_argument("--header", required=True)
    p.add_argument("--seen", required=True, help="the unit tests' records (tests/unit/errors-seen)")
    p.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    check = {"coverage": check_coverage, "synopsis": check_synopsis,
             "groff": check_groff, "errors": check_errors}[args.cmd]
    try:
        problems, summary = check(args)
    except (manlib.ManError, OSError) as e:
        problems, summary = [str(e)], ""
    for p in problems:
        print("FAIL: " + p)
    if problems:
        print("%s: %d problem(s)" % (args.cmd, len(problems)))
        return 1
    print("%s: ok, %s" % (args.cmd, summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
