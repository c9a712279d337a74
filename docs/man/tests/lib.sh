# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Shared by the checks of the manual. make check sets top_srcdir, srcdir
# (docs/), builddir (docs/ in the build tree) and PYTHON3.
set -u
: "${top_srcdir:?run by make check}" "${srcdir:?}" "${builddir:?}"
PYTHON3=${PYTHON3:-python3}
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
mancheck() { "$PYTHON3" "$srcdir/man/mancheck.py" "$@"; }
