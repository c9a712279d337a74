#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/first-run-errors.sh -- the first run's failures name their cause and
# fix, with a non-zero exit: no QEMU, a QEMU without TCG (tests/vm/selftest),
# and a server that never listens (tools/main-job with no engines to load).
set -uo pipefail
: "${srcdir:?set by make check}"
passed=0 failed=0
result() { # result NAME STATUS
	if (($2 == 0)); then
		echo "PASS: $1"; passed=$((passed + 1))
	else
		echo "FAIL: $1"; failed=$((failed + 1))
	fi
}

"$srcdir/vm/selftest" no-qemu no-tcg
result "VM runner without a usable QEMU" $?

scratch=$(mktemp -d "${top_builddir:-.}/first-run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/no-engines"
status=0
"$srcdir/../tools/main-job" --runtime 1 --engines "$scratch/no-engines" \
	--out "$scratch/out" >"$scratch/stdout" 2>"$scratch/stderr" || status=$?
cat "$scratch/stderr"
((status != 0)) && grep -q "the server never listened" "$scratch/stderr" &&
	grep -q "server: .*not loadable" "$scratch/stderr"
result "main-job whose server cannot start" $?

echo "$passed passed, $failed failed"
((failed == 0))
