#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# engine/tests/soak.sh [MINUTES] -- `make check-soak`: an APM and a GPSPM
# server/client pair side by side for MINUTES (default 30) in the Soft-RoCE
# VM, the resident memory of the four fio processes sampled every 10 s.
# Passes when every job ends with 0 errors and no process grew by more than
# SOAK_GROWTH_KB (default 2048) from the end of the warm-up (the first fifth
# of the run) to its end (soak_judge.py). Not part of make check; the
# samples stay in $RESULTS/soak.csv.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=$(cd "$here/../.." && pwd)
minutes=${1:-30}
: "${ENGINE_DIR:?}"
results=${RESULTS:-$PWD/soak}

if [[ -z "${RPMA_TEST_IP:-}" ]]; then
	rm -rf "$results"
	mkdir -p "$results"
	exec "$top_srcdir/tests/vm/with-rdma" --timeout $((minutes * 60 + 900)) \
		--results "$results" -- env RESULTS="$results" "$0" "$minutes"
fi

# --- where RDMA works ---------------------------------------------------
. "$here/lib.sh"
runtime=$((minutes * 60))
declare -A pids ports=([apm]=7300 [gpspm]=7400)
# both servers first, then both clients: the runs overlap all along
for kind in apm gpspm; do
	use_case "$results/$kind" "${ports[$kind]}"
	mkdir -p "$results/$kind"
	fio_server "$kind" --filename=malloc --size=64m --iodepth=16
	pids[$kind-server]=$(pid_of server)
done
for kind in apm gpspm; do
	use_case "$results/$kind" "${ports[$kind]}"
	server_listens 60
done
declare -A rw=([apm]=randrw [gpspm]=randwrite)
for kind in apm gpspm; do
	use_case "$results/$kind" "${ports[$kind]}"
	fio_start client "$kind" --rw="${rw[$kind]}" --bs=4k --size=64m \
		--iodepth=16 --time_based --runtime="$runtime"
	pids[$kind-client]=$(pid_of client)
done

names=(apm-server apm-client gpspm-server gpspm-client)
echo "seconds,${names[*]}" | tr ' ' , >"$results/soak.csv"
began=$SECONDS
while ((SECONDS - began < runtime + 60)); do
	row=$((SECONDS - began)) alive=0
	for n in "${names[@]}"; do
		kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/${pids[$n]}/status" 2>/dev/null)
		[[ -n "$kb" ]] && alive=1
		row+=",${kb:-}"
	done
	((alive)) || break
	echo "$row" >>"$results/soak.csv"
	sleep 10
done
: >"$results/statuses"
for n in "${names[@]}"; do
	wait_exit "${pids[$n]}" 60
	echo "$n $?" >>"$results/statuses"
done
# the judge stands on the measurement package, bench/rpma_measure
PYTHONPATH="$here/../../bench" python3 "$here/soak_judge.py" "$results" "${SOAK_GROWTH_KB:-2048}"
