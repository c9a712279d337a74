# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# bench/in-vm/lib.sh -- what the modes of bench/in-vm.sh share; sourced by
# it. Every file reads the run's settings from the environment (BENCH_*,
# read-only once in-vm.sh has set them) and keeps its own state.

say() { echo "bench: $*"; }

# wait_listen PORT N SECONDS: true once N RDMA-CM ids listen on PORT..PORT+N-1
wait_listen() {
	local end=$((SECONDS + $3)) n
	while ((SECONDS < end)); do
		n=$(rdma res show cm_id 2>/dev/null | grep -c "state LISTEN.*src-addr [^ ]*:\($(seq -s '\|' "$1" $(($1 + $2 - 1)))\) ")
		((n >= $2)) && return 0
		sleep 0.2
	done
	return 1
}

# shellcheck source=../../engine/tests/wait.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../engine/tests/wait.sh"

# sent_packets: what the device has sent so far (client and server both
# use it, so that is every packet of a pair)
sent_packets() {
	rdma statistic show link "$BENCH_DEV/1" 2>/dev/null |
		awk '{ for (i = 1; i < NF; i++) if ($i == "sent_pkts") print $(i + 1) }'
}

# impl_fio IMPL KIND CMD LIB SE CE: for ours, base (the engines, and
# librpma if given, of an earlier build: before/after) or ref, sets the
# caller's variables named CMD (an array: the fio to run), LIB (the folder
# of its librpma), SE and CE (arrays: the server's and the client's engine)
# shellcheck disable=SC2034 # shellcheck 0.9 takes a nameref's assignment for an unused variable
impl_fio() {
	local impl=$1 kind=$2 edir=$ENGINE_DIR
	local -n cmd_=$3 lib_=$4 se_=$5 ce_=$6
	if [[ $impl == ref ]]; then
		cmd_=("$OLD_FIO") lib_=$OLD_RPMA_LIB
		se_=(--ioengine="librpma_${kind}_server")
		ce_=(--ioengine="librpma_${kind}_client")
		return
	fi
	# one and one-none: ours, one server job taking every connection
	# (clients=N), the second with isolation=none
	cmd_=(fio) lib_=$RPMA_LIB_DIR
	[[ $impl == base ]] && edir=$BENCH_BASE_ENGINE_DIR lib_=${BENCH_BASE_RPMA_LIB_DIR:-$RPMA_LIB_DIR}
	se_=(--ioengine="external:$edir/librpma_${kind}_server.so")
	ce_=(--ioengine="external:$edir/librpma_${kind}_client.so")
}
