#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/citations.py [--verbose] [TOP] | --self-test: the tree cites only
what it holds.

Every source, script and document of the tree (git's files in a checkout,
else every file under TOP but build trees) is read for citations:
  - a Markdown document, `path/to/doc.md` or a bare `doc.md`, with its
    `#anchor` if it has one;
  - a source in the tree: a path that starts with a top-level directory of
    the tree and ends in a source's extension (`engine/link.hh`,
    `tests/citations.py`; programs and directories may be the build's);
  - a section named after a document: `doc.md, "Title"` or
    `doc.md ("Title", "Other title")`, across comment lines.
A path resolves against the top of the tree, the citing file's directory,
or (a bare `doc.md`) any document of that name in the tree; an anchor or a
title must be a heading of the document; a numbered section (`doc.md §2`)
never resolves, the tree's documents have no numbers. A path with a
placeholder (`$DIR/x.md`, `RESULTS/x.md`, `<name>.3.md`) or under `build/`
(the build tree) is no citation.

Exit status 1 with one line per broken citation, 0 when every one
resolves. TOP defaults to the directory above this script. --self-test
plants one broken citation of each kind, among good ones, in a scratch
tree and fails unless each is reported, and nothing else.
"""
import os
import re
import subprocess
import sys

SELF = "tests/citations.py"
TREE_DIRS = ("rpma", "engine", "tests", "docs", "tools", "bench", "examples", "debian",
             ".ci", "m4")
# files written by configure, automake or a build, never cited as sources
SKIP_DIRS = {".git", "autom4te.cache", ".cache", "build-aux"}
# a character that may not come just before a citation: a citation that
# follows one of these is part of a longer word, a variable or a pattern
NOT_BEFORE = r"(?<![\w.$/{}<>*%@~+-])"
PATH_CHARS = r"[\w.+-]"
MD_RE = re.compile(NOT_BEFORE + r"((?:\.\.?/)*\w" + PATH_CHARS + r"*(?:/" + PATH_CHARS +
                   r"+)*\.md)(#[\w-]+)?(?![\w/])")
TREE_RE = re.compile(NOT_BEFORE + r"((?:" + "|".join(re.escape(d) for d in TREE_DIRS) +
                     r")/(?:" + PATH_CHARS + r"|/)*)")
# a tree path is checked when it names a source or a document; programs
# and directories may be the build's (tests/vm/README.md: build/tests/...)
CHECKED_EXT = {".c", ".cc", ".h", ".hh", ".py", ".sh", ".fio", ".am", ".ac", ".map",
               ".proto", ".json", ".txt"}
TITLES_RE = re.compile(r'\s*(?:,|\()\s*"([^"\n]+)"((?:\s*,\s*"[^"\n]+")*)')
MORE_TITLES_RE = re.compile(r'"([^"\n]+)"')
NUMBERED_RE = re.compile(r"\s*,?\s*§\s*[\d.]*\d")
# the line breaks of comments and lists, so that a citation wrapped over
# two lines reads as one
WRAP_RE = re.compile(r"[ \t]*\n[ \t]*(?:(?://+|#+|\*|--|;+|>)(?=[ \t]|$))?[ \t]*")
HEADING_RE = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)


def tree_files(top):
    if os.path.exists(os.path.join(top, ".git")):
        try:
            out = subprocess.run(["git", "-C", top, "ls-files", "-z"], check=True,
                                 capture_output=True).stdout
            return sorted(p for p in out.decode().split("\0") if p)
        except (OSError, subprocess.CalledProcessError):
            pass
    found = []
    for root, dirs, files in os.walk(top):
        rel = os.path.relpath(root, top)
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and
                   not (rel == "." and d.startswith("build"))]
        for f in files:
            found.append(os.path.normpath(os.path.join(rel, f)))
    return sorted(found)


def read_text(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


def slug(title):
    """The anchor a Markdown renderer gives a heading (GitHub's rule)."""
    title = title.strip().lower().replace("`", "")
    title = re.sub(r"[^\w\- ]", "", title)
    return title.replace(" ", "-")


def plain(title):
    return " ".join(title.replace("`", "").split()).lower()


class Tree:
    def __init__(self, top):
        self.top = top
        self.files = tree_files(top)
        self.by_name = {}
        for f in self.files:
            self.by_name.setdefault(os.path.basename(f), []).append(f)
        self.headings = {}

    def resolve(self, citing, path, bare_ok):
        """The tree path PATH cited from CITING names, or None."""
        here = os.path.dirname(citing)
        for cand in (os.path.normpath(os.path.join(here, path)), os.path.normpath(path)):
            if not cand.startswith("..") and os.path.exists(os.path.join(self.top, cand)):
                return cand
        if bare_ok and "/" not in path and path in self.by_name:
            return self.by_name[path][0]
        return None

    def titles(self, doc):
        if doc not in self.headings:
            text = read_text(os.path.join(self.top, doc)) or ""
            text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
            self.headings[doc] = [h for h in HEADING_RE.findall(text)]
        return self.headings[doc]


def placeholder(path):
    first = path.split("/")[0]
    return "/" in path and (first == "build" or re.fullmatch(r"[A-Z_]+", first))


def unwrap(text):
    """TEXT with its comment line breaks made spaces, and a function that
    gives the line of TEXT an offset of the result falls on."""
    parts, marks, at = [], [], 0
    for m in WRAP_RE.finditer(text):
        parts.append(text[at:m.start()])
        marks.append((sum(map(len, parts)), m.end()))
        parts.append(" ")
        at = m.end()
    parts.append(text[at:])
    flat = "".join(parts)

    def line(offset):
        lines = 1
        for flat_at, _ in marks:
            if flat_at >= offset:
                break
            lines += 1
        return lines
    return flat, line


def check_file(tree, rel, problems, seen):
    text = read_text(os.path.join(tree.top, rel))
    if text is None:
        return
    flat, line = unwrap(text)

    def bad(at, citation, why):
        problems.append(f"{rel}:{line(at)}: {citation}: {why}")

    for m in MD_RE.finditer(flat):
        path, anchor = m.group(1), m.group(2)
        if placeholder(path):
            continue
        seen[0] += 1
        doc = tree.resolve(rel, path, bare_ok=True)
        if doc is None:
            bad(m.start(), path, "no such document in the tree")
            continue
        after = flat[m.end():]
        n = NUMBERED_RE.match(after)
        if n:
            bad(m.start(), path + n.group(0), "a numbered section: the tree's documents have none")
        wanted = []
        if anchor:
            if anchor[1:] not in {slug(t) for t in tree.titles(doc)}:
                bad(m.start(), path + anchor, f"{doc} has no heading with that anchor")
        t = TITLES_RE.match(after)
        if t:
            wanted = [t.group(1)] + MORE_TITLES_RE.findall(t.group(2))
        # a title may be cited short: the heading's words before a colon
        have = {plain(h) for h in tree.titles(doc)}
        have |= {plain(h.split(":")[0]) for h in tree.titles(doc)}
        for title in wanted:
            if plain(title) not in have:
                bad(m.start(), f'{path}, "{title}"', f"{doc} has no section of that title")
    for m in TREE_RE.finditer(flat):
        path = m.group(1).rstrip(".-")
        if os.path.splitext(path)[1] not in CHECKED_EXT or placeholder(path):
            continue
        seen[0] += 1
        if tree.resolve(rel, path, bare_ok=False) is None:
            bad(m.start(), path, "no such path in the tree")


# --self-test: a scratch tree with one citation of each kind, good and bad
SELF_TEST_FILES = {
    "docs/guide.md": "# Guide\n\n## Wire formats: the bytes\n\n## Known defects\n\n"
                     "See [the bytes](#wire-formats-the-bytes) and engine/part.hh.\n",
    "engine/part.hh": "// part.hh -- the layout (docs/guide.md, \"Wire formats\"),\n"
                      "// the defects (docs/guide.md,\n// \"Known defects\"), guide.md\n"
                      "// output: $OUT/results.md, build/tests/x.md, RESULTS/y.md\n",
    "tests/bad.cc": "// docs/gone.md\n"
                    "// docs/guide.md, \"Lost section\"\n"
                    "// docs/guide.md#no-such-anchor\n"
                    "// docs/guide.md §2.8\n"
                    "// engine/gone.hh and tests/also-gone.sh\n"
                    "// docs/guide.md, \"Known defects\", \"Wrapped\n"
                    "// title\"\n",
}
SELF_TEST_BAD = ["docs/gone.md", '"Lost section"', "#no-such-anchor", "§2.8",
                 "engine/gone.hh", "tests/also-gone.sh", '"Wrapped title"']


def self_test():
    import contextlib
    import io
    import tempfile
    with tempfile.TemporaryDirectory() as top:
        for rel, text in SELF_TEST_FILES.items():
            os.makedirs(os.path.join(top, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(top, rel), "w") as f:
                f.write(text)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = main([top])
    lines = out.getvalue().splitlines()
    broken = [ln for ln in lines if not ln.startswith("citations:")]
    failed = 0
    if status != 1:
        print(f"self-test: exit status {status} on a tree with broken citations, not 1")
        failed += 1
    for needle in SELF_TEST_BAD:
        hits = [ln for ln in broken if ln.startswith("tests/bad.cc:") and needle in ln]
        if len(hits) != 1:
            print(f"self-test: {needle} reported {len(hits)} times, not once")
            failed += 1
    if len(broken) != len(SELF_TEST_BAD):
        print(f"self-test: {len(broken)} broken citations reported, "
              f"{len(SELF_TEST_BAD)} planted:\n" + "\n".join(broken))
        failed += 1
    print(f"citations self-test: {len(SELF_TEST_BAD)} planted, "
          f"{'all' if not failed else 'not all'} reported alone")
    return 1 if failed else 0


def main(argv):
    if argv[:1] == ["--self-test"]:
        return self_test()
    verbose = "--verbose" in argv
    args = [a for a in argv if a != "--verbose"]
    top = args[0] if args else os.environ.get(
        "top_srcdir", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    tree = Tree(os.path.abspath(top))
    problems, seen = [], [0]
    for rel in tree.files:
        # this file's examples and self-test are citations on purpose
        if rel != SELF:
            check_file(tree, rel, problems, seen)
    for p in problems:
        print(p)
    print(f"citations: {seen[0]} in {len(tree.files)} files, {len(problems)} broken")
    if verbose and not problems:
        print("citations: every cited document, section and path is in the tree")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
