#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/abi/symbols.sh -- librpma.so.0 exports exactly the functions that
# librpma.h declares before its "BEYOND UPSTREAM" section, each as
# NAME@@LIBRPMA_1.0, those that section declares, each as
# NAME@@LIBRPMA_EXT_1.0, plus exactly those that the private
# rpma/librpma_private.h declares, each as NAME@@LIBRPMA_PRIVATE (the entry
# points of this tree's fio engines, expected there and nowhere else:
# docs/compatibility.md, "ABI"), and has soname librpma.so.0.
set -euo pipefail
lib=${top_builddir:-.}/rpma/.libs/librpma.so.0
header=${srcdir:-.}/../rpma/librpma.h
private=${srcdir:-.}/../rpma/librpma_private.h
[ -f "$lib" ] || { echo "symbols: $lib not built"; exit 1; }

# declared_in NODE: NAME@@NODE for each function declared on standard input
declared_in() {
	grep -oE '^(int|const char \*)[ ]*rpma_[a-z0-9_]+\(' |
		sed -E "s/.*(rpma_[a-z0-9_]+)\(/\1@@$1/"
}
grep -q 'BEYOND UPSTREAM' "$header" || { echo "symbols: no BEYOND UPSTREAM section"; exit 1; }
expected=$({
	sed '/BEYOND UPSTREAM/,$d' "$header" | declared_in LIBRPMA_1.0
	sed -n '/BEYOND UPSTREAM/,$p' "$header" | declared_in LIBRPMA_EXT_1.0
	declared_in LIBRPMA_PRIVATE <"$private"
} | sort)
# every defined dynamic symbol but the version nodes' own
actual=$(nm -D --defined-only "$lib" |
	awk '$3 !~ /^LIBRPMA_(1\.0|EXT_1\.0|PRIVATE)$/ { print $3 }' | sort)
failed=0
if [ "$expected" != "$actual" ]; then
	echo "symbols: exported set differs from the headers (< headers, > library):"
	diff <(echo "$expected") <(echo "$actual") || true
	failed=1
fi
count=$(echo "$actual" | grep -c '@@LIBRPMA_1.0$' || true)
[ "$count" -eq 85 ] || { echo "symbols: $count functions under LIBRPMA_1.0, 85 expected"; failed=1; }
ext_count=$(echo "$actual" | grep -c '@@LIBRPMA_EXT_1.0$' || true)
[ "$ext_count" -eq 8 ] ||
	{ echo "symbols: $ext_count functions under LIBRPMA_EXT_1.0, 8 expected"; failed=1; }
private_count=$(echo "$actual" | grep -c '@@LIBRPMA_PRIVATE$' || true)
[ "$private_count" -eq 3 ] ||
	{ echo "symbols: $private_count functions under LIBRPMA_PRIVATE, 3 expected"; failed=1; }
# exactly the three version nodes
nodes=$(nm -D --defined-only "$lib" | awk '$2 == "A" { print $3 }' | sort | paste -sd ' ')
[ "$nodes" = "LIBRPMA_1.0 LIBRPMA_EXT_1.0 LIBRPMA_PRIVATE" ] || {
	echo "symbols: version nodes '$nodes', expected LIBRPMA_1.0 LIBRPMA_EXT_1.0 LIBRPMA_PRIVATE"
	failed=1
}
soname=$(objdump -p "$lib" | awk '/SONAME/ { print $2 }')
[ "$soname" = librpma.so.0 ] || { echo "symbols: soname is '$soname'"; failed=1; }
echo "$((1 - failed)) passed, $failed failed"
exit $failed
