#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# engine/tests/in-vm.sh [quick|full|fio|interop|platform|helgrind|drd|iwarp] -- runs the engine tests inside the VM
# that engine/tests/engines boots; the host judges them (evaluate.py).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# the source tree, which the cases read (examples' job files, suppressions)
TOP_SRCDIR=$(cd "$here/../.." && pwd)
readonly TOP_SRCDIR
# FIO: the fio binary the cases run (default: the fio on PATH); it becomes
# "fio" on PATH, so that every case and helper calls it
if [[ -n "${FIO:-}" ]]; then
	fio_bin=$(mktemp -d)
	ln -s "$FIO" "$fio_bin/fio"
	export PATH=$fio_bin:$PATH
fi
echo "in-vm.sh: $(command -v fio) is $(fio --version)"
echo "in-vm.sh: RDMA links: $(rdma link show 2>/dev/null | awk '{ printf "%s%s (netdev %s)", n++ ? ", " : "", $2, $NF }')"
# shellcheck source=lib.sh
. "$here/lib.sh"
# shellcheck source=matrix.sh
. "$here/matrix.sh"
# shellcheck source=errors.sh
. "$here/errors.sh"
# shellcheck source=native.sh
. "$here/native.sh"
# shellcheck source=interop.sh
. "$here/interop.sh"
# shellcheck source=safety.sh
. "$here/safety.sh"
# shellcheck source=many.sh
. "$here/many.sh"
# shellcheck source=aof.sh
. "$here/aof.sh"
# shellcheck source=hostile.sh
. "$here/hostile.sh"
# shellcheck source=races.sh
. "$here/races.sh"
# shellcheck source=connections.sh
. "$here/connections.sh"

mode=${1:-quick}
# ENGINE_CASES="CASE ARGS; CASE ARGS...": only these cases (the functions
# of matrix.sh and errors.sh, e.g. "dead_client apm; pair_case apm write
# 4k 1 1 1 1"), for working on one
if [[ -n "${ENGINE_CASES:-}" ]]; then
	IFS=';' read -ra picked <<<"$ENGINE_CASES"
	for c in "${picked[@]}"; do
		eval "$c"
	done
	exit 0
fi
case $mode in
quick) matrix_quick ;;
full) matrix_full ;;
fio)	# check-fio-versions-quick, another fio than the host's: the cases
	# that go through fio's side of the engines (job options, I/O units,
	# fsync, thread=0, bare-name loading, reports, a job's errors); the
	# library's, the kernel's and the server's own cases ran with make check
	matrix_quick
	extras
	examples_case apm json+
	examples_case gpspm normal,json
	examples_case aof normal,json
	fio_error_cases
	exit 0
	;;
interop)	# make check-interop: only the cases against the old engines
	if [[ -z "${OLD_FIO:-}" ]]; then
		echo "in-vm.sh: interop needs OLD_FIO (bench/prepare-reference)" >&2
		exit 1
	fi
	interop_cases
	exit 0
	;;
platform)	# the cases that depend on the kernel: FS DAX with or without ODP
	fsdax_cases
	fsdax_without_odp
	exit 0
	;;
iwarp)	# make check-iwarp, on Soft-iWARP (tests/vm/run --transport siw):
	# the quick suite's cases of the engines' data paths, methods, job
	# files, clients=N, persistent memory, append-only log and errors
	matrix_quick
	extras
	examples_case apm json+
	examples_case gpspm normal,json
	examples_case aof normal,json
	native_ops_case
	pmem_cases
	aof_cases
	error_cases
	many_cases
	exit 0
	;;
connections)	# make check-connections: 1 to 256 connections on one server job
	connections_cases full
	exit 0
	;;
helgrind | drd)	# make check-helgrind, check-drd: the multi-job runs only
	race_cases "$mode"
	exit 0
	;;
*) echo "usage: $0 [quick|full|fio|interop|platform|helgrind|drd|iwarp|connections]" >&2; exit 2 ;;
esac
extras
examples_case apm json+
examples_case gpspm normal,json
examples_case aof normal,json
distributed_case
pmem_cases
native_ops_case
native_ops_window
fsdax_cases
error_cases
safety_cases
many_cases
connections_cases quick
hostile_cases
aof_cases
if [[ -n "${OLD_FIO:-}" ]]; then
	interop_cases
else
	skip interop "no OLD_FIO: the cases against the old engines run with make check-interop"
fi
race_cases "$mode"
# last: after the link's down/up cycle rxe takes no new connection for a
# minute or more (errors.sh)
link_cases "$mode"
