#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/engine_list.py [TOP] | --self-test: the fio engines' names are
listed in one place (make check: the self-test, then the tree).

engine/Makefile.am's ENGINES is the list (CONTRIBUTING.md, "Adding an
engine"): the build makes each engine of it and writes engines.list, which
the scripts and the packages read. This fails on any other source, script
or packaging file of the tree that writes the list again: names of
engines of two kinds or more (apm, gpspm...) next to each other, with or
without their librpma_ prefix and separated only by blanks, commas,
quotes, brackets or line continuations, or a brace expansion of two kinds
or more (librpma_{apm,gpspm}_{client,server}). A kind's own pair (a test
of the append-only log's two engines) is no list of the engines. The
documents (*.md), NEWS and recorded results may name engines in prose.

Exit status 1 with one line per list found, 0 when there is none. TOP
defaults to the directory above this script. --self-test plants each kind
of list, among names that are no list, in a scratch tree, and fails unless
exactly the lists are reported.
"""
import os
import re
import subprocess
import sys
import tempfile

SELF = "tests/engine_list.py"
LIST_FILE = "engine/Makefile.am"
# prose, or what a run recorded
NOT_READ = re.compile(r"(\.md$|^NEWS$|^bench/results/|^qualify/tests/data/)")
SEPARATORS = r"""[\s,'"\\()\[\]]+"""
BRACES = re.compile(r"librpma_\{(\w+(?:,\w+)+)\}_\{(?:client,server|server,client)\}")


def engines(top):
    """The names of engine/Makefile.am's ENGINES."""
    with open(os.path.join(top, LIST_FILE), encoding="utf-8") as f:
        text = f.read().replace("\\\n", " ")
    m = re.search(r"^ENGINES\s*=(.*)$", text, re.M)
    if not m or not m.group(1).split():
        sys.exit("engine_list: no ENGINES = ... in " + LIST_FILE)
    return m.group(1).split()


def tree_files(top):
    if os.path.exists(os.path.join(top, ".git")):
        out = subprocess.run(["git", "-C", top, "ls-files", "-z"], check=True,
                             capture_output=True).stdout
        return sorted(p for p in out.decode().split("\0") if p)
    found = []
    for d, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if not x.startswith((".", "build"))]
        found += [os.path.relpath(os.path.join(d, f), top) for f in files]
    return sorted(found)


def kind(name):
    """apm of librpma_apm_client or apm_server"""
    return re.sub(r"^librpma_|_(client|server)$", "", name)


def lists_in(text, names):
    """(line, what) of each list of names of two kinds or more in text."""
    bare = sorted({n.removeprefix("librpma_") for n in names}, key=len, reverse=True)
    # not a file's name: aof_client.cc
    name = r"(?<![\w$])(?:librpma_)?(?:%s)(?!\w|\.\w)" % "|".join(map(re.escape, bare))
    found = []
    for m in re.finditer(name + "(?:" + SEPARATORS + name + ")+", text):
        if len({kind(n) for n in re.findall(name, m.group(0))}) > 1:
            found.append((text.count("\n", 0, m.start()) + 1, " ".join(m.group(0).split())))
    for m in BRACES.finditer(text):
        found.append((text.count("\n", 0, m.start()) + 1, m.group(0)))
    return sorted(found)


def check(top):
    names = engines(top)
    problems = []
    for path in tree_files(top):
        if path in (LIST_FILE, SELF) or NOT_READ.search(path):
            continue
        try:
            with open(os.path.join(top, path), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
        for line, what in lists_in(text, names):
            problems.append("%s:%d: the engines listed again (%s): read engine/Makefile.am's "
                            "list from the build's engines.list" % (path, line, what))
    return problems


def self_test():
    planted = {
        "a.sh": "for e in apm_client gpspm_server; do\n\tln -s $e\ndone\n",
        "b.py": 'ENGINES = ("librpma_gpspm_client",\n    "librpma_aof_server")\n',
        "c.sh": "x=(librpma_apm_client \\\n\tlibrpma_gpspm_server)\n",
        "d.sh": "echo librpma_{apm,gpspm}_{client,server}\n",
    }
    fine = {
        "e.sh": "ioengine=librpma_apm_client\nuse librpma_aof_client and librpma_aof_server\n"
                "for f in librpma_aof_client librpma_aof_server; do cp $f; done\n"
                "see apm_client.cc, gpspm_server.cc\n",
        "f.sh": "for kind in apm gpspm; do librpma_${kind}_client; done\n",
        "g" ".md": "librpma_apm_client, librpma_apm_server\n",
        "h.fio": "[job]\nioengine=librpma_gpspm_server\n",
    }
    with tempfile.TemporaryDirectory() as top:
        os.makedirs(os.path.join(top, "engine"))
        with open(os.path.join(top, LIST_FILE), "w", encoding="utf-8") as f:
            f.write("ENGINES = librpma_apm_client librpma_apm_server \\\n"
                    "\tlibrpma_gpspm_client librpma_gpspm_server \\\n"
                    "\tlibrpma_aof_client librpma_aof_server\n")
        for path, text in {**planted, **fine}.items():
            with open(os.path.join(top, path), "w", encoding="utf-8") as f:
                f.write(text)
        reported = sorted({p.split(":")[0] for p in check(top)})
    if reported != sorted(planted):
        print("engine_list: self-test: reported %s, planted %s" % (reported, sorted(planted)))
        return 1
    print("engine_list: self-test: each planted list reported, nothing else")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    # make check's run: first the self-test, then the tree
    if len(argv) == 1 and self_test():
        return 1
    top = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "..")
    problems = check(top)
    for p in problems:
        print(p)
    if problems:
        print("engine_list: the engines listed again %d times outside %s" %
              (len(problems), LIST_FILE))
    else:
        print("engine_list: %d engines, listed in %s only" % (len(engines(top)), LIST_FILE))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
