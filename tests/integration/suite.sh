#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The whole integration run, where RDMA works (RPMA_TEST_IP set): the test
# program, then every example pair, on DRAM and, if RPMA_TEST_DEVDAX names
# a Device DAX, once more on that persistent memory.
# Ends with the sum of all as an "N passed, N failed" line (", N skipped"
# when a part or a program's case could not run here, each said with its
# reason; tests/parts.sh); exits 0 only if nothing failed.
#
# usage: suite.sh <top-builddir>
set -u
build=${1:?usage: suite.sh <top-builddir>}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ip=${RPMA_TEST_IP:?RPMA_TEST_IP must name the RDMA device address}
port=${RPMA_TEST_PORT:-7204}
# shellcheck source=tests/parts.sh
. "$here/../parts.sh"

echo "##### RDMA links: $(rdma link show 2>/dev/null | awk '{ printf "%s%s (netdev %s)", n++ ? ", " : "", $2, $NF }')"

RPMA_TEST_PORT=$port part "test program" \
	timeout -k 10 480 "$build/tests/integration/rpma-integration"
part "examples" "$here/../../examples/run-all.sh" "$build/examples" "$ip" \
	$((port + 100))
# persistent memory set aside for tests (the VM's emulated NVDIMM exports
# it as RPMA_TEST_DEVDAX); never a guessed device, whose data it would wreck
pmem=${RPMA_TEST_DEVDAX:-}
if [[ -n "$pmem" ]]; then
	part "examples on $pmem" "$here/../../examples/run-all.sh" \
		"$build/examples" "$ip" $((port + 200)) "$pmem"
else
	part_skip "examples on persistent memory" "no RPMA_TEST_DEVDAX (tests/vm/run --nvdimm)"
fi

# last: it takes the link down (and up again); only where the VM says it may
if [[ -n "${RPMA_TEST_NETDEV:-}" ]]; then
	RPMA_TEST_PORT=$((port + 300)) part "link down" \
		timeout -k 10 120 "$build/tests/integration/rpma-integration" Disruptive
else
	part_skip "link down" "no RPMA_TEST_NETDEV: no link the test may take down"
fi

parts_total
