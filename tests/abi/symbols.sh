#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/abi/symbols.sh -- librpma.so.0 exports exactly the functions that
# librpma.h declares, each as NAME@@LIBRPMA_1.0, and has soname librpma.so.0.
set -euo pipefail
lib=${top_builddir:-.}/rpma/.libs/librpma.so.0
header=${srcdir:-.}/../rpma/librpma.h
[ -f "$lib" ] || { echo "symbols: $lib not built"; exit 1; }

expected=$(grep -oE '^(int|const char \*)[ ]*rpma_[a-z0-9_]+\(' "$header" |
	sed -E 's/.*(rpma_[a-z0-9_]+)\(/\1@@LIBRPMA_1.0/' | sort)
actual=$(nm -D --defined-only "$lib" | awk '$3 != "LIBRPMA_1.0" { print $3 }' | sort)
failed=0
if [ "$expected" != "$actual" ]; then
	echo "symbols: exported set differs from the header (< header, > library):"
	diff <(echo "$expected") <(echo "$actual") || true
	failed=1
fi
count=$(echo "$actual" | grep -c .)
[ "$count" -eq 85 ] || { echo "symbols: $count functions exported, 85 expected"; failed=1; }
soname=$(objdump -p "$lib" | awk '/SONAME/ { print $2 }')
[ "$soname" = librpma.so.0 ] || { echo "symbols: soname is '$soname'"; failed=1; }
echo "$((1 - failed)) passed, $failed failed"
exit $failed
