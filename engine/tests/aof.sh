# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# engine/tests/aof.sh -- the append-only log (librpma_aof_client and
# librpma_aof_server, aof_mode=apm|gpspm): appends written and read back
# (verify=), the server's end-of-run check of its tail pointer, and the
# refusals of a client and a server that do not match, native_ops= per job.
# Each case states its rules (expect, lib.sh), rules.py judges them on the
# host. Sourced by in-vm.sh after lib.sh and native.sh.

# aof_append NAME MODE SERVER_ARGS CLIENT_ARGS BYTES: a run that must end
# well on both sides, the server saying its tail pointer covers the BYTES
# the client appended
aof_append() {
	local name=$1 mode=$2 bytes=$5
	run_pair "$name" aof "--aof_mode=$mode $3" "--aof_mode=$mode $4" || return
	expect "$name-log-checked" \
		says server "log checked: its tail pointer covers the $bytes bytes the client appended"
}

# aof_refused NAME KIND_SERVER SERVER_ARGS KIND_CLIENT CLIENT_ARGS CLIENT_SAYS
# SERVER_SAYS: both fail within seconds, each saying why
aof_refused() {
	local name=$1
	# shellcheck disable=SC2086 # the argument lists are word lists
	served_case "$name" "$2" --filename=malloc --size=1m $3
	# shellcheck disable=SC2086
	fio_client "$4" --rw=write --bs=4k --size=256k --connect_timeout=10 $5
	waited server "$(pid_of server)" 30
	statuses "$name" client=nonzero server=failed
	expect "$name" says client "$6"
	expect "$name" says server "$7"
}

# aof_bad_job NAME CLIENT_ARGS MESSAGE: the client refuses the job before
# connecting
aof_bad_job() {
	local name=$1
	begin_case "$name"
	# shellcheck disable=SC2086
	fio_client aof --size=256k --connect_timeout=3 $2
	expect "$name" status client nonzero
	expect "$name" says client "$3"
	expect "$name" never-says client "waiting for the server"
}

# aof_writes MODE: appends of aof_mode=MODE written and read back: on DRAM at
# iodepth 16 and synchronously, and records of varying sizes on Device DAX
aof_writes() {
	local mode=$1
	aof_append "aof-$mode-dram-qd16" "$mode" "--filename=malloc --size=2m --iodepth=16" \
		"--rw=write --bs=4k --iodepth=16 --size=1m --verify=crc32c" 1048576
	aof_append "aof-$mode-dram-sync" "$mode" "--filename=malloc --size=1m" \
		"--rw=write --bs=512 --sync=1 --size=64k --verify=crc32c" 65536
	needs_devdax "aof-$mode-devdax" || return
	aof_append "aof-$mode-devdax" "$mode" \
		"--filename=$RPMA_TEST_DEVDAX --direct_write_to_pmem=1 --size=8m --iodepth=16" \
		"--rw=write --bsrange=512-8k --iodepth=16 --size=4m --verify=crc32c" 4194304
}

# aof_syncs: fio's sync options among the appends (docs/engines.md lists
# them): a sync adds no flush of its own, so none steps back in the log,
# which an aof_mode=gpspm server would refuse; aof_mode=apm once beside
aof_syncs() {
	local mode opts
	for mode in gpspm apm; do
		for opts in --end_fsync=1 --fsync=4 --fdatasync=4 --fsync_on_close=1 \
			"--sync=1 --fsync=4"; do
			[[ $mode == gpspm || $opts == --fsync=4 ]] || continue
			aof_append "aof-$mode-$(sed 's/--//g; s/=//g; s/ /-/g' <<<"$opts")" "$mode" \
				"--filename=malloc --size=1m" \
				"--rw=write --bs=4k --size=64k $opts --verify=crc32c" 65536
		done
	done
}

# aof_new_log: a log that a run left on Device DAX, appended to anew: the
# server zeroes its tail pointer before it accepts the appending client
# (else a power cut before the first group's update would leave the old
# pointer covering new records), says so, and checks the new run's; a
# reading run after it keeps the log and its pointer
aof_new_log() {
	local name=aof-new-log server
	needs_devdax "$name" || return
	server="--filename=$RPMA_TEST_DEVDAX --direct_write_to_pmem=1 --size=2m"
	aof_append "$name-first" apm "$server" "--rw=write --bs=4k --size=128k" 131072 || return
	aof_append "$name" apm "$server" "--rw=write --bs=4k --size=64k --verify=crc32c" 65536 ||
		return
	# the server saw the earlier run's pointer
	expect "$name-starts-anew" says server \
		"an appending client, which starts the log anew (its tail pointer is at 131072 bytes)"
	run_pair "$name-read" aof "--aof_mode=apm $server" "--aof_mode=apm --rw=read --bs=4k --size=64k" ||
		return
	expect "$name-read-keeps" says server "the client appended nothing; the log holds 65536 bytes"
	expect "$name-read-keeps" never-says server "starts anew"
}

# aof_refusal_keeps_log: a log on Device DAX, then an appending client that
# refuses its server (aof_mode=apm on PMem without direct_write_to_pmem=1)
# after the accept: the log must stay as it was, which a reading run then
# finds
aof_refusal_keeps_log() {
	local name=aof-refusal-keeps-log server
	needs_devdax "$name" || return
	server="--filename=$RPMA_TEST_DEVDAX --size=2m"
	aof_append "$name-first" apm "$server --direct_write_to_pmem=1" \
		"--rw=write --bs=4k --size=128k" 131072 || return
	# shellcheck disable=SC2086 # a word list
	served_case "$name-refused" aof --aof_mode=apm $server
	fio_client aof --aof_mode=apm --rw=write --bs=4k --size=64k --connect_timeout=10
	waited server "$(pid_of server)" 30
	statuses "$name-refused" client=nonzero server=failed
	expect "$name-refused" says client "direct_write_to_pmem"
	run_pair "$name-read" aof "--aof_mode=apm $server --direct_write_to_pmem=1" \
		"--aof_mode=apm --rw=read --bs=4k --size=128k" || return
	# else the refusing client's connection changed the log's pointer
	expect "$name" says server "the client appended nothing; the log holds 131072 bytes"
}

# aof_fresh_dram_read: a reading client of a server fresh on DRAM (a small
# log, from the allocator's reused memory) finds an empty log (its reads
# paced: a run of a few milliseconds can end before the server has taken
# the connection's establishment)
aof_fresh_dram_read() {
	local mode
	for mode in apm gpspm; do
		run_pair "aof-$mode-fresh-dram-read" aof "--aof_mode=$mode --filename=malloc --size=64k" \
			"--aof_mode=$mode --rw=read --bs=4k --size=60k --rate_iops=100" || continue
		expect "aof-$mode-fresh-dram-read-empty" \
			says server "the client appended nothing; the log holds 0 bytes"
	done
}

# aof_io_size_wraps: io_size= past the log without size= (known only once
# connected, create_serialize=0): refused before the first record, the
# server never checks a log
aof_io_size_wraps() {
	local name=aof-io-size-past-log
	served_case "$name" aof --filename=malloc --size=1m
	fio_client aof --rw=write --bs=4k --io_size=2m --create_serialize=0 --connect_timeout=10
	wait_exit "$(pid_of server)" 30
	expect "$name" status client nonzero
	expect "$name" says client "io_size=2097152: more than the"
	expect "$name" never-says server "log checked"
}

# aof_moved_appends: each job option that would place a record elsewhere
# than right after the last is refused before connecting
aof_moved_appends() {
	local says="an append-only log is appended to from its beginning"
	aof_bad_job aof-offset-percent "--rw=write --bs=4k --offset=50%" "offset=: $says"
	aof_bad_job aof-offset-increment "--rw=write --bs=4k --numjobs=2 --offset_increment=64k" \
		"offset_increment=: $says"
	aof_bad_job aof-rw-skip "--rw=write:4k --bs=4k" "rw=write:<skip>: $says"
	aof_bad_job aof-zonemode-strided \
		"--rw=write --bs=4k --zonemode=strided --zonesize=64k --zonerange=128k --zoneskip=64k" \
		"zonemode=: $says"
	aof_bad_job aof-nrfiles "--rw=write --bs=4k --nrfiles=2" "nrfiles=: $says"
}

aof_cases() {
	aof_writes apm
	aof_writes gpspm
	aof_syncs
	aof_new_log
	aof_refused aof-mode-mismatch aof --aof_mode=gpspm aof --aof_mode=apm \
		"serves aof_mode=gpspm, this job has aof_mode=apm" \
		"the client asks for aof_mode=apm, this server serves aof_mode=gpspm"
	aof_refused aof-server-apm-client aof "" apm "" \
		"is an append-only-log server (librpma_aof_server, aof_mode=apm)" \
		"the client is not librpma_aof_client"
	aof_refused aof-client-gpspm-server gpspm "" aof "" \
		"is not an append-only-log server: librpma_aof_client needs librpma_aof_server" \
		"the client disconnected before ending the run"
	aof_native_case
	aof_bad_job aof-randwrite "--rw=randwrite --bs=4k" "an append-only log is appended to"
	aof_bad_job aof-time-based "--rw=write --bs=4k --time_based --runtime=5" \
		"the log is appended to once over"
	aof_moved_appends
	aof_io_size_wraps
	aof_refusal_keeps_log
	aof_fresh_dram_read
	aof_replica_cases
}

# aof_native_case: native_ops= per job with aof_mode=apm on Device DAX: one
# client fio (thread=1), job 1 native_ops=all appending 4 KiB records, job 2
# native_ops=none appending 8 KiB ones, iodepth 1 (one pointer update per
# append), each then read back. Both logs checked by the server; each job's
# line as the platform allows (native.sh, expected_line); and where the
# native verbs are possible, rxe itself as the witness (kprobes): job 1's
# 256 record flushes of 4 KiB and 256 pointer flushes of 8 bytes, and 256
# atomic writes whose values are job 1's tails (multiples of 4096 up to
# 1 MiB); nothing of job 2's (8 KiB flushes, or 8 KiB-multiple tails alone).
aof_native_case() {
	local name=aof-native-ops-per-job crc src job line probes=no
	needs_devdax "$name" || return
	begin_case "$name"
	if native_possible 45 && native_possible 44; then
		if flush_probe start 2>"$(case_dir)/probe.log" &&
			kernel_probe start atomic rxe_mr_do_atomic_write 'value=%dx:u64' \
				2>>"$(case_dir)/probe.log"; then
			probes=yes
		else
			echo "  $name: no kprobes on rxe ($(cat "$(case_dir)/probe.log"))"
		fi
	fi
	# isolation=none: native flushes and atomic writes pass no window
	fio_server aof --aof_mode=apm --filename="$RPMA_TEST_DEVDAX" --direct_write_to_pmem=1 \
		--numjobs=2 --size=2m --isolation=none
	native_ops_client aof_client aof_mode=apm
	crc=$?
	wait_exit "$(pid_of server)" 30
	src=$?
	if [[ $probes == yes ]]; then
		flush_probe stop
		kernel_probe stop atomic
		flush_probe remove
		kernel_probe remove atomic
	fi
	record_pair "$name" "$crc" "$src" || return
	# both server jobs report their pointer at 1 MiB
	expect "$name-logs-checked" \
		count server.log 2 2 contains "log checked: its tail pointer covers the 1048576 bytes"
	for job in 1:all 2:none; do
		line=$(ENGINE_NAME=librpma_aof_client expected_line "${job%%:*}" "${job#*:}")
		expect "$name-job${job%%:*}-${job#*:}-says" count client.log 1 1 is "$line"
	done
	if ! native_possible 45 || ! native_possible 44; then
		skip "$name-kernel-witness" "no native flush and atomic write here (kernel $(uname -r), rdma-core $(dpkg-query -W -f='${Version}' libibverbs1 2>/dev/null))"
	elif [[ $probes != yes ]]; then
		skip "$name-kernel-witness" "no kprobe events on rxe (see probe.log)"
	else
		# job 1's 256 flushes of its records and 256 of its pointer, none
		# of job 2's records
		expect "$name-kernel-witness" count flush.trace 256 - ends len=4096
		expect "$name-kernel-witness" count flush.trace 256 - ends len=8
		expect "$name-kernel-witness" count flush.trace 0 0 ends len=8192
		expect "$name-kernel-witness" count atomic.trace 256 - contains value=
		# a tail that is not a multiple of 4096, or past 1 MiB: not job 1's
		# (0 is: the start of its log, aof_client.cc)
		expect "$name-kernel-witness" tails atomic.trace 4096 1048576
	fi
}

# Replicas (docs/engines.md, "Replicas"): one client appending to two or
# three librpma_aof_server fios, each on a port of its own on this guest
# (server1.. on the case's port and the next ones).

# aof_servers MODE N SERVER_ARGS: N servers of aof_mode=MODE, server1 to
# serverN; their ports in aof_ports (a list for port=), their pids in
# aof_pids; false if one did not listen within 60 s
aof_servers() {
	local mode=$1 n=$2 i port end
	aof_ports='' aof_pids=()
	for ((i = 1; i <= n; i++)); do
		port=$(($(case_port) + i - 1))
		# shellcheck disable=SC2086 # a word list
		fio_server aof --aof_mode="$mode" --port="$port" $3
		aof_pids+=("$(pid_of server)")
		server_listens 60 || return 1
		moved server "server$i"
		aof_ports+=${aof_ports:+,}$port
	done
}

# aof_targets N: serverip= naming this guest N times
aof_targets() {
	local ips=$RPMA_TEST_IP i
	for ((i = 2; i <= $1; i++)); do
		ips+=,$RPMA_TEST_IP
	done
	echo "$ips"
}

# aof_servers_end N SECONDS: waits for server1..N (the facts serverI.status)
aof_servers_end() {
	local i
	for ((i = 1; i <= $1; i++)); do
		waited "server$i" "${aof_pids[i - 1]}" "$2"
	done
}

# aof_replicated NAME MODE N CLIENT_ARGS BYTES: a run over N replicas that
# must end well everywhere, each server saying its tail pointer covers the
# BYTES the client appended, the client giving each replica's tail
aof_replicated() {
	local name=$1 mode=$2 n=$3 bytes=$5 i
	begin_case "$name"
	aof_servers "$mode" "$n" "--filename=malloc --size=2m --iodepth=16" ||
		fail "$name" "a server did not listen within 60 s" || return
	# shellcheck disable=SC2086 # a word list
	fio_client aof --aof_mode="$mode" --serverip="$(aof_targets "$n")" --port="$aof_ports" $4
	aof_servers_end "$n" 30
	expect "$name" status client ok
	for ((i = 1; i <= n; i++)); do
		expect "$name" status "server$i" ok
		expect "$name" says "server$i" \
			"log checked: its tail pointer covers the $bytes bytes the client appended"
		expect "$name" says client \
			"replica $i of $n ($RPMA_TEST_IP:$(($(case_port) + i - 1))): tail at $bytes bytes"
	done
	expect "$name" never-says client "dropped"
}

# aof_client_connected SECONDS: true once the client said, once connected
# to every replica, what its flushes are made of
aof_client_connected() {
	local end=$((SECONDS + $1))
	until grep -qE "flush |persisted by the server" "$(case_dir)/client.log" 2>/dev/null; do
		((SECONDS < end)) || return 1
		sleep 0.2
	done
}

# aof_replicas_lost MODE KILLED: three replicas at write_quorum=2, the last
# KILLED servers killed (-9) a second into a paced run (10 s). One killed: the
# client goes on, says which replica dropped and at which log offset,
# and the two left check the whole log. Two killed: the client fails,
# naming the appends it could not acknowledge; the server left fails too
# (no end-of-run notice).
aof_replicas_lost() {
	local mode=$1 lost=$2 name="aof-$1-quorum-lost-$2" i client last
	begin_case "$name"
	aof_servers "$mode" 3 "--filename=malloc --size=4m --iodepth=4" ||
		fail "$name" "a server did not listen within 60 s" || return
	# 512 appends at 50 a second: about 10 s
	fio_start client aof --aof_mode="$mode" --serverip="$(aof_targets 3)" --port="$aof_ports" \
		--write_quorum=2 --rw=write --bs=4k --iodepth=4 --size=2m --rate_iops=,50 \
		--verify=crc32c
	client=$(pid_of client)
	last=$(($(case_port) + 2))
	if ! aof_client_connected 60; then
		kill -9 "$client" "${aof_pids[@]}" 2>/dev/null
		fail "$name" "the client did not connect within 60 s"
		return
	fi
	sleep 1
	# all at once: killed() waits for each to end, which takes seconds
	kill -9 "${aof_pids[@]:3-lost}"
	for ((i = 3; i > 3 - lost; i--)); do
		killed "server$i" "${aof_pids[i - 1]}"
	done
	waited client "$client" 120
	for ((i = 1; i <= 3 - lost; i++)); do
		waited "server$i" "${aof_pids[i - 1]}" 30
	done
	expect "$name" says client "replica 3 of 3 ($RPMA_TEST_IP:$last) dropped at log offset"
	if ((lost == 1)); then
		expect "$name" status client ok
		for i in 1 2; do
			expect "$name" status "server$i" ok
			expect "$name" says "server$i" \
				"log checked: its tail pointer covers the 2097152 bytes the client appended"
			expect "$name" says client \
				"replica $i of 3 ($RPMA_TEST_IP:$(($(case_port) + i - 1))): tail at 2097152 bytes"
		done
		expect "$name" says client "replica 3 of 3 ($RPMA_TEST_IP:$last): lost at"
	else
		expect "$name" status client failed
		expect "$name" says client "the write quorum is lost" "could not be acknowledged"
		expect "$name" status server1 failed
		expect "$name" never-says server1 "log checked"
	fi
}

# aof_replica_refusals: replica lists that do not add up, refused before
# connecting, each saying why (the quick suite: one of each kind)
aof_replica_refusals() {
	local two three name=apm-replicas
	two=$(aof_targets 2) three=$(aof_targets 3)
	aof_bad_job aof-quorum-zero "--rw=write --bs=4k --serverip=$two --port=7300,7301 --write_quorum=0" \
		"write_quorum=0: an append is acknowledged by 1 to 2 replicas (all: every one)"
	aof_bad_job aof-replica-ports "--rw=write --bs=4k --serverip=$three --port=7300,7301" \
		"port=7300,7301: 2 ports for 3 servers (one port for all, or one for each)"
	begin_case "$name"
	fio_client apm --rw=write --bs=4k --size=256k --connect_timeout=3 --serverip="$two"
	expect "$name" status client nonzero
	expect "$name" says client "serverip=$two: 2 servers: only librpma_aof_client appends to replicas"
	[[ ${mode:-quick} == full ]] || return 0
	aof_bad_job aof-quorum-past-replicas "--rw=write --bs=4k --serverip=$two --port=7300,7301 --write_quorum=3" \
		"write_quorum=3: an append is acknowledged by 1 to 2 replicas (all: every one)"
	aof_bad_job aof-quorum-not-number "--rw=write --bs=4k --serverip=$two --port=7300,7301 --write_quorum=most" \
		"write_quorum=most: an append is acknowledged by 1 to 2 replicas (all: every one)"
	aof_bad_job aof-replicas-four "--rw=write --bs=4k --serverip=$three,$RPMA_TEST_IP" \
		"serverip=$three,$RPMA_TEST_IP: 4 servers: a log has 1 to 3 replicas"
	aof_bad_job aof-replica-twice "--rw=write --bs=4k --serverip=$two --port=7300" \
		"$RPMA_TEST_IP:7300 is named twice: each replica is a log of its own"
	aof_bad_job aof-replica-empty "--rw=write --bs=4k --serverip=$RPMA_TEST_IP, --port=7300" \
		"serverip=$RPMA_TEST_IP,: an empty address"
}

# aof_replica_cases: the quick suite's (ENGINE_TESTS=quick), and the rest
# in the full matrix
aof_replica_cases() {
	aof_replica_refusals
	aof_replicated aof-gpspm-replicas-3 gpspm 3 "--rw=write --bs=4k --iodepth=16 --size=1m --verify=crc32c" 1048576
	aof_replicas_lost apm 1
	aof_replicas_lost gpspm 2
	[[ ${mode:-quick} == full ]] || return 0
	aof_replicated aof-apm-replicas-2 apm 2 "--rw=write --bs=4k --iodepth=16 --size=1m --verify=crc32c" 1048576
	aof_replicated aof-gpspm-replicas-2 gpspm 2 "--rw=write --bs=4k --iodepth=16 --size=1m --verify=crc32c" 1048576
	aof_replicated aof-apm-replicas-3 apm 3 "--rw=write --bs=4k --iodepth=16 --size=1m --verify=crc32c" 1048576
	aof_replicated aof-apm-replicas-3-quorum-2-sync apm 3 "--rw=write --bs=512 --sync=1 --size=64k --write_quorum=2 --verify=crc32c" 65536
	aof_replicated aof-gpspm-replicas-3-sync gpspm 3 "--rw=write --bs=512 --sync=1 --size=64k --verify=crc32c" 65536
	aof_replicas_lost gpspm 1
	aof_replicas_lost apm 2
}
