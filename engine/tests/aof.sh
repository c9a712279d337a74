# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash disable=SC2154 # case_dir, ip, port: set by lib.sh and in-vm.sh, which source this file
# engine/tests/aof.sh -- the append-only log (librpma_aof_client and
# librpma_aof_server, aof_mode=apm|gpspm): appends written and read back
# (verify=), the server's end-of-run check of its tail pointer, and the
# refusals of a client and a server that do not match. Sourced by in-vm.sh
# after lib.sh and errors.sh.

# aof_append NAME MODE SERVER_ARGS CLIENT_ARGS BYTES: a run that must end
# well on both sides, the server saying its tail pointer covers the BYTES
# the client appended
aof_append() {
	local name=$1 mode=$2 bytes=$5
	run_pair "$name" aof "--aof_mode=$mode $3" "--aof_mode=$mode $4" || return
	has server "log checked: its tail pointer covers the $bytes bytes the client appended"
	expect $? "$name-log-checked" "the server did not report its tail pointer at $bytes bytes"
}

# aof_refused NAME KIND_SERVER SERVER_ARGS KIND_CLIENT CLIENT_ARGS CLIENT_SAYS
# SERVER_SAYS: both fail within seconds, each saying why
aof_refused() {
	local name=$1 crc src
	begin_case "$name"
	# shellcheck disable=SC2086 # the argument lists are word lists
	fio_server "$2" --filename=malloc --size=1m $3
	server_listens 30
	# shellcheck disable=SC2086
	fio_client "$4" --rw=write --bs=4k --size=256k --connect_timeout=10 $5
	crc=$?
	wait_exit "$SERVER_PID" 30
	src=$?
	((crc && src && src != 124)) && has client "$6" && has server "$7"
	expect $? "$name" "client $crc, server $src (124: still running), or a message missing"
}

# aof_bad_job NAME CLIENT_ARGS MESSAGE: the client refuses the job before
# connecting
aof_bad_job() {
	local name=$1 crc
	begin_case "$name"
	# shellcheck disable=SC2086
	fio_client aof --size=256k --connect_timeout=3 $2
	crc=$?
	((crc)) && has client "$3" && ! has client "waiting for the server"
	expect $? "$name" "not refused before connecting, or no message"
}

aof_cases() {
	local mode
	for mode in apm gpspm; do
		aof_append "aof-$mode-dram-qd16" "$mode" "--filename=malloc --size=2m --iodepth=16" \
			"--rw=write --bs=4k --iodepth=16 --size=1m --verify=crc32c" 1048576
		aof_append "aof-$mode-dram-sync" "$mode" "--filename=malloc --size=1m" \
			"--rw=write --bs=512 --sync=1 --size=64k --verify=crc32c" 65536
		if [[ -z "${RPMA_TEST_DEVDAX:-}" ]]; then
			skip "aof-$mode-devdax" "no Device DAX (tests/vm/run --nvdimm)"
			continue
		fi
		# records of varying sizes, on persistent memory
		aof_append "aof-$mode-devdax" "$mode" \
			"--filename=$RPMA_TEST_DEVDAX --direct_write_to_pmem=1 --size=8m --iodepth=16" \
			"--rw=write --bsrange=512-8k --iodepth=16 --size=4m --verify=crc32c" 4194304
	done
	aof_refused aof-mode-mismatch aof --aof_mode=gpspm aof --aof_mode=apm \
		"serves aof_mode=gpspm, this job has aof_mode=apm" \
		"the client asks for aof_mode=apm, this server serves aof_mode=gpspm"
	aof_refused aof-server-apm-client aof "" apm "" \
		"is an append-only-log server (librpma_aof_server, aof_mode=apm)" \
		"the client is not librpma_aof_client"
	aof_refused aof-client-gpspm-server gpspm "" aof "" \
		"is not an append-only-log server: librpma_aof_client needs librpma_aof_server" \
		"the client disconnected before ending the run"
	aof_bad_job aof-randwrite "--rw=randwrite --bs=4k" "an append-only log is appended to"
	aof_bad_job aof-time-based "--rw=write --bs=4k --time_based --runtime=5" \
		"the log is appended to once over"
}
