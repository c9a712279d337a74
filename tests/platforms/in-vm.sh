#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/platforms/in-vm.sh SRCDIR BUILDDIR -- one cell of the platform
# matrix, inside the test VM (tests/vm/run --nvdimm): the integration tests
# of the native operations, of ODP and of the data path, then the examples
# on FS DAX where the device pages on demand, then the fio engines'
# native_ops= per job and the append-only log's GPSPM mode where the engines
# are built (engine/tests/native.sh and aof.sh,
# judged here by engine/tests/evaluate.py; results in BUILDDIR/platform-engines). Prints each part's counts and
# a closing "N passed, N failed" line (", N skipped" when some were;
# tests/parts.sh); exits 0 if none failed.
# The examples that put their data on FS DAX skip, naming the defect, where
# the ODP probe (tests/integration/odp-probe, run once here) finds that the
# kernel misplaces data within a page of an ODP region (rxe of Linux 7.2).
set -u
src=${1:?usage: in-vm.sh SRCDIR BUILDDIR}
build=${2:?usage: in-vm.sh SRCDIR BUILDDIR}
: "${RPMA_TEST_IP:?run in the test VM}"
port=${RPMA_TEST_PORT:-7204}
# shellcheck source=tests/parts.sh
. "$src/tests/parts.sh"
# of a part's output: the cases' verdicts and the counts
PARTS_SHOWN='^\[ +(OK|FAIL|SKIP) +\]|^  (failure|error)|^=== .*: (passed|FAILED$|SKIP)|passed, [0-9]+ failed'

version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo none; }
echo "platform: kernel $(uname -r), Debian $(cat /etc/debian_version)," \
	"rdma-core $(version rdma-core)"

it=$build/tests/integration/rpma-integration
RPMA_TEST_PORT=$port part "native operations" timeout -k 10 300 "$it" NativeOps
RPMA_TEST_PORT=$((port + 20)) part "on-demand paging" timeout -k 10 300 "$it" Odp
RPMA_TEST_PORT=$((port + 40)) part "data path" timeout -k 10 300 "$it" DataTest

if [[ -z "${RPMA_TEST_FSDAX:-}" ]]; then
	part_skip "examples on FS DAX" "no FS DAX mount"
elif ! ibv_devinfo -v -d "${RPMA_TEST_DEV:-rxe0}" | grep -A1 general_odp_caps |
	grep -q ODP_SUPPORT; then
	part_skip "examples on FS DAX" "the device reports no On-Demand Paging"
else
	probe=$("$build/tests/integration/odp-probe" "$RPMA_TEST_IP")
	echo "##### ODP probe (status $?): $probe"
	pmem_skip=
	if [[ $probe == "odp-probe: offsets lost: "* ]]; then
		pmem_skip=${probe#odp-probe: offsets lost: }
	fi
	# a bound well above an example's few seconds here: misplaced data can
	# leave a server waiting for what never arrives
	RPMA_EXAMPLE_PMEM_SKIP=$pmem_skip RPMA_EXAMPLE_TIMEOUT=60 part "examples on FS DAX" "$src/examples/run-all.sh" "$build/examples" \
		"$RPMA_TEST_IP" $((port + 100)) "$RPMA_TEST_FSDAX/examples.pmem"
fi

# engine_cases CASES: the engine suite's cases CASES (in-vm.sh's
# ENGINE_CASES), then their verdicts
engine_cases() {
	local results=$build/platform-engines
	rm -rf "$results"
	mkdir -p "$results"
	ENGINE_DIR=$build/engine/.libs RPMA_LIB_DIR=$build/rpma/.libs RESULTS=$results \
		ENGINE_CASES="$1" \
		timeout -k 10 600 "$src/engine/tests/in-vm.sh"
	# the judge stands on the measurement package, bench/rpma_measure
	PYTHONPATH="$src/bench" python3 "$src/engine/tests/evaluate.py" "$results"
}
if [[ -f $build/engine/.libs/librpma_apm_client.so ]]; then
	part "engines: native_ops per job, the append-only log" engine_cases \
		"native_ops_case; native_ops_window; aof_native_case; aof_writes gpspm"
else
	part_skip engines "not built for this userspace (the build log says why)"
fi

parts_total
