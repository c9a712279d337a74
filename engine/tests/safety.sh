# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# engine/tests/safety.sh -- what the clients do with fio's memory and io_us
# when a job ends, well or badly. The fio processes run with
# engine/tests/engine_check.cc preloaded (ENGINE_CHECK): it reports memory freed
# while registered and memory deregistered before its queue pair is
# destroyed, and can make a post fail. Also what a GPSPM server's memory
# grows by per connection. Each case states its rules (expect, lib.sh),
# rules.py judges them on the host: "engine-check ROLE N", ROLE's fio saw no
# violation and freed at least N registered buffers (the client's io_u
# buffers) after their deregistration. Sourced by in-vm.sh after lib.sh.

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
	local kind=$1 name=$1-teardown-order${2:+-late-server} rw=randrw
	[[ $kind == gpspm ]] && rw="randwrite --verify=crc32c"
	begin_case "$name"
	local server=(fio_server "$kind" --filename=malloc --size=2m --iodepth=8)
	[[ -n ${2:-} ]] || LD_PRELOAD=$ENGINE_CHECK "${server[@]}"
	# shellcheck disable=SC2086 # rw holds two words for GPSPM
	LD_PRELOAD=$ENGINE_CHECK fio_start client "$kind" --rw=$rw --bs=4k --iodepth=8 --size=2m
	if [[ -n ${2:-} ]]; then
		wait_for_text "$(case_dir)/client.log" "waiting for the server" 30
		LD_PRELOAD=$ENGINE_CHECK "${server[@]}"
	fi
	ended client:300 server:30
	statuses "$name" client=ok server=ok
	expect "$name" engine-check client 1
	expect "$name" engine-check server 0
}

# rogue_server_case NAME MODE: begins case NAME, a rogue server
# (ROGUE_SERVER MODE) listening on its port
rogue_server_case() {
	begin_case "$1"
	rogue_program=$ROGUE_SERVER rogue_start rogue "$2"
	wait_for_text "$(case_dir)/rogue.log" "waiting for a client" 30
}

# against_rogue_server NAME CLIENT_ARGS...: a GPSPM client (engine_check
# preloaded) of CLIENT_ARGS, each I/O 4 KiB, against the rogue server for
# up to 120 s: it must fail its job within seconds, and the rogue end well
against_rogue_server() {
	local name=$1
	shift
	LD_PRELOAD=$ENGINE_CHECK fio_start client gpspm "$@" --bs=4k --size=1m --time_based \
		--runtime=120
	ended client:45 rogue:70
	statuses "$name" client=failed rogue=ok
}

# A server answers a flush request with bytes that are no response, then
# nothing, the connection left up: the client fails its job at once, gives
# fio back every io_u, stops the device before fio frees the buffers, and
# sends no end-of-run notice the server has no receive for (the device
# would retry it, RNR, forever). sync=0: reads and writes in flight then;
# sync=1: one write at a time.
bad_response() { # bad_response SYNC
	local name=gpspm-bad-response-sync$1 naks job=(--rw=randrw --iodepth=8)
	(($1)) && job=(--rw=write --iodepth=1 --sync=1)
	rogue_server_case "$name" gpspm-bad-response
	naks=$(rnr_naks)
	against_rogue_server "$name" "${job[@]}"
	fact rnr-naks $(($(rnr_naks) - naks))
	summary rogue
	expect "$name" between rnr-naks 0 0
	expect "$name" says client "cannot unpack the flush response"
	expect "$name" engine-check client 1
}

# A server answers with a well-formed response that is not the answer due:
# wrong-context: op_context 1, no flush request's, with reads and writes
# in flight; out-of-order: the second request's answer before the first's,
# and then the server dies. The client fails its job at once (EPROTO),
# saying what was wrong, and counts no write complete: no flush request of
# its was answered in order.
rogue_response() { # rogue_response wrong-context|out-of-order
	local name=gpspm-$1-response message rw=randrw
	if [[ $1 == wrong-context ]]; then
		message="which no flush request outstanding has"
	else
		message="before the older"
		rw=randwrite # at least two flush requests at once
	fi
	rogue_server_case "$name" "gpspm-$1"
	against_rogue_server "$name" --rw=$rw --iodepth=16
	summary rogue
	expect "$name" written client 0
	expect "$name" says client "$message"
	expect "$name" engine-check client 1
}

# A GPSPM server that sleeps between completions (busy_wait_polling=0) and
# a client that ends well: the server must end with status 0, not report
# the client as killed. engine/tests/engine_check.cc makes the windows certain.
# hold: the server is descheduled from its 16th answer until the client
# has taken the answers, sent its end-of-run request and disconnected:
# it then wakes with the disconnect and 17 completions at once, the
# end-of-run request after the 16 answers' sends. hidden-sends: the
# acknowledgements of the server's answers (their SEND completions) never
# come, so every send room stays taken and the end-of-run request comes
# with all 16 in flight; the client then writes 20 blocks a second
# (rate_iops), so that the server's checks (every 100 ms) poll the
# connection's queue meanwhile and the hook says it hid a completion.
# The client writes 16 blocks 4 KiB apart (rw=write:4k): 16 flush
# requests, one per message slot.
sleeping_server_end() { # sleeping_server_end hold|hidden-sends
	local name=gpspm-sleeping-server-end-$1 hold=16 hide=0 rate=()
	local sign="engine-check: released"
	if [[ $1 == hidden-sends ]]; then
		hold=0 hide=1 rate=(--rate_iops=20)
		sign="engine-check: hid"
	fi
	begin_case "$name"
	ENGINE_CHECK_HOLD=$hold ENGINE_CHECK_HIDE_SENDS=$hide LD_PRELOAD=$ENGINE_CHECK \
		fio_server gpspm --filename=malloc --size=1m --iodepth=16 --busy_wait_polling=0
	server_listens 60
	LD_PRELOAD=$ENGINE_CHECK fio_start client gpspm --rw=write:4k --bs=4k --size=1m \
		--number_ios=16 --iodepth=16 "${rate[@]}"
	ended client:120 server:60
	statuses "$name" client=ok server=ok
	# the server must not report its client killed
	expect "$name" never-says server "was it killed"
	# else the window was not made
	expect "$name" says server "$sign"
	expect "$name" engine-check client 1
	expect "$name" engine-check server 0
}

# A loaded host's rxe may take the acknowledgement of a flush request (its
# SEND completion) after the server's response to it (in the three-guest
# bed, 256 clients: the client's post then failed with ENOMEM). The client
# may count an I/O done at the response, but not the send queue's room:
# until the SEND completes, the writes the request covered hold theirs.
# engine_check.cc delays every SEND completion by 20 ms and fails the case
# if the client posts more work requests than it can know the queue has
# room for (iodepth 2, sequential writes: two flushes of two writes each
# waiting for their SEND completions, and two writes more, made 8 in a
# queue of 7 when the client took an I/O done at its response).
late_send_completions() {
	local name=gpspm-late-send-completions
	begin_case "$name"
	fio_server gpspm --filename=malloc --size=1m --iodepth=2
	server_listens 60
	ENGINE_CHECK_LATE_SENDS=20 LD_PRELOAD=$ENGINE_CHECK fio_start client gpspm --rw=write \
		--bs=4k --size=1m --iodepth=2 --busy_wait_polling=1 --verify=crc32c
	ended client:120 server:60
	statuses "$name" client=ok server=ok
	# else the window was not made
	expect "$name" says client "engine-check: delayed a SEND completion"
	expect "$name" engine-check client 1
}

# The second post of a batch of four fails: the job fails at once and
# every io_u comes back, the two never posted included.
failed_post() {
	local name=apm-failed-post
	begin_case "$name"
	fio_server apm --filename=malloc --size=2m
	ENGINE_CHECK_FAIL=rpma_write:2 LD_PRELOAD=$ENGINE_CHECK fio_start client apm \
		--rw=write --bs=4k --iodepth=4 --iodepth_batch=4 --size=2m --time_based --runtime=120
	waited client "$(pid_of client)" 45
	wait_exit "$(pid_of server)" 30
	expect "$name" status client failed
	expect "$name" says client "failing call 2 of rpma_write"
	expect "$name" says client "rpma_write"
	expect "$name" engine-check client 1
}

# sync=1: fio's figures have the same kinds as with its own synchronous
# engine (psync) for the same job.
sync_accounting() {
	local name=apm-sync-accounting
	begin_case "$name"
	fio_server apm --filename=malloc --size=1m
	fio_client apm --rw=write --bs=4k --iodepth=1 --sync=1 --size=1m
	waited server "$(pid_of server)" 30
	(cd /tmp && exec "${FIO[@]}" --output-format=json --name=client --ioengine=psync \
		--filename="/tmp/$name" --rw=write --bs=4k --iodepth=1 --size=1m) \
		>"$(case_dir)/psync.json" 2>"$(case_dir)/psync.log"
	output_file psync.json json
	rm -f "/tmp/$name"
	statuses "$name" client=ok server=ok
	expect "$name" same-figures client psync
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
	local name=$1 conns=$2 a0 a1='' end client
	# ASan's allocator keeps freed blocks in quarantine, pads each block
	# and returns pages to the kernel on its own schedule: gpspm-server-memory
	# grew by 84 kB with it, and by -832 kB with its quarantine off
	if [[ -n "${FIO_PRELOAD:-}" ]]; then
		skip "$name" "beside the sanitizers a process's anonymous memory is their allocator's, not the server's"
		return
	fi
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
	waited client "$client" 120
	waited server "$(pid_of server)" 30
	echo "  $name: anonymous memory $a0 kB listening, ${a1:-?} kB with $conns connected"
	# none if the server's memory was not read with all connected
	[[ -z $a1 ]] || fact anon-kb-per-connection $(((a1 - a0) / conns))
	statuses "$name" client=ok server=ok
	expect "$name" between anon-kb-per-connection - 56
}

safety_cases() {
	if [[ ! -f "${ENGINE_CHECK:-}" || ! -x "${ROGUE_SERVER:-}" ]]; then
		fail safety "no ENGINE_CHECK or ROGUE_SERVER (make check builds them)"
		return
	fi
	if ! beside_sanitizers apm-teardown-order gpspm-teardown-order \
		gpspm-teardown-order-late-server gpspm-bad-response-sync0 gpspm-bad-response-sync1 \
		gpspm-wrong-context-response gpspm-out-of-order-response \
		gpspm-sleeping-server-end-hold gpspm-sleeping-server-end-hidden-sends \
		gpspm-late-send-completions apm-failed-post; then
		teardown_order apm
		teardown_order gpspm
		teardown_order gpspm late
		bad_response 0
		bad_response 1
		rogue_response wrong-context
		rogue_response out-of-order
		sleeping_server_end hold
		sleeping_server_end hidden-sends
		late_send_completions
		failed_post
	fi
	sync_accounting
	gpspm_server_memory
}
