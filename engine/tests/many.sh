# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# engine/tests/many.sh -- a server job with clients=N: one port, N
# connections, each to a region of its own (server.hh). Each case states
# its rules (expect, lib.sh), rules.py judges them on the host. Sourced by
# in-vm.sh after lib.sh and safety.sh (server_memory).

# many_case KIND BUSY: a server job with clients=4 serves one client fio of
# numjobs=4 and port_per_job=0, random writes read back (verify=crc32c):
# each job must find its own data, none another's
many_case() {
	local kind=$1 busy=$2
	run_pair "$kind-clients4-busy$busy" "$kind" \
		"--clients=4 --filename=malloc --size=2m --iodepth=4 --busy_wait_polling=$busy" \
		"--numjobs=4 --port_per_job=0 --rw=randwrite --bs=4k --iodepth=4 --size=2m --busy_wait_polling=$busy --verify=crc32c"
}

# many_lost_client KIND: of a server's two clients one is killed mid-run;
# the other ends its run with no error, the server names the lost one and
# fails
many_lost_client() {
	local kind=$1 name=$1-clients2-one-killed
	begin_case "$name"
	fio_server "$kind" --clients=2 --filename=malloc --size=1m --iodepth=4 --busy_wait_polling=0
	fio_start client "$kind" --port_per_job=0 --rw=randwrite --bs=4k --iodepth=4 --size=1m \
		--time_based --runtime=60
	moved client victim
	fio_start client "$kind" --port_per_job=0 --rw=randwrite --bs=4k --iodepth=4 --size=1m \
		--time_based --runtime=15 --verify=crc32c
	await_connections 2 120 "$(pid_of client)"
	sleep 2
	killed victim "$(pid_of victim)"
	ended client:120 server:60
	summary
	# the other client ends well, the server fails naming the lost client
	# by its address
	statuses "$name" client=ok server=nonzero
	expect "$name" says server "of 2 at $RPMA_TEST_IP:$(case_port)" "(from $RPMA_TEST_IP:" "): " \
		"; the others go on"
	expect "$name" says server "1 of 2 clients of $RPMA_TEST_IP:$(case_port) failed"
}

# many_terminated KIND HOW: of a server's three clients one is killed; fio
# then ends the server job, by exitall= of a companion job in the same fio
# that ends once told to (HOW exitall), or by SIGTERM (HOW signal): the job
# must still fail, naming the lost client
many_terminated() {
	local kind=$1 how=$2 name=$1-clients3-one-killed-then-$2 src others companion=() i
	begin_case "$name"
	# after the kill (with a fixed 60 s the server ended clean before it
	# in the sanitizers' build at host load 12)
	[[ $how == exitall ]] && ending_when end.now
	fio_server "$kind" --clients=3 --filename=malloc --size=1m --iodepth=4 \
		--busy_wait_polling=0 "${companion[@]}"
	server_listens 30
	fio_start client "$kind" --port_per_job=0 --rw=randwrite --bs=4k --iodepth=4 --size=1m \
		--time_based --runtime=120
	moved client victim
	fio_start client "$kind" --numjobs=2 --port_per_job=0 --rw=randwrite --bs=4k --iodepth=4 \
		--size=1m --time_based --runtime=120
	others=$(pid_of client)
	await_connections 3 50
	killed victim "$(pid_of victim)"
	sleep 3
	if [[ $how == signal ]]; then
		kill -TERM "$(pid_of server)"
	else
		told end.now
	fi
	waited server "$(pid_of server)" 90
	src=$?
	# the others' jobs end with their server: a SIGTERM while their fio
	# writes its report would land inside the JSON, so only one that
	# still runs 10 s later gets it
	for ((i = 0; i < 50; i++)); do
		kill -0 "$others" 2>/dev/null || break
		sleep 0.2
	done
	kill "$others" 2>/dev/null
	wait_exit "$others" 30
	echo "  $name: server $src"
	expect "$name" status server failed
	# fio that a signal ended exits 129 whatever its jobs did: the job's
	# error in its report says
	expect "$name" job-failed server
	expect "$name" says server "disconnected before ending the run"
	expect "$name" says server "1 of 3 clients of $RPMA_TEST_IP:$(case_port) failed"
}

# many_late_client BUSY: a GPSPM server of clients=2, spinning or sleeping
# between requests (busy_wait_polling=BUSY), its first client spinning and
# sending all the time (iodepth=32, time_based, until the second came or
# 90 s); the second starts 5 s after the first connected and must be
# connected while the first still runs (the server accepts at least every
# EVENT_CHECK_INTERVAL turns of its loop, however busy; the rest of the
# wait is fio starting in the VM), then both end their runs with 0 errors
many_late_client() {
	local busy=$1 name=gpspm-clients2-late-client-busy$1 start end took='' companion=()
	served_case "$name" gpspm --clients=2 --filename=malloc --size=1m --iodepth=32 \
		--busy_wait_polling="$busy"
	# a first client of a fixed 45 s ended before a second one came in
	# the sanitizers' build at host load 12 (it came after 38 s)
	ending_when end.now
	fio_start client gpspm --port_per_job=0 --rw=randwrite --bs=4k --iodepth=32 --size=1m \
		--time_based --runtime=150 "${companion[@]}"
	moved client first
	await_connections 1 60
	sleep 5
	start=$SECONDS
	fio_start client gpspm --port_per_job=0 --rw=randwrite --bs=4k --iodepth=4 --size=1m \
		--time_based --runtime=5 --connect_timeout=60 --verify=crc32c --verify_backlog=64
	end=$((SECONDS + 90))
	until [[ -n $took ]] || ((SECONDS >= end)) || ! kill -0 "$(pid_of first)" 2>/dev/null; do
		(($(server_connections) == 2)) && took=$((SECONDS - start))
		sleep 0.2
	done
	told end.now
	waited second "$(pid_of client)" 120
	ended first:120 server:60
	if [[ -n $took ]]; then
		echo "  $name: the late client connected $took s after it started, the first one still running"
		fact late-client-connected-after "$took"
	else
		echo "  $name: the late client did not connect while the first one ran"
	fi
	statuses "$name" first=ok second=ok server=ok
	expect "$name" between late-client-connected-after 0 -
}

# many_memory: what a GPSPM server of clients=4 grows by, per connection,
# once its 4 clients are connected (server_memory, safety.sh): its share of
# the shared receive queue's messages (a 512-byte receive and a 16-byte
# send room per slot: 33 KiB at iodepth=64), the queues' rings and
# bookkeeping.
many_memory() {
	server_memory gpspm-clients4-server-memory 4 \
		"--clients=4 --filename=malloc --size=1m --iodepth=64 --busy_wait_polling=0" \
		"--port_per_job=0 --rw=write --bs=4k --iodepth=16 --size=1m --time_based --runtime=15 --busy_wait_polling=0"
}

# many_mixed KIND: a server of clients=4 serves two jobs of ours (one fio,
# numjobs=2, port_per_job=0) and two old clients (two fios of fio 3.33's
# engines, numjobs=1 each) at once: the pair is ours and the server, the
# old clients' statuses a verdict of their own. The old GPSPM client cannot
# read back: it writes a pattern of its own, which must then fill one of
# the four regions of the server (on the Device DAX).
many_mixed() {
	local kind=$1 name crc src i patterns=()
	name=interop-$kind-clients4-mixed
	begin_case "$name"
	local server_args=(--clients=4 --filename=malloc --size=2m --iodepth=4)
	local ours=(--numjobs=2 --port_per_job=0 --rw=randwrite --bs=4k --iodepth=4 --size=2m
		--verify=crc32c)
	local old=(--rw=write --bs=4k --iodepth=4 --size=2m)
	if [[ $kind == gpspm ]]; then
		if [[ -z "${RPMA_TEST_DEVDAX:-}" || -z "${PATTERN_CHECK:-}" ]]; then
			fail "$name" "no Device DAX (tests/vm/run --nvdimm) or no PATTERN_CHECK to check the server's memory with"
			return
		fi
		server_args=(--clients=4 --filename="$RPMA_TEST_DEVDAX" --size=2m --iodepth=4)
	else
		old+=(--verify=crc32c)
	fi
	side=new fio_start server "$kind" "${server_args[@]}"
	for i in 1 2; do
		local args=("${old[@]}")
		if [[ $kind == gpspm ]]; then
			patterns+=("$(printf '0x%02xa55a%02x' $((0x60 + i)) $((0x90 + i)))")
			args+=(--buffer_pattern="${patterns[-1]}")
		fi
		side=old fio_start client "$kind" "${args[@]}"
		moved client "old$i"
	done
	side=new fio_start client "$kind" "${ours[@]}"
	wait_exit "$(pid_of client)" 300
	crc=$?
	ended old1:300 old2:300
	wait_exit "$(pid_of server)" 60
	src=$?
	statuses "$name-old-clients" old1=ok old2=ok
	record_pair "$name" "$crc" "$src" || return
	for i in "${!patterns[@]}"; do
		local r found=1
		for r in 0 1 2 3; do
			if "$PATTERN_CHECK" "$RPMA_TEST_DEVDAX" $((r * (2 << 20))) $((2 << 20)) \
				"${patterns[i]}" >>"$(case_dir)/pattern.log" 2>&1; then
				found=0
				break
			fi
		done
		# not 0: no region of the server holds old client i+1's pattern
		fact "pattern-check-old$((i + 1)).status" "$found"
		expect "$name-server-holds-old-patterns" status "pattern-check-old$((i + 1))" ok
	done
}

# many_too_few: a server of clients=2 with runtime= gets one client: it
# serves that one to its end, then fails saying how many came
many_too_few() {
	local name=apm-clients2-one-came
	begin_case "$name"
	fio_server apm --clients=2 --filename=malloc --size=1m --runtime=20
	fio_client apm --port_per_job=0 --rw=randwrite --bs=4k --size=1m --verify=crc32c
	waited server "$(pid_of server)" 60
	statuses "$name" client=ok server=nonzero
	expect "$name" says server "1 of 2 clients connected to $RPMA_TEST_IP:$(case_port) within runtime=20s"
}

# many_port_mismatch: port_per_job=0 with numjobs=2 against a server of
# clients=1: the first job is served, the second finds nobody listening
many_port_mismatch() {
	local name=apm-port-per-job-0-against-clients1
	begin_case "$name"
	fio_server apm --filename=malloc --size=1m
	fio_client apm --numjobs=2 --port_per_job=0 --rw=write --bs=4k --size=1m --connect_timeout=5
	waited server "$(pid_of server)" 60
	# its second job finds nobody listening
	statuses "$name" client=nonzero server=ok
	expect "$name" says client "$RPMA_TEST_IP:$(case_port)"
}

# make check: ours alone
many_cases() {
	many_case apm 1
	many_case gpspm 1
	many_case gpspm 0
	many_lost_client apm
	many_lost_client gpspm
	many_terminated apm exitall
	many_terminated gpspm signal
	many_late_client 1
	many_memory
	many_too_few
	many_port_mismatch
}
