# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# engine/tests/hostile.sh -- clients that use what a server hands them
# against it (rogue_client): an RDMA write with immediate data into their
# own region, which takes one of the server's message receives with the
# write's length, and a message after the end-of-run notice. The server
# must name the client and end its connection, never read past a message
# buffer; with clients=N the others go on. The server's status must be a
# job's error (job-error: 1 to 123), not a signal (SIGSEGV: 139). Each case
# states its rules (expect, lib.sh), rules.py judges them on the host.
# Sourced by in-vm.sh after lib.sh.

# imm_single KIND SIZE: a server of KIND (gpspm: iodepth=1, one message
# slot) whose client writes with immediate data after a long and a short
# flush request (gpspm), or instead of the promised end-of-run notice (apm)
imm_single() {
	local kind=$1 name=$1-write-with-imm
	rogue_case "$name" "$kind" --filename=malloc --size="$2" --iodepth=1 --busy_wait_polling=0 ||
		return
	rogue_run rogue "imm-$kind"
	waited server "$(pid_of server)" 30
	summary rogue
	# the rogue's 0: the server ended its connection
	statuses "$name" rogue=ok server=job-error
	expect "$name" says server "immediate data"
}

# imm_many: one of the four clients of a GPSPM server of clients=4 writes
# with immediate data after two requests: it is named and dropped, the
# three others (one fio, numjobs=3) end their runs with 0 errors, data
# verified
imm_many() {
	local name=gpspm-clients4-write-with-imm
	rogue_case "$name" gpspm --clients=4 --filename=malloc --size=64m --iodepth=1 \
		--busy_wait_polling=0 || return
	fio_start client gpspm --numjobs=3 --port_per_job=0 --rw=randwrite --bs=4k --iodepth=1 \
		--size=1m --time_based --runtime=20 --verify=crc32c --verify_backlog=64
	await_connections 3 120 "$(pid_of client)"
	rogue_run rogue imm-gpspm
	ended client:120 server:60
	summary
	statuses "$name" rogue=ok client=ok server=job-error
	expect "$name" says server "client 4 of 4 at $RPMA_TEST_IP:$(case_port)" "immediate data" \
		"; the others go on"
	expect "$name" says server "1 of 4 clients of $RPMA_TEST_IP:$(case_port) failed"
}

# after_end: a client of a GPSPM server of clients=2 sends its end-of-run
# notice, then bytes that are no request and disconnects at once. The
# server is stopped (SIGSTOP) meanwhile, so that both the bytes and the
# disconnect wait for it together: the bytes fail that client, and the
# disconnect must not then count as the end of its run.
after_end() {
	local name=gpspm-clients2-message-after-end
	rogue_case "$name" gpspm --clients=2 --filename=malloc --size=1m --iodepth=4 \
		--busy_wait_polling=0 || return
	fio_client gpspm --port_per_job=0 --rw=write --bs=4k --iodepth=4 --size=1m --verify=crc32c
	rogue_start rogue after-end
	wait_for_text "$(case_dir)/rogue.log" "notice sent" 30
	sleep 1
	kill -STOP "$(pid_of server)"
	waited rogue "$(pid_of rogue)" 30
	sleep 1
	kill -CONT "$(pid_of server)"
	waited server "$(pid_of server)" 30
	summary
	# the server names client 2's bytes after its end
	statuses "$name" client=ok rogue=ok server=job-error
	expect "$name" says server "no flush request"
	expect "$name" says server "1 of 2 clients of $RPMA_TEST_IP:$(case_port) failed"
}

# probe_during_answer: the liveness probe of one client of a GPSPM server of
# clients=2 fails while the server answers that client (rogue_client
# probe-during-answer: its queue pair refuses the probe, an RDMA write, and
# the probe waits behind answers its device held back), the other client
# keeping the server busy (iodepth=32): what the failure means must be
# judged outside the answering, which must not start over with later
# requests of the other client; that client ends with 0 errors, data
# verified, the rogue is named
probe_during_answer() {
	local name=gpspm-clients2-probe-fails-during-answer
	rogue_case "$name" gpspm --clients=2 --filename=malloc --size=1m --iodepth=32 \
		--busy_wait_polling=1 || return
	fio_start client gpspm --port_per_job=0 --rw=randwrite --bs=4k --iodepth=32 --size=1m \
		--time_based --runtime=40 --verify=crc32c --verify_backlog=64
	await_connections 1 60
	rogue_run rogue probe-during-answer
	ended client:120 server:60
	summary rogue
	statuses "$name" rogue=ok client=ok server=job-error
	expect "$name" says server "client 2 of 2 at" "; the others go on"
}

# rooms_full: a client that holds its answers back (rogue_client
# rooms-full: no receive posted for them) sends one request more than the
# server has send rooms: that request waits in the server, which sleeps
# (busy_wait_polling=0), until an answer's completion frees a room; every
# answer then comes, in order, and the run ends as any other
rooms_full() {
	local name=gpspm-request-waits-for-a-send-room
	rogue_case "$name" gpspm --filename=malloc --size=1m --iodepth=4 --busy_wait_polling=0 ||
		return
	rogue_run rogue rooms-full
	waited server "$(pid_of server)" 30
	summary rogue
	statuses "$name" rogue=ok server=ok
}

# gives_up: a connection request whose client gave it up (rogue_client
# gives-up) before the server, stopped meanwhile, took it: the server says
# it could not take or accept it, or, where its accept went out before
# RDMA-CM heard of the give-up (as in the sanitizers' slower build), that
# it never completed; either way the place stays for the client that
# comes next (clients=1), which it serves to a clean end
gives_up() {
	local name=gpspm-request-given-up-then-a-client
	rogue_case "$name" gpspm --filename=malloc --size=1m --iodepth=4 --busy_wait_polling=0 ||
		return
	kill -STOP "$(pid_of server)"
	rogue_run rogue gives-up
	sleep 1
	kill -CONT "$(pid_of server)"
	fio_client gpspm --rw=write --bs=4k --iodepth=4 --size=1m --verify=crc32c
	waited server "$(pid_of server)" 30
	summary
	statuses "$name" rogue=ok client=ok server=ok
	expect "$name" says-one-of server "could not be taken" "could not be accepted" \
		"never completed, its place given back"
}

# two_clients KIND SIZE RUNTIME BACKLOG: two clients of ours (one fio,
# numjobs=2: client12) of a server of clients=3, random writes of SIZE each
# for RUNTIME s, verified (verify_backlog=BACKLOG); connected on return
two_clients() {
	fio_start client "$1" --numjobs=2 --port_per_job=0 --rw=randwrite --bs=4k --iodepth=4 \
		--size="$2" --time_based --runtime="$3" --verify=crc32c --verify_backlog="$4"
	moved client client12
	await_connections 2 60
}

# third_client KIND SIZE: the server's third place (clients=3) taken by a
# client of ours once a rogue had it, writing SIZE, verified
third_client() {
	fio_client "$1" --port_per_job=0 --rw=write --bs=4k --iodepth=4 --size="$2" \
		--verify=crc32c --connect_timeout=60
}

# strangers_amid_clients NAME KIND RUNTIME SERVER_ARGS... -- ROGUE_ARGS...:
# the common run of strangers and allow_strangers: a server of KIND and
# clients=3 (with SERVER_ARGS) serves two clients of ours (RUNTIME s)
# while ROGUE_CLIENT sends what ROGUE_ARGS say (rogue.log), then a
# connection request that never completes its handshake (no-rtu); then the
# third client of ours comes. Each program's status is expected 0; the
# caller adds what the server and the rogue must have said. False, the
# case recorded FAIL, without ROGUE_CLIENT.
strangers_amid_clients() {
	local name=$1 kind=$2 runtime=$3 server=()
	shift 3
	while (($#)) && [[ $1 != -- ]]; do
		server+=("$1")
		shift
	done
	shift
	rogue_case "$name" "$kind" --clients=3 "${server[@]}" --filename=malloc --size=1m \
		--iodepth=4 --busy_wait_polling=0 || return
	two_clients "$kind" 1m "$runtime" 64
	rogue_run rogue "$@"
	rogue_start no-rtu no-rtu
	wait_for_text "$(case_dir)/no-rtu.log" "left incomplete" 30
	third_client "$kind" 1m
	ended no-rtu:60 client12:120 server:60
	summary rogue
	statuses "$name" rogue=ok no-rtu=ok client12=ok client=ok server=ok
}

# strangers KIND: a server of clients=3 serves two clients of ours (one
# fio, numjobs=2) while a host that reaches its port sends 1,000 connection
# requests, each given up at once (rogue_client gives-up 1000), then one
# that never completes its handshake (no-rtu); then the third client of
# ours comes. A request that never completes gives its place back (the
# one left incomplete within the server's handshake_timeout=, 10 s)
# and no number of them ends the job: all three clients end with 0 errors,
# data verified, and the job well
strangers() {
	local kind=$1 name=$1-clients3-strangers-then-a-client
	strangers_amid_clients "$name" "$kind" 40 -- gives-up 1000 || return
	expect "$name" says rogue "1000 connection requests sent and given up"
	expect "$name" says server "never completed, its place given back"
	expect "$name" never-says server "; the others go on"
}

# stranger_address: a second address of the VM's netdev beside
# RPMA_TEST_IP, STRANGER_IP (192.0.2.2), of which rxe makes a GID of its
# own, so that a program can send connection requests from it: a host
# outside a server's allow=. Only in the VM (RPMA_TEST_NETDEV), whose
# network is the test's own. False if it cannot be added.
STRANGER_IP=192.0.2.2
stranger_address() {
	[[ -n "${RPMA_TEST_NETDEV:-}" && $RPMA_TEST_IP == 192.0.2.1 ]] || return 1
	ip -4 addr show dev "$RPMA_TEST_NETDEV" | grep -qF " $STRANGER_IP/" ||
		ip addr add "$STRANGER_IP/24" dev "$RPMA_TEST_NETDEV" || return 1
	# rxe adds the address's GID as the address comes up
	local end=$((SECONDS + 10))
	until grep -qs "ffff:c000:0202" \
		/sys/class/infiniband/"${RPMA_TEST_DEV:-rxe0}"/ports/1/gids/*; do
		((SECONDS < end)) || return 1
		sleep 0.2
	done
}

# allow_strangers KIND: a server of clients=3 and allow=RPMA_TEST_IP serves
# two clients of ours (one fio, numjobs=2) while a host outside allow=
# (STRANGER_IP) sends 1,000 connection requests as fast as the server
# answers them (rogue_client from): each is refused inside librpma before
# any queue is made (rpma_ep_set_peer_filter), the server counts them and
# says so in a few lines, not one a request; then a request from inside
# allow= that never completes its handshake (no-rtu) gives its place back,
# and the third client of ours comes. All three end with 0 errors, data
# verified, the job well.
allow_strangers() {
	local kind=$1 name=$1-clients3-allow-refuses-strangers
	if [[ -x "${ROGUE_CLIENT:-}" ]] && ! stranger_address; then
		skip "$name" "no second address ($STRANGER_IP) on the VM's netdev to send from"
		return
	fi
	strangers_amid_clients "$name" "$kind" 20 --allow="$RPMA_TEST_IP" \
		--handshake_timeout=4 -- from "$STRANGER_IP" 1000 || return
	expect "$name" says rogue "1000 connection requests from $STRANGER_IP" "1000 refused"
	expect "$name" says server "refused 1 connection request to $RPMA_TEST_IP:$(case_port)" \
		"from outside allow=$RPMA_TEST_IP/32 (from $STRANGER_IP)"
	# counted, not one line a request: the first at once, then at most
	# one every 10 s and one at the end, which add up to all of them
	fact refused "$(grep -hoE "refused [0-9]+ (more )?connection requests? to" \
		"$(case_dir)/server.log" "$(case_dir)/server.json" | awk '{ n += $2 } END { print n + 0 }')"
	expect "$name" between refused 1000 1000
	expect "$name" count server.log 2 8 contains "from outside allow="
	expect "$name" says server "never completed, its place given back (no answer within 4 s"
	expect "$name" never-says server "; the others go on"
}

# isolated_case NAME KIND [force] ARGS...: begins case NAME, a server of
# KIND with isolation=window (a memory window per client: docs/engines.md,
# "Isolation of clients"), its registrations written to the case's
# "regions" (engine_check.cc, ENGINE_CHECK_REGIONS_TO). True once it
# listens; false, the case recorded FAIL or SKIP, without ROGUE_CLIENT or
# ENGINE_CHECK, beside the sanitizers' runtime in fio (engine_check cannot
# run there) or where isolation is not in force (a device without type 2
# windows refuses isolation=window: SKIP with the server's reason). With
# force (to show what a server without isolation allows) isolation=none.
isolated_case() {
	local name=$1 kind=$2 force=$3 iso=(--isolation=window) why
	shift 3
	[[ $force == force ]] && iso=(--isolation=none)
	[[ -x "${ROGUE_CLIENT:-}" && -f "${ENGINE_CHECK:-}" ]] ||
		{ fail "$name" "no ROGUE_CLIENT or ENGINE_CHECK (make check builds them)"; return 1; }
	beside_sanitizers "$name" && return 1
	begin_case "$name"
	ENGINE_CHECK_REGIONS_TO="$(case_dir)/regions" LD_PRELOAD=$ENGINE_CHECK \
		fio_server "$kind" "${iso[@]}" "$@"
	server_listens 30 && return 0
	why=$(grep -hs -m1 -i "isolation" "$(case_dir)/server.log" "$(case_dir)/server.json")
	if [[ -n $why ]]; then
		wait_exit "$(pid_of server)" 10
		skip "$name" "isolation=window is not in force (${why//$'\t'/ }): it runs where it is"
	else
		fail "$name" "the server did not listen"
	fi
	return 1
}

# leaked_key KIND [force]: a server of clients=3 with isolation=window
# serves two clients of ours (verify=crc32c); the third, a rogue
# (rogue_client leaked), is handed by the test the exact key and address
# of client 1's range (its descriptor as client 1 took it: engine_check's
# ENGINE_CHECK_DESCRIPTOR_TO in client 1's fio) and the key of the server's
# region under that range (ENGINE_CHECK_REGIONS_TO): its writes and reads
# with them must fail (its own connection ends), clients 1 and 2 end with 0
# errors, data verified. SKIP where isolation is not in force; force runs
# it on a server without isolation= (today's: it fails, the rogue reads and
# overwrites client 1's bytes).
leaked_key() {
	local kind=$1 force=${2:-} name=$1-clients3-leaked-key
	[[ $force == force ]] && name+=-without-isolation
	isolated_case "$name" "$kind" "$force" --clients=3 --filename=malloc --size=1m \
		--iodepth=4 --busy_wait_polling=0 || return
	# each loop writes the range, then reads it all back and verifies it:
	# bytes of a rogue's between the two are found. The other client
	# comes first, so that the rogue starts as soon as the client whose
	# key leaks is connected, well within its runtime (a fio takes tens of
	# seconds to start in a busy VM).
	local job=(--port_per_job=0 --rw=write --bs=4k --iodepth=4 --size=1m --loops=100000
		--runtime=30 --verify=crc32c)
	fio_start client "$kind" "${job[@]}"
	moved client client2
	await_connections 1 120
	ENGINE_CHECK_DESCRIPTOR_TO="$(case_dir)/client1.desc" LD_PRELOAD=$ENGINE_CHECK \
		fio_start client "$kind" "${job[@]}"
	moved client client1
	wait_for_text "$(case_dir)/client1.desc" "" 120
	rogue_run rogue leaked "$(case_dir)/client1.desc" "$(case_dir)/regions"
	ended client1:120 client2:120 server:60
	summary rogue
	expect "$name" status rogue ok
	expect "$name" says rogue "foreign bytes: 0 read, 0 written"
	statuses "$name" client1=ok client2=ok
	expect "$name" never-says server "client 1 of 3"
	expect "$name" never-says server "client 2 of 3"
}

# guessing KIND [force]: a server of clients=3 with isolation=window serves
# two clients of ours (one fio, numjobs=2, verify=crc32c) while its third
# place goes to a rogue (rogue_client guessing) that guesses, one fresh
# connection a failed guess, every key of the 8 pool indices around its own
# range's at the addresses its own range's arithmetic gives, reading 8
# bytes and writing them back where a read succeeds: no foreign byte read
# or written. Then a third client of ours takes the place: all three end
# with 0 errors, data verified. SKIP where isolation is not in force;
# force: on a server without isolation= (today's: the rogue finds the
# other ranges' keys). 2,048 connections: the full suite's.
guessing() {
	local kind=$1 force=${2:-} name=$1-clients3-guessing
	[[ $force == force ]] && name+=-without-isolation
	isolated_case "$name" "$kind" "$force" --clients=3 --filename=malloc --size=64k \
		--iodepth=4 --busy_wait_polling=0 || return
	two_clients "$kind" 64k 20 16
	rogue_bound=1200 rogue_run rogue guessing
	third_client "$kind" 64k
	ended client12:120 server:60
	summary rogue
	expect "$name" status rogue ok
	expect "$name" says rogue "guessed 2048 keys" "foreign bytes: 0 read, 0 written"
	statuses "$name" client12=ok client=ok
	expect "$name" never-says server "client 1 of 3"
	expect "$name" never-says server "client 2 of 3"
}

# end_then_silence KIND: a client whose end-of-run request (GPSPM) or
# notice (APM) came, then nothing (rogue_client KIND-ends-then-silent: its
# queue pair drops the probes, no disconnect), as a client whose
# disconnect request a loaded link lost: it ended its run, and the
# server, once its probe goes unanswered (after 5 s of quiet), closes it
# and ends its job well, saying so
end_then_silence() {
	local kind=$1 name=$1-end-then-silence
	rogue_case "$name" "$kind" --filename=malloc --size=1m --iodepth=4 --busy_wait_polling=0 ||
		return
	rogue_start rogue "$kind-ends-then-silent"
	waited server "$(pid_of server)" 60
	kill "$(pid_of rogue)" 2>/dev/null
	wait "$(pid_of rogue)"
	summary rogue
	# else the request did not go out, or the queue pair did not go silent
	expect "$name" says rogue "end-of-run request sent, then silent"
	expect "$name" status server ok
	expect "$name" says server "ended its run, then stopped answering"
}

hostile_cases() {
	imm_single gpspm 64m
	imm_single apm 1m
	imm_many
	after_end
	probe_during_answer
	rooms_full
	gives_up
	strangers gpspm
	allow_strangers gpspm
	leaked_key gpspm
	end_then_silence gpspm
	# in-vm.sh's mode: the full suite's cases, each a minute or more; the
	# quick suite's GPSPM twins run the same server code (server.cc)
	if [[ ${mode:-quick} == full ]]; then
		strangers apm
		allow_strangers apm
		leaked_key apm
		guessing apm
		guessing gpspm
		end_then_silence apm
	else
		skip apm-clients3-guessing "the full suite's (2,048 connections): make check-engines-full"
	fi
}
