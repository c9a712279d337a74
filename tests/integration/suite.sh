#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The whole integration run, where RDMA works (RPMA_TEST_IP set): the test
# program, then every example pair, on DRAM and, if RPMA_TEST_DEVDAX names
# a Device DAX, once more on that persistent memory.
# Ends with the sum of all as an "N passed, N failed" line (", N skipped"
# when a part or a program's case could not run here, each said with its
# reason); exits 0 only if nothing failed.
#
# usage: suite.sh <top-builddir>
set -u
build=${1:?usage: suite.sh <top-builddir>}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ip=${RPMA_TEST_IP:?RPMA_TEST_IP must name the RDMA device address}
port=${RPMA_TEST_PORT:-7204}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

passed=0 failed=0 skipped=0

echo "##### RDMA links: $(rdma link show 2>/dev/null | awk '{ printf "%s%s (netdev %s)", n++ ? ", " : "", $2, $NF }')"

skip() { # skip NAME REASON
	echo "##### SKIP $1: $2"
	skipped=$((skipped + 1))
}

# run NAME CMD...: runs CMD, adds its closing "N passed, N failed" line to
# the totals; a run that failed without one counts as one failure
run() {
	local name=$1
	shift
	echo "##### $name"
	"$@" 2>&1 | tee "$log"
	local rc=${PIPESTATUS[0]} line p f s
	line=$(grep -E '^([a-z]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)? ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[4]:-0}
	else
		p=0 f=0 s=0
	fi
	if ((rc != 0 && f == 0)); then
		echo "##### $name exited with $rc"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

RPMA_TEST_PORT=$port run "test program" \
	timeout -k 10 480 "$build/tests/integration/rpma-integration"
run "examples" "$here/../../examples/run-all.sh" "$build/examples" "$ip" \
	$((port + 100))
# persistent memory set aside for tests (the VM's emulated NVDIMM exports
# it as RPMA_TEST_DEVDAX); never a guessed device, whose data it would wreck
pmem=${RPMA_TEST_DEVDAX:-}
if [[ -n "$pmem" ]]; then
	run "examples on $pmem" "$here/../../examples/run-all.sh" \
		"$build/examples" "$ip" $((port + 200)) "$pmem"
else
	skip "examples on persistent memory" "no RPMA_TEST_DEVDAX (tests/vm/run --nvdimm)"
fi

# last: it takes the link down (and up again); only where the VM says it may
if [[ -n "${RPMA_TEST_NETDEV:-}" ]]; then
	RPMA_TEST_PORT=$((port + 300)) run "link down" \
		timeout -k 10 120 "$build/tests/integration/rpma-integration" Disruptive
else
	skip "link down" "no RPMA_TEST_NETDEV: no link the test may take down"
fi

if ((skipped)); then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
((failed == 0))
