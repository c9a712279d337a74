# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# tests/parts.sh -- for a script that runs several test programs as the
# parts of one run (tests/integration/suite.sh, tests/platforms/in-vm.sh):
# each part's output and exit status are kept, and tests/tally.py adds
# them up at the end. Sourced; it sets the EXIT trap.

parts_tally=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/tally.py
parts_dir=$(mktemp -d)
trap 'rm -rf "$parts_dir"' EXIT
# LOG=STATUS of each part, in order
parts=()

# part_log NAME: the file of the next part's output
part_log() {
	echo "$parts_dir/${#parts[@]}-${1//[^A-Za-z0-9]/_}.log"
}

# part NAME CMD...: runs CMD as the part NAME, its output shown, or only
# the lines that match the grep -E pattern PARTS_SHOWN when it is set
part() {
	local name=$1 log rc
	log=$(part_log "$1")
	shift
	echo "##### $name"
	# an empty pattern shows every line
	"$@" 2>&1 | tee "$log" | grep --line-buffered -E "${PARTS_SHOWN:-}"
	rc=${PIPESTATUS[0]}
	parts+=("$log=$rc")
}

# part_skip NAME REASON: the part NAME cannot run here
part_skip() {
	local log
	log=$(part_log "$1")
	echo "##### SKIP $1: $2" | tee "$log"
	parts+=("$log=77")
}

# parts_total: prints "N passed, N failed" (", N skipped" when some were)
# over every part; false when one failed
parts_total() {
	python3 "$parts_tally" sum "${parts[@]}"
}
