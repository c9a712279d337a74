#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# engine/tests/in-vm.sh [quick|full|interop|platform] -- runs the engine tests inside the VM
# that engine/tests/engines boots; the host judges them (evaluate.py).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# FIO: the fio binary the cases run (default: the fio on PATH); it becomes
# "fio" on PATH, so that every case and helper calls it
if [[ -n "${FIO:-}" ]]; then
	fio_bin=$(mktemp -d)
	ln -s "$FIO" "$fio_bin/fio"
	export PATH=$fio_bin:$PATH
fi
echo "in-vm.sh: $(command -v fio) is $(fio --version)"
# shellcheck source=lib.sh
. "$here/lib.sh"
# shellcheck source=matrix.sh
. "$here/matrix.sh"
# shellcheck source=errors.sh
. "$here/errors.sh"
# shellcheck source=interop.sh
. "$here/interop.sh"

mode=${1:-quick}
case $mode in
quick) matrix_quick ;;
full) matrix_full ;;
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
*) echo "usage: $0 [quick|full|interop|platform]" >&2; exit 2 ;;
esac
extras
examples_case apm
examples_case gpspm
distributed_case
pmem_cases
fsdax_cases
error_cases
if [[ -n "${OLD_FIO:-}" ]]; then
	interop_cases
else
	echo "  (no OLD_FIO: skipping the cases against the old engines)"
fi
link_cases "$mode"
