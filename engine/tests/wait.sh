# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# engine/tests/wait.sh -- bounded waiting for a background process; sourced
# by the engine tests (lib.sh) and the benchmark (bench/in-vm.sh).

# wait_exit PID SECONDS: its exit status, or 124 after killing it when it
# is still running after SECONDS (times WAIT_SCALE, for slower builds).
# (Deadlines go by $SECONDS: in the VM each external command, sleep too,
# takes a good part of a second.)
wait_exit() {
	local pid=$1 end=$((SECONDS + $2 * ${WAIT_SCALE:-1}))
	while kill -0 "$pid" 2>/dev/null; do
		if ((SECONDS >= end)); then
			kill -9 "$pid" 2>/dev/null
			wait "$pid"
			return 124
		fi
		sleep 0.2
	done
	wait "$pid"
}
