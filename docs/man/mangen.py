#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Generates the manual pages: troff from docs/man/src and rpma/librpma.h.

    mangen.py --header rpma/librpma.h --src docs/man/src --out OUTDIR [--version V]

Writes OUTDIR/man3/<function>.3 and OUTDIR/man7/<name>.7. A page is
rewritten only when its text changes, so make does not redo what depends
on it.
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True
import manlib  # noqa: E402


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--header", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--version", default="")
    args = ap.parse_args()
    try:
        header = manlib.read_header(args.header)
        pages = manlib.load_pages(args.src)
        for (name, section), page in sorted(pages.items()):
            outdir = os.path.join(args.out, "man" + section)
            os.makedirs(outdir, exist_ok=True)
            text = manlib.render(page, header, args.version)
            write_if_changed(os.path.join(outdir, "%s.%s" % (name, section)), text)
    except (manlib.ManError, OSError) as e:
        print("mangen: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
