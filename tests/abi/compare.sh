#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/abi/compare.sh -- a program compiled against upstream's librpma.h
# (Debian's librpma-dev) observes the same constants, strings, defaults and
# argument errors from our librpma.so.0 as from upstream's.
set -euo pipefail
srcdir=${srcdir:-.}
builddir=${top_builddir:-.}
cache=${RPMA_REF_CACHE:-$builddir/.cache/reference}
ours=$builddir/rpma/.libs

"$srcdir/abi/reference.sh" "$cache"
upstream=$cache/usr/lib/x86_64-linux-gnu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

${CC:-cc} -std=c11 -Wall -Wextra -Werror -I"$cache/usr/include" "$srcdir/abi/probe.c" \
	-o "$work/probe" -L"$upstream" -l:librpma.so.0
LD_LIBRARY_PATH=$upstream "$work/probe" >"$work/upstream.txt"
LD_LIBRARY_PATH=$ours "$work/probe" >"$work/ours.txt"

# the run against ours really loaded ours
loaded=$(LD_LIBRARY_PATH=$ours ldd "$work/probe" | awk '/librpma.so.0/ { print $3 }')
case $loaded in
"$ours"/*) ;;
*) echo "compare: probe loaded '$loaded', not $ours"; echo "0 passed, 1 failed"; exit 1 ;;
esac

if diff -u "$work/upstream.txt" "$work/ours.txt"; then
	echo "compare: $(wc -l <"$work/ours.txt") observations identical to upstream's"
	echo "1 passed, 0 failed"
else
	echo "0 passed, 1 failed"
	exit 1
fi
