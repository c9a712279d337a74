# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# engine/tests/errors.sh -- what users see when something goes wrong: each
# case expects a failure (or an end) within seconds and a clear message
# (its rules: expect, lib.sh; judged by rules.py on the host). Sourced by
# in-vm.sh after lib.sh.

# busy_pair KIND: a server and a client writing for up to 2 minutes, both
# connected and busy on return
busy_pair() {
	fio_server "$1" --filename=malloc --size=8m --iodepth=4
	fio_start client "$1" --rw=randwrite --bs=4k --iodepth=4 --size=8m --time_based --runtime=120
	server_listens 30 || return 1
	sleep 5	# connected and writing
}

# A client killed in the middle of a run: its server ends within seconds,
# and fails: no end-of-run request came (GPSPM), no end-of-run notice (APM:
# ours promises one in its connection request, end_notice.hh).
dead_client() {
	local kind=$1 name=$1-dead-client src
	begin_case "$name"
	busy_pair "$kind"
	killed client "$(pid_of client)"
	local killed=$SECONDS
	waited server "$(pid_of server)" 15
	src=$?
	echo "  $name: the server ended $((SECONDS - killed)) s after the kill, status $src (124: still running after 15 s)"
	expect "$name" status server failed
	expect "$name" says server "disconnected before ending the run"
}

# A server killed in the middle of a run: its client fails within seconds.
dead_server() {
	local kind=$1 name=$1-dead-server crc
	begin_case "$name"
	busy_pair "$kind"
	killed server "$(pid_of server)"
	local killed=$SECONDS
	waited client "$(pid_of client)" 20
	crc=$?
	echo "  $name: the client ended $((SECONDS - killed)) s after the kill, status $crc (124: still running after 20 s)"
	expect "$name" status client failed
	expect "$name" says-one-of client "an RDMA operation failed" "the server ended the connection"
}

# The link goes down in the middle of a run (the VM's dummy0 under rxe0):
# rxe then completes nothing and sends no event, but both sides end within
# seconds with a message, from the port state; the link comes back up.
link_down() {
	local kind=$1 name=$1-link-down crc src down
	if [[ -z "${RPMA_TEST_NETDEV:-}" ]]; then
		skip "$name" "no RPMA_TEST_NETDEV: no link the test may take down"
		return
	fi
	begin_case "$name"
	if ! busy_pair "$kind"; then
		fail "$name" "the server did not listen within 30 s (port: $(cat /sys/class/infiniband/*/ports/1/state))"
		kill -9 "$(pid_of server)" "$(pid_of client)" 2>/dev/null
		return
	fi
	ip link set "$RPMA_TEST_NETDEV" down
	down=$SECONDS
	waited client "$(pid_of client)" 30
	crc=$?
	waited server "$(pid_of server)" 30
	src=$?
	ip link set "$RPMA_TEST_NETDEV" up
	link_cycled_by "$name"
	echo "  $name: client $crc, server $src (124: still running) within $((SECONDS - down)) s of the link going down"
	statuses "$name" client=failed server=failed
	expect "$name" says server "went down"
	expect "$name" says-one-of client "went down" "an RDMA operation failed"
}

# Another RDMA device's link goes down (a second rxe device on a dummy
# interface of its own): the connection's port is still up, so the run goes
# on to its end. (Soft-RoCE devices have one port each: a second port of
# the same device, the case of a two-port NIC, is link_test.cc's.)
other_link_down() {
	local name=other-link-down
	if [[ -z "${RPMA_TEST_NETDEV:-}" ]]; then
		skip "$name" "no RPMA_TEST_NETDEV: not in the test VM"
		return
	fi
	begin_case "$name"
	if ! { ip link add rpma-other type dummy && ip addr add 198.51.100.1/24 dev rpma-other &&
		ip link set rpma-other up && rdma link add rxe-other type rxe netdev rpma-other; } \
		>"$(case_dir)/setup.log" 2>&1; then
		fail "$name" "cannot add a second rxe device (setup.log)"
		ip link del rpma-other 2>/dev/null
		return
	fi
	fio_server apm --filename=malloc --size=8m --iodepth=4
	fio_start client apm --rw=randwrite --bs=4k --iodepth=4 --size=8m \
		--time_based --runtime=20 --connect_timeout=30
	server_listens 30
	sleep 5
	ip link set rpma-other down
	ended client:120 server:30
	rdma link delete rxe-other
	ip link del rpma-other
	# not 0: the other device's link ended the run
	statuses "$name" client=ok server=ok
}

# The server is killed and started again on its port while a new client
# connects: the new client waits for it and runs to the end.
server_restart() {
	local kind=$1 name=$1-server-restart
	served_case "$name" "$kind" --filename=malloc --size=4m --iodepth=4
	killed server "$(pid_of server)"
	fio_start client "$kind" --rw=write --bs=4k --iodepth=4 --size=4m \
		--verify=crc32c --connect_timeout=60
	sleep 3
	fio_server "$kind" --filename=malloc --size=4m --iodepth=4
	waited client "$(pid_of client)" 120
	wait_exit "$(pid_of server)" 30
	expect "$name" status client ok
}

# A client range beyond the server's memory is refused before any I/O.
size_too_big() {
	local kind=$1 name=$1-size-too-big
	begin_case "$name"
	fio_server "$kind" --filename=malloc --size=1m
	fio_client "$kind" --rw=write --bs=4k --size=4m
	wait_exit "$(pid_of server)" 15
	expect "$name" status client nonzero
	expect "$name" says client "reaches past the end of the server's memory"
}

# Nobody listens: the client waits connect_timeout seconds, then says so.
no_server() {
	local name=no-server start=$SECONDS
	begin_case "$name"
	fio_client apm --rw=write --bs=4k --size=1m --connect_timeout=3
	fact client.seconds $((SECONDS - start))
	expect "$name" status client nonzero
	# the upper bound is loose: fio alone may take 10 s to start in a busy
	# VM; the old engines' 10 tries of 5 s would pass 45 s
	expect "$name" between client.seconds 3 44
	expect "$name" says client "no server listens at $RPMA_TEST_IP:$(case_port) (gave up after 3 s"
}

# connect_errors: a connect the provider fails (ENGINE_CHECK_CONNECT_ERRNO,
# engine_check.cc), as iWARP's does inside rdma_connect. A refused one
# (ECONNREFUSED, 111: no server listening yet) is waited out on iWARP,
# which refuses so; any other error (EHOSTUNREACH, 113) fails the job at
# once with the provider's word, on every transport, instead of waiting
# connect_timeout= for a server that cannot be reached.
connect_errors() {
	local name=connect-provider-error start
	beside_sanitizers "$name" connect-refused && return
	served_case "$name" apm --filename=malloc --size=1m
	start=$SECONDS
	ENGINE_CHECK_CONNECT_ERRNO=113:1000 LD_PRELOAD=$ENGINE_CHECK \
		fio_client apm --rw=write --bs=4k --size=1m --connect_timeout=30
	fact client.seconds $((SECONDS - start))
	kill "$(pid_of server)" 2>/dev/null
	wait_exit "$(pid_of server)" 15
	expect "$name" status client nonzero
	expect "$name" between client.seconds 0 20
	expect "$name" says client "connecting to $RPMA_TEST_IP:$(case_port) failed: No route to host"
	expect "$name" never-says client "no server listens"

	name=connect-refused
	served_case "$name" apm --filename=malloc --size=1m
	ENGINE_CHECK_CONNECT_ERRNO=111:3 LD_PRELOAD=$ENGINE_CHECK \
		fio_client apm --rw=write --bs=4k --size=1m --connect_timeout=30
	if [[ ${RPMA_TEST_TRANSPORT:-rxe} == siw ]]; then
		wait_exit "$(pid_of server)" 15
		expect "$name" status client ok
		expect "$name" says client "connected after"
	else
		kill "$(pid_of server)" 2>/dev/null
		wait_exit "$(pid_of server)" 15
		# RoCE refuses with an event: a provider error is no refusal
		expect "$name" status client nonzero
		expect "$name" says client "connecting to $RPMA_TEST_IP:$(case_port) failed: Connection refused"
	fi
}

# A client's flush request for a range outside the server's memory, or
# bytes that are no request: the server persists nothing, ends the
# connection and fails its job with the reason.
gpspm_bad_request() {
	local what=$1 name=$1-request message=$2
	rogue_case "$name" gpspm --filename=malloc --size=1m || return
	rogue_run client "$what"
	waited server "$(pid_of server)" 15
	statuses "$name" client=ok server=failed
	expect "$name" says server "$message"
}

# A client that stops answering without a word (its queue pair drops all
# that arrives, the connection still up): the server probes it, gives up
# within about 35 s with the reason, fails its job and ends the connection.
# silent_client KIND [sleeping]: the server spins (busy_wait_polling=1, the
# default) or sleeps between completions (=0), when it checks less often.
silent_client() {
	local kind=$1 name=$1-silent-client${2:+-$2} busy=1
	[[ ${2:-} == sleeping ]] && busy=0
	if [[ ${RPMA_TEST_TRANSPORT:-rxe} == siw ]]; then
		skip "$name" "on iWARP a queue pair in error ends its TCP stream, and so the connection: a peer cannot fall silent so (tests/twohosts' silence case stops the link instead)"
		return
	fi
	rogue_case "$name" "$kind" --filename=malloc --size=1m --busy_wait_polling=$busy || return
	rogue_run client silent
	waited server "$(pid_of server)" 15
	summary
	# the rogue's 0: disconnected by the server
	statuses "$name" client=ok server=failed
	expect "$name" says server "stopped answering"
}

# Least exposure: a client writing past the server's memory gets a remote
# access error, and the server's other connection (numjobs=2: a listener
# per job) serves its client to the end, data verified.
outside_region() {
	local name=outside-region
	rogue_case "$name" apm --filename=malloc --size=1m --numjobs=2 || return
	rogue_run rogue outside
	fio_start client apm --port=$(($(case_port) + 1)) --rw=write --bs=4k --size=1m \
		--verify=crc32c
	waited client "$(pid_of client)" 120
	wait_exit "$(pid_of server)" 30
	# the rogue's 0: it got a remote access error
	statuses "$name" rogue=ok client=ok
}

# A second server on a busy port: refused at once, with the reason.
port_in_use() {
	local name=port-in-use
	served_case "$name" apm --filename=malloc --size=1m
	moved server first-server
	fio_server apm --filename=malloc --size=1m
	waited server "$(pid_of server)" 15
	kill "$(pid_of first-server)" 2>/dev/null
	wait "$(pid_of first-server)" 2>/dev/null
	expect "$name" status server failed
	expect "$name" says server "the port is in use"
}

# The server starts late: the client waits for it (the old engines gave up
# when the server first laid out its file).
late_server() {
	local name=late-server
	begin_case "$name"
	fio_start client apm --rw=write --bs=4k --size=1m --connect_timeout=60
	sleep 8
	fio_server apm --filename=malloc --size=1m
	waited client "$(pid_of client)" 120
	wait_exit "$(pid_of server)" 15
	# the client waited for the server
	expect "$name" status client ok
	expect "$name" says client "connected after"
}

# create_serialize=1 (fio's default) without size=: a message, no crash.
no_size() {
	local name=no-size
	begin_case "$name"
	fio_client apm --rw=write --bs=4k --connect_timeout=1
	# a message, not a crash (a signal's status)
	expect "$name" status client job-error
	expect "$name" says client "set size= or create_serialize=0"
}

# An APM client must not believe a flush of PMem persists what the server
# does not promise (direct_write_to_pmem=0).
apm_pmem_without_dwtp() {
	local name=apm-pmem-without-direct-write
	needs_devdax "$name" || return
	begin_case "$name"
	fio_server apm --filename="$RPMA_TEST_DEVDAX" --size=2m
	fio_client apm --rw=write --bs=4k --size=1m
	wait_exit "$(pid_of server)" 15
	expect "$name" status client nonzero
	expect "$name" says client "use librpma_gpspm_* instead"
}

# FS DAX needs On-Demand Paging, which rxe lacks before kernel 6.15 (Debian
# 12's and 13's): the server says so instead of failing obscurely. Where the
# device has ODP, fsdax_cases (matrix.sh) serve FS DAX instead.
fsdax_without_odp() {
	local name=fsdax-registration-without-odp
	if [[ -z "${RPMA_TEST_FSDAX:-}" ]]; then
		skip "$name" "no FS DAX mount (tests/vm/run --nvdimm)"
		return
	fi
	if has_odp; then
		skip "$name" "the device pages on demand (kernel $(uname -r))"
		return
	fi
	begin_case "$name"
	truncate -s 4m "$RPMA_TEST_FSDAX/$name"
	fio_server gpspm --filename="$RPMA_TEST_FSDAX/$name" --size=4m
	fio_client gpspm --rw=write --bs=4k --size=4m --verify=crc32c --connect_timeout=5
	waited server "$(pid_of server)" 15
	expect "$name" status server nonzero
	expect "$name" says server "needs On-Demand Paging"
	rm -f "$RPMA_TEST_FSDAX/$name"
}

# isolation= of the servers (docs/engines.md, "Isolation of clients"): a
# word that is neither window nor none refuses the job file; the start note
# says which isolation is in force and why, once: by default window on rxe
# (type 2 memory windows), none on siw (none there), where isolation=window
# refuses the job at its start with a word on isolation.
isolation_option() {
	local name=isolation-bad-value
	begin_case "$name"
	fio_server gpspm --isolation=windows --filename=malloc --size=1m
	waited server "$(pid_of server)" 30
	expect "$name" status server nonzero
	expect "$name" says server "isolation=windows is neither window"
	expect "$name" never-says server "waiting for a client"
	name=isolation-default
	begin_case "$name"
	fio_server apm --filename=malloc --size=1m
	fio_client apm --rw=write --bs=4k --size=1m --verify=crc32c
	waited server "$(pid_of server)" 30
	statuses "$name" client=ok server=ok
	expect "$name" count server.log 1 1 contains "isolation="
	if [[ ${RPMA_TEST_TRANSPORT:-rxe} == siw ]]; then
		expect "$name" says server "; isolation=none: siw"
		name=isolation-window-refused
		begin_case "$name"
		fio_server apm --isolation=window --filename=malloc --size=1m
		waited server "$(pid_of server)" 30
		expect "$name" status server nonzero
		expect "$name" says server "isolation=window: siw"
		expect "$name" never-says server "waiting for a client"
	else
		expect "$name" says server "; isolation=window: each client"
	fi
}

# Every error case: those a job or the client reports, then the server's
# own.
error_cases() {
	fio_error_cases
	server_error_cases
}

# The error cases whose outcome passes through fio's side of the engines (a
# job's options, an I/O unit's error, the client's messages): the subset
# check-fio-versions-quick runs with another fio.
fio_error_cases() {
	local kind
	for kind in apm gpspm; do
		dead_server "$kind"
		size_too_big "$kind"
	done
	no_server
	connect_errors
	port_in_use
	outside_region
	no_size
}

# The server's own error cases (a dead, restarted or silent client, a bad
# request, a server that comes late, memory it refuses): they do not depend
# on the fio that loads the engines; check-fio-versions runs them with
# every version.
server_error_cases() {
	local kind
	for kind in apm gpspm; do
		dead_client "$kind"
		server_restart "$kind"
		silent_client "$kind"
	done
	silent_client gpspm sleeping
	gpspm_bad_request gpspm-range "refusing to flush"
	gpspm_bad_request gpspm-garbage "cannot unpack a flush request"
	late_server
	isolation_option
	apm_pmem_without_dwtp
	fsdax_without_odp
}

# The link taken down, last of all cases, once per VM boot: after a down/up
# cycle rxe takes new connections only a minute or more later. APM in the
# quick run (make check), GPSPM in the full one (link_cases quick|full).
link_cases() {
	other_link_down
	if [[ $1 == full ]]; then link_down gpspm; else link_down apm; fi
}
