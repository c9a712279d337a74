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
# a closing "N passed, N failed, N skipped" line; exits 0 if none failed.
# The examples that put their data on FS DAX skip, naming the defect, where
# the ODP probe (tests/integration/odp-probe, run once here) finds that the
# kernel misplaces data within a page of an ODP region (rxe of Linux 7.2).
set -u
src=${1:?usage: in-vm.sh SRCDIR BUILDDIR}
build=${2:?usage: in-vm.sh SRCDIR BUILDDIR}
: "${RPMA_TEST_IP:?run in the test VM}"
port=${RPMA_TEST_PORT:-7204}
passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo none; }
echo "platform: kernel $(uname -r), Debian $(cat /etc/debian_version)," \
	"rdma-core $(version rdma-core)"

# part NAME CMD...: adds CMD's closing counts; exit status 77 is a skip
part() {
	local name=$1 rc p=0 f=0 s=0 line
	shift
	echo "##### $name"
	"$@" 2>&1 | tee "$log" | grep -E '^\[ +(OK|FAIL|SKIP) +\]|^  (failure|error)|^=== .*: (passed|FAILED$|SKIP)|passed, [0-9]+ failed'
	rc=${PIPESTATUS[0]}
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)? ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[4]:-0}
	fi
	if ((rc != 0 && rc != 77 && f == 0)); then
		echo "##### $name exited with $rc"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

it=$build/tests/integration/rpma-integration
RPMA_TEST_PORT=$port part "native operations" timeout -k 10 300 "$it" NativeOps
RPMA_TEST_PORT=$((port + 20)) part "on-demand paging" timeout -k 10 300 "$it" Odp
RPMA_TEST_PORT=$((port + 40)) part "data path" timeout -k 10 300 "$it" DataTest

if [[ -z "${RPMA_TEST_FSDAX:-}" ]]; then
	echo "##### SKIP examples on FS DAX: no FS DAX mount"
	skipped=$((skipped + 1))
elif ! ibv_devinfo -v -d "${RPMA_TEST_DEV:-rxe0}" | grep -A1 general_odp_caps |
	grep -q ODP_SUPPORT; then
	echo "##### SKIP examples on FS DAX: the device reports no On-Demand Paging"
	skipped=$((skipped + 1))
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
	python3 "$src/engine/tests/evaluate.py" "$results"
}
if [[ -f $build/engine/.libs/librpma_apm_client.so ]]; then
	part "engines: native_ops per job, the append-only log" engine_cases \
		"native_ops_case; aof_native_case; aof_writes gpspm"
else
	echo "##### SKIP engines: not built for this userspace (the build log says why)"
	skipped=$((skipped + 1))
fi

echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
