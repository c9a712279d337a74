#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/main-job.sh -- `tools/setup`, the README's command that builds from the
# tree, ends with tools/main-job:
# run it in a scratch directory with the engines just built, and check that
# its table has four rows, each with non-zero IOPS, bandwidth and latency.
set -uo pipefail
: "${srcdir:?set by make check}"
scratch=$(mktemp -d "${top_builddir:-.}/main-job.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

"$srcdir/../tools/main-job" --engines "$top_builddir/engine/.libs" --out "$scratch" \
	>"$scratch/table.txt"
status=$?
cat "$scratch/table.txt"
[ $status -eq 0 ] || { echo "main-job exited with $status"; echo "0 passed, 1 failed"; exit 1; }

# rows look like: "APM write   1404   5.36 MiB/s   1359.9 us  10027.0 us"
rows=$(grep -cE '^(APM|GPSPM) [a-z]+ +[1-9][0-9]* +[0-9.]*[1-9][0-9.]* MiB/s +[0-9.]*[1-9][0-9.]* us +[0-9.]*[1-9][0-9.]* us$' "$scratch/table.txt")
if [ "$rows" -eq 4 ]; then
	echo "1 passed, 0 failed"
else
	echo "main-job: $rows of 4 rows with non-zero figures"
	echo "0 passed, 1 failed"
	exit 1
fi
