#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/ci-summary.sh -- .ci/summary adds up what every test program says,
# and counts a program that died before saying it as failed (its automake
# .trs file tells) and skips as skipped.
set -uo pipefail
summary=${srcdir:-$(dirname "$0")}/../.ci/summary
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/build/a" "$tree/build/b"
program() { # program NAME RESULT LOG-TEXT: a test program's log and .trs
	printf '%b\n' "$3" >"$tree/build/a/$1.log"
	printf ':test-result: %s\n:global-test-result: %s\n' "$2" "$2" >"$tree/build/a/$1.trs"
}
program pass PASS "3 passed, 0 failed"
program died FAIL "Segmentation fault"
program error ERROR "1 passed, 0 failed"
program whole-skip SKIP "engines: SKIP: no VM to boot"
program engines PASS "PASS x\nSKIP y: no Device DAX\n5 passed, 0 failed, 1 skipped"
program failing FAIL "2 passed, 1 failed"
# a log of its own, no automake test (check-interop)
echo "10 passed, 0 failed" >"$tree/build/b/interop.log"
echo "fio said: 7 passed, 7 failed" >"$tree/build/a/config.log"

want="21 passed, 3 failed, 2 skipped"
out=$("$summary" "$tree/build")
rc=$?
got=$(tail -n 1 <<<"$out")
# the two programs that failed without counting it are named
named=$(grep -c '^tally: \(died\|error\)\.log: automake says \(FAIL\|ERROR\)' <<<"$out")
if [[ $got == "$want" && $rc == 1 && $named == 2 ]]; then
	echo "ci-summary: $got"
	echo "1 passed, 0 failed"
else
	echo "ci-summary: got '$got' (exit $rc, $named named), want '$want' (exit 1, 2 named)"
	echo "0 passed, 1 failed"
	exit 1
fi
