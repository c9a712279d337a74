#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/in-vm.sh -- the measuring half of bench/run: runs in the Soft-RoCE
# VM (or on the host, with a real RDMA device) and only writes raw results;
# bench/summarize.py reads them on the host (python starts slowly in the VM).
# One mode a run, each a file of bench/in-vm/ (the fio matrix by default).
#
# Environment (set by bench/run):
#   BENCH_IP, BENCH_DEV   the RDMA address (server and client) and device
#   BENCH_RAW             where the raw results go (created, written live)
#   BENCH_MODE            quick or full; BENCH_ROUNDS, BENCH_RUNTIME (s)
#   ENGINE_DIR, RPMA_LIB_DIR   our engines (librpma_*.so) and librpma.so.0
#   OLD_FIO, OLD_RPMA_LIB      the reference (bench/prepare-reference)
#   RPMA_BENCH            the rpma-bench program
#   BENCH_PORT            first port to use (default 7300)
#   BENCH_ROWS            a regular expression: only the fio rows it matches
#   BENCH_FIO_ONLY        1: no perftest, no rpma-bench (quick comparisons)
#   BENCH_SCALING         1: only the scaling rows and the latency baselines
#   BENCH_ISOLATION       1 (with BENCH_SCALING): memory windows against none
#   BENCH_CLIENTS_NICE    the scaling rows' client fio runs at this nice (0)
#   CM_LOG_SO             cm-log.so, preloaded into the scaling rows' fio
#   BENCH_CONNECT         1: only rpma-bench --connections (1, 16, 64)
#   BENCH_IMPLS           --counts: only these implementations (ours,ref,base)
#   BENCH_SIDES           --counts: only these sides' runs (client,server)
#   BENCH_AOF             1: only the append-only log's rows (aof_pair);
#                         BENCH_NATIVE 1: with native_ops=all as well
#
# Writes to BENCH_RAW:
#   runs       one line per fio pair: ROW<TAB>IMPL<TAB>ROUND<TAB>CLIENT-STATUS SERVER-STATUS
#   packets    one line per counted pair: ROW<TAB>IMPL<TAB>PACKETS<TAB>IOS<TAB>STATUS
#   aof        BENCH_AOF's runs: ROW<TAB>ROUND<TAB>IOS<TAB>PACKETS<TAB>STATUS<TAB>NATIVE-LINE
#   fio/ROW.IMPL.rROUND.{client,server}.json   fio's reports, trimmed later
#   perftest/TEST.SIZE.rROUND.txt              perftest's client output
#   rpma-bench/IMPL.rROUND.json                rpma-bench's lines
#   connect/list, connect/IMPL.nN.HOW.rROUND.json   BENCH_CONNECT's runs
#   env        the guest's kernel, CPU, device
set -uo pipefail

: "${BENCH_IP:?}" "${BENCH_DEV:?}" "${BENCH_RAW:?}" "${ENGINE_DIR:?}" \
	"${RPMA_LIB_DIR:?}" "${OLD_FIO:?}" "${OLD_RPMA_LIB:?}" "${RPMA_BENCH:?}"
: "${BENCH_MODE:=quick}" "${BENCH_ROUNDS:=3}" "${BENCH_RUNTIME:=5}" "${BENCH_PORT:=7300}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$BENCH_RAW/fio" "$BENCH_RAW/perftest" "$BENCH_RAW/rpma-bench"
# the servers' working directory: the reference's server lays out a file
# named after filename=malloc there; keep that off the shared directory
BENCH_WORK=$(mktemp -d "${TMPDIR:-/tmp}/rpma-bench.XXXXXX")
trap 'rm -rf "$BENCH_WORK"' EXIT
# the settings every mode reads, fixed for the run
readonly BENCH_IP BENCH_DEV BENCH_RAW BENCH_MODE BENCH_ROUNDS BENCH_RUNTIME BENCH_PORT BENCH_WORK

{
	echo "kernel=$(uname -r)"
	echo "guest_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "guest_cpus=$(nproc)"
	echo "device=$BENCH_DEV"
	echo "ip=$BENCH_IP"
	echo "mode=$BENCH_MODE"
	echo "rounds=$BENCH_ROUNDS"
	echo "runtime=$BENCH_RUNTIME"
	echo "our_fio=$(fio --version)"
	[[ $OLD_FIO == - ]] || echo "reference_fio=$("$OLD_FIO" --version)"
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
} >"$BENCH_RAW/env"

# shellcheck source=in-vm/lib.sh
. "$here/in-vm/lib.sh"
if [[ ${BENCH_AOF:-0} == 1 ]]; then
	# shellcheck source=in-vm/aof.sh
	. "$here/in-vm/aof.sh"
	aof_runs
elif [[ ${BENCH_COUNTS:-0} == 1 ]]; then
	# shellcheck source=in-vm/counts.sh
	. "$here/in-vm/counts.sh"
	counts_runs
elif [[ ${BENCH_CONNECT:-0} == 1 ]]; then
	# shellcheck source=in-vm/connect.sh
	. "$here/in-vm/connect.sh"
	connect_runs
elif [[ ${BENCH_SCALING:-0} == 1 ]]; then
	# shellcheck source=in-vm/scaling.sh
	. "$here/in-vm/scaling.sh"
	scaling_runs
else
	# shellcheck source=in-vm/matrix.sh
	. "$here/in-vm/matrix.sh"
	matrix_runs
fi
say "done"
exit 0
