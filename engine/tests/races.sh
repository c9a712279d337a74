# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# engine/tests/races.sh -- the engines' jobs of one fio run at once
# (thread=1, numjobs=8: fio starts and ends them together) under valgrind's
# race detectors, helgrind and drd: what the jobs share is rpma's and the
# provider libraries' process-wide state (docs/thread-safety.md, "What the
# fio engines do"). fio's own races are suppressed (races.supp says which
# and why); any other report fails the case (rules.py judges it on the
# host: valgrind-clean). Sourced by in-vm.sh after lib.sh.

# race_case KIND TOOL [JOBS]: a server fio and a client fio of KIND, JOBS
# (8) jobs each, both under valgrind --tool=TOOL. Each job writes a little;
# the case passes when both end well and valgrind reports nothing in
# either. Valgrind makes everything 50-100 times slower in the emulated VM:
# the waits are scaled.
race_case() {
	local kind=$1 tool=$2 jobs=${3:-8} name crc src listening
	name=$kind-races-$tool-nj$jobs
	# valgrind runs no program that the sanitizers' runtime is preloaded
	# into: it wrote no summary at all (the sanitizers' suite, 2026-12-07)
	if [[ -n "${FIO_PRELOAD:-}" ]]; then
		skip "$name" "valgrind cannot run fio beside the sanitizers' runtime"
		return
	fi
	begin_case "$name"
	# fio's own races, and the libraries' that the integration tests
	# know (tests/integration/threads.supp: libibverbs' fork flag, rxe)
	local -a vg=(valgrind --tool="$tool" --num-callers=30
		--suppressions="$TOP_SRCDIR/engine/tests/races.supp"
		--suppressions="$TOP_SRCDIR/tests/integration/threads.supp")
	[[ $tool == helgrind ]] && vg+=(--history-level=approx)
	local WAIT_SCALE=$((${WAIT_SCALE:-1} * 10))
	# FIO is lib.sh's, read-only: fio_start puts the wrapper before it
	# shellcheck disable=SC2034 # fio_start (lib.sh) reads it
	local -a fio_wrapper=("${vg[@]}" --log-file="$(case_dir)/server.valgrind")
	# a client's handshake is as slow: the server's default bound on it
	# (handshake_timeout=10) would give up our own clients under drd.
	# Valgrind runs one thread at a time: GPSPM server jobs spinning on
	# their completion queues take turns with the one that has a request,
	# and under drd the clients saw no completion for 30 s (their bound)
	local -a poll=()
	[[ $kind == gpspm ]] && poll=(--busy_wait_polling=0)
	fio_server "$kind" --numjobs="$jobs" --filename=malloc --size=256k --iodepth=4 \
		--handshake_timeout=$((60 * WAIT_SCALE)) "${poll[@]}"
	# every server job listens (each has a port of its own) before any
	# client job tries: under valgrind a server job starts slowly, and a
	# client gives up on a port nobody listens on after connect_timeout
	listening=0
	for ((i = 0; i < 60 * WAIT_SCALE && listening < jobs; i++)); do
		listening=$(cat "$(case_dir)/server.log" "$(case_dir)/server.json" 2>/dev/null |
			grep -cF "waiting for a client")
		sleep 1
	done
	# shellcheck disable=SC2034 # fio_start (lib.sh) reads it
	fio_wrapper=("${vg[@]}" --log-file="$(case_dir)/client.valgrind")
	# a server under drd on a busy host takes minutes to answer a request
	fio_client "$kind" --numjobs="$jobs" --rw=randwrite --bs=4k --iodepth=4 --size=256k \
		--connect_timeout=$((60 * WAIT_SCALE))
	crc=$?
	waited server "$(pid_of server)" 60
	src=$?
	echo "  $name: $listening of $jobs server jobs listened; exit status client $crc, server $src"
	statuses "$name" client=ok server=ok
	expect "$name" valgrind-clean "$tool" client server
}

# quick: APM with four jobs under helgrind (about 2 minutes in the VM);
# helgrind, drd (make check-helgrind, check-drd): both methods, eight jobs
race_cases() { # race_cases quick|full|helgrind|drd
	local kind tool
	case $1 in
	quick) race_case apm helgrind 4 ;;
	helgrind | drd) for kind in apm gpspm; do race_case "$kind" "$1"; done ;;
	full)
		for tool in helgrind drd; do
			for kind in apm gpspm; do race_case "$kind" "$tool"; done
		done
		;;
	esac
}
