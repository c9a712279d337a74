# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# engine/tests/safety.sh -- what the clients do with fio's memory and io_us
# when a job ends, well or badly. The fio processes run with
# engine/tests/engine_check.cc preloaded (ENGINE_CHECK): it reports memory freed
# while registered and memory deregistered before its queue pair is
# destroyed, and can make a post fail. Also what a GPSPM server's memory
# grows by per connection. Sourced by in-vm.sh after lib.sh and errors.sh.

# in_order ROLE: ROLE's fio ran under engine_check, which saw no violation
# (and, for the client, fio's io_u buffers freed after deregistration)
in_order() {
	local log min=0
	log=$(case_dir)/$1.log
	[[ $1 == client ]] && min=1
	! grep -q "engine-check: FAIL" "$log" &&
		grep -Eq "engine-check: ([0-9]+) registered regions freed after deregistration, 0 violations" "$log" &&
		(($(sed -En 's/.*engine-check: ([0-9]+) registered.*/\1/p' "$log" | tail -1) >= min))
}

# rnr_naks: the RNR NAKs the device has counted (sent and received)
rnr_naks() {
	local n=0 f
	for f in /sys/class/infiniband/*/ports/*/hw_counters/*rnr*; do
		[[ -r $f ]] && n=$((n + $(cat "$f")))
	done
	[[ -n ${f:-} && -r $f ]] || echo "  (no RNR counters: $f)" >&2
	echo "$n"
}

# A job that ends well: fio frees its io_u buffers only after the client
# deregistered them, and every memory region goes after its queue pair.
# late: the server starts once the client waits for it, so the client's
# first connection attempts are rejected (each registers and deregisters
# its connection's memory before the job's own regions are registered).
teardown_order() { # teardown_order KIND [late]
	local kind=$1 name=$1-teardown-order${2:+-late-server} crc src rw=randrw client
	[[ $kind == gpspm ]] && rw="randwrite --verify=crc32c"
	begin_case "$name"
	local server=(fio_server "$kind" --filename=malloc --size=2m --iodepth=8)
	[[ -n ${2:-} ]] || LD_PRELOAD=$ENGINE_CHECK "${server[@]}"
	# shellcheck disable=SC2086 # rw holds two words for GPSPM
	LD_PRELOAD=$ENGINE_CHECK fio_start client "$kind" --rw=$rw --bs=4k --iodepth=8 --size=2m
	client=$(pid_of client)
	if [[ -n ${2:-} ]]; then
		wait_for_text "$(case_dir)/client.log" "waiting for the server" 30
		LD_PRELOAD=$ENGINE_CHECK "${server[@]}"
	fi
	wait_exit "$client" 300
	crc=$?
	wait_exit "$(pid_of server)" 30
	src=$?
	((crc == 0 && src == 0)) && in_order client && in_order server
	verdict_of $? "$name" "client $crc, server $src, or engine-check did not pass (client.log, server.log)"
}

# A server answers a flush request with bytes that are no response, then
# nothing, the connection left up: the client fails its job at once, gives
# fio back every io_u, stops the device before fio frees the buffers, and
# sends no end-of-run notice the server has no receive for (the device
# would retry it, RNR, forever). sync=0: reads and writes in flight then;
# sync=1: one write at a time.
bad_response() { # bad_response SYNC
	local name=gpspm-bad-response-sync$1 crc rrc rogue naks
	local job=(--rw=randrw --iodepth=8)
	(($1)) && job=(--rw=write --iodepth=1 --sync=1)
	begin_case "$name"
	"$ROGUE_SERVER" "$RPMA_TEST_IP" "$(case_port)" gpspm-bad-response >"$(case_dir)/rogue.log" 2>&1 &
	rogue=$!
	wait_for_text "$(case_dir)/rogue.log" "waiting for a client" 30
	naks=$(rnr_naks)
	LD_PRELOAD=$ENGINE_CHECK fio_start client gpspm "${job[@]}" --bs=4k \
		--size=1m --time_based --runtime=120
	wait_exit "$(pid_of client)" 45
	crc=$?
	wait_exit "$rogue" 70
	rrc=$?
	naks=$(($(rnr_naks) - naks))
	echo "  $name: client $crc, rogue server $rrc, $naks RNR NAKs; $(tail -1 "$(case_dir)/rogue.log")"
	((crc && crc != 124 && rrc == 0 && naks == 0)) &&
		has client "cannot unpack the flush response" && in_order client
	verdict_of $? "$name" "client $crc (124: still running after 45 s), rogue server $rrc, $naks RNR NAKs, or no message or engine-check failed"
}

# written_bytes ROLE: the bytes of writes fio counted complete in ROLE's
# JSON report (empty without one)
written_bytes() {
	python3 - "$(case_dir)/$1.json" <<'EOF' 2>/dev/null
import json, sys
lines = open(sys.argv[1]).read().splitlines(True)
start = next(i for i, l in enumerate(lines) if l.startswith("{"))
print(sum(j["write"]["io_bytes"] for j in json.loads("".join(lines[start:]))["jobs"]))
EOF
}

# A server answers with a well-formed response that is not the answer due:
# wrong-context: op_context 1, no flush request's, with reads and writes
# in flight; out-of-order: the second request's answer before the first's,
# and then the server dies. The client fails its job at once (EPROTO),
# saying what was wrong, and counts no write complete: no flush request of
# its was answered in order.
rogue_response() { # rogue_response wrong-context|out-of-order
	local name=gpspm-$1-response crc rrc rogue written message rw=randrw
	if [[ $1 == wrong-context ]]; then
		message="which no flush request outstanding has"
	else
		message="before the older"
		rw=randwrite # at least two flush requests at once
	fi
	begin_case "$name"
	"$ROGUE_SERVER" "$RPMA_TEST_IP" "$(case_port)" "gpspm-$1" >"$(case_dir)/rogue.log" 2>&1 &
	rogue=$!
	wait_for_text "$(case_dir)/rogue.log" "waiting for a client" 30
	LD_PRELOAD=$ENGINE_CHECK fio_start client gpspm --rw=$rw --iodepth=16 --bs=4k \
		--size=1m --time_based --runtime=120
	wait_exit "$(pid_of client)" 45
	crc=$?
	wait_exit "$rogue" 70
	rrc=$?
	written=$(written_bytes client)
	echo "  $name: client $crc, rogue server $rrc, ${written:-?} bytes written; $(tail -1 "$(case_dir)/rogue.log")"
	((crc && crc != 124 && rrc == 0)) && [[ $written == 0 ]] &&
		has client "$message" && in_order client
	verdict_of $? "$name" "client $crc (124: still running after 45 s), rogue server $rrc, ${written:-no report of} bytes written (must be 0), or no \"$message\" or engine-check failed"
}

# A GPSPM server that sleeps between completions (busy_wait_polling=0) and
# a client that ends well: the server must end with status 0, not report
# the client as killed. engine/tests/engine_check.cc makes the windows certain.
# hold: the server is descheduled from its 16th answer until the client
# has taken the answers, sent its end-of-run request and disconnected:
# it then wakes with the disconnect and 17 completions at once, the
# end-of-run request after the 16 answers' sends. hidden-sends: the
# acknowledgements of the server's answers (their SEND completions) never
# come, so the end-of-run request lands in a slot whose send is busy.
# The client writes 16 blocks 4 KiB apart (rw=write:4k): 16 flush requests
# at once, one per message slot.
sleeping_server_end() { # sleeping_server_end hold|hidden-sends
	local name=gpspm-sleeping-server-end-$1 crc src hold=16 hide=0
	local sign="engine-check: released"
	if [[ $1 == hidden-sends ]]; then
		hold=0 hide=1
		sign="engine-check: hid"
	fi
	begin_case "$name"
	ENGINE_CHECK_HOLD=$hold ENGINE_CHECK_HIDE_SENDS=$hide LD_PRELOAD=$ENGINE_CHECK \
		fio_server gpspm --filename=malloc --size=1m --iodepth=16 --busy_wait_polling=0
	server_listens 60
	LD_PRELOAD=$ENGINE_CHECK fio_start client gpspm --rw=write:4k --bs=4k --size=1m \
		--number_ios=16 --iodepth=16
	wait_exit "$(pid_of client)" 120
	crc=$?
	wait_exit "$(pid_of server)" 60
	src=$?
	((crc == 0 && src == 0)) && ! has server "was it killed" && has server "$sign" &&
		in_order client && in_order server
	verdict_of $? "$name" "client $crc, server $src, the server reported its client killed, no \"$sign\" (the window was not made) or engine-check failed"
}

# The second post of a batch of four fails: the job fails at once and
# every io_u comes back, the two never posted included.
failed_post() {
	local name=apm-failed-post crc src
	begin_case "$name"
	fio_server apm --filename=malloc --size=2m
	ENGINE_CHECK_FAIL=rpma_write:2 LD_PRELOAD=$ENGINE_CHECK fio_start client apm \
		--rw=write --bs=4k --iodepth=4 --iodepth_batch=4 --size=2m --time_based --runtime=120
	wait_exit "$(pid_of client)" 45
	crc=$?
	wait_exit "$(pid_of server)" 30
	src=$?
	((crc && crc != 124)) && has client "failing call 2 of rpma_write" &&
		has client "rpma_write" && in_order client
	verdict_of $? "$name" "client $crc (124: still running after 45 s), or no message or engine-check failed"
}

# accounting FILE...: what kind of figures each JSON report of one write job
# has, a line per file (empty if it has no report): the depth buckets of
# submissions and of completions used, and whether it has submission
# latencies. python3, which the suite's evaluation needs anyway (one start:
# it is slow in the VM).
accounting() {
	python3 - "$@" <<'EOF'
import json, sys
for path in sys.argv[1:]:
    try:
        lines = open(path).read().splitlines(True)
        start = next(i for i, l in enumerate(lines) if l.startswith("{"))
        job = json.loads("".join(lines[start:]))["jobs"][0]
        used = lambda buckets: [k for k, v in buckets.items() if v > 0]
        print(json.dumps([used(job["iodepth_submit"]), used(job["iodepth_complete"]),
                          job["write"]["slat_ns"]["N"] > 0], separators=(",", ":")))
    except (OSError, StopIteration, ValueError, LookupError):
        print()
EOF
}

# sync=1: fio's figures have the same kinds as with its own synchronous
# engine (psync) for the same job.
sync_accounting() {
	local name=apm-sync-accounting crc src ours theirs
	begin_case "$name"
	fio_server apm --filename=malloc --size=1m
	fio_client apm --rw=write --bs=4k --iodepth=1 --sync=1 --size=1m
	crc=$?
	wait_exit "$(pid_of server)" 30
	src=$?
	(cd /tmp && exec "${FIO[@]}" --output-format=json --name=client --ioengine=psync \
		--filename="/tmp/$name" --rw=write --bs=4k --iodepth=1 --size=1m) \
		>"$(case_dir)/psync.json" 2>"$(case_dir)/psync.log"
	output_file psync.json json
	rm -f "/tmp/$name"
	{ read -r ours; read -r theirs; } < <(accounting "$(case_dir)/client.json" "$(case_dir)/psync.json")
	((crc == 0 && src == 0)) && [[ -n $ours && $ours == "$theirs" ]]
	verdict_of $? "$name" "client $crc, server $src; submit buckets, complete buckets, slat: ours $ours, psync $theirs"
}

# anon_kb PID: the process's resident anonymous memory (heap, arenas,
# stacks, private mappings) less its transparent huge pages (2 MiB at once,
# whoever faulted them), from smaps_rollup: one record, read at once (smaps,
# read in pieces, lost mappings here while the process changed its own);
# the rings rxe maps are device memory, not counted.
anon_kb() {
	local k v anon=0 huge=0 _
	while read -r k v _; do
		case $k in
		Anonymous:) anon=$v ;;
		AnonHugePages:) huge=$v ;;
		esac
	done <"/proc/$1/smaps_rollup"
	echo $((anon - huge))
}

# A GPSPM server's anonymous memory grows, on connecting, by its message
# buffers (a 512-byte receive and a 16-byte send per slot: 33 KiB at
# iodepth=64), the emulated flushes' page and a few kB of bookkeeping;
# with a 512-byte send per slot it grew by 64 KiB more than that.
gpspm_server_memory() {
	server_memory gpspm-server-memory 1 \
		"--filename=malloc --size=1m --iodepth=64 --busy_wait_polling=0" \
		"--rw=write --bs=4k --iodepth=16 --size=1m --time_based --runtime=10 --busy_wait_polling=0"
}

# server_memory NAME CONNS "SERVER ARGS" "CLIENT ARGS": a GPSPM server's
# anonymous memory must grow by at most 56 kB per connection from
# listening to CONNS connected (a client fio of CONNS jobs)
server_memory() {
	local name=$1 conns=$2 a0 a1='' crc src bound=56 end per client
	begin_case "$name"
	# shellcheck disable=SC2086 # the argument lists are word lists
	fio_server gpspm $3
	if ! server_listens 60; then
		fail "$name" "the server does not listen"
		kill "$(pid_of server)" 2>/dev/null
		return
	fi
	a0=$(anon_kb "$(pid_of server)")
	# shellcheck disable=SC2086
	fio_start client gpspm --numjobs="$conns" $4
	client=$(pid_of client)
	# the server's end of a connection is established once it accepted,
	# after it registered its message buffers
	end=$((SECONDS + 120))
	while ((SECONDS < end)) && kill -0 "$client" 2>/dev/null; do
		if (($(server_connections) == conns)); then
			a1=$(anon_kb "$(pid_of server)")
			break
		fi
		sleep 0.2
	done
	wait_exit "$client" 120
	crc=$?
	wait_exit "$(pid_of server)" 30
	src=$?
	per=$(((${a1:-0} - a0) / conns))
	echo "  $name: anonymous memory $a0 kB listening, ${a1:-?} kB with $conns connected: $per kB each"
	((crc == 0 && src == 0)) && [[ -n $a1 ]] && ((per <= bound))
	verdict_of $? "$name" "client $crc, server $src; grew by $per kB per connection on connecting (at most $bound)"
}

safety_cases() {
	if [[ ! -f "${ENGINE_CHECK:-}" || ! -x "${ROGUE_SERVER:-}" ]]; then
		fail safety "no ENGINE_CHECK or ROGUE_SERVER (make check builds them)"
		return
	fi
	# engine_check interposes free(), which cannot stand beside the
	# sanitizers' runtime (it must come first and owns the heap)
	if [[ -n "${FIO_PRELOAD:-}" ]]; then
		local c
		for c in apm-teardown-order gpspm-teardown-order gpspm-teardown-order-late-server \
			gpspm-bad-response-sync0 \
			gpspm-bad-response-sync1 gpspm-wrong-context-response \
			gpspm-out-of-order-response gpspm-sleeping-server-end-hold \
			gpspm-sleeping-server-end-hidden-sends apm-failed-post; do
			skip "$c" "needs engine_check in fio, which cannot run beside the sanitizers' runtime"
		done
	else
		teardown_order apm
		teardown_order gpspm
		teardown_order gpspm late
		bad_response 0
		bad_response 1
		rogue_response wrong-context
		rogue_response out-of-order
		sleeping_server_end hold
		sleeping_server_end hidden-sends
		failed_post
	fi
	sync_accounting
	gpspm_server_memory
}
