# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# engine/tests/connections.sh -- many connections on one server job: one
# thread serving clients=N, its clients spread over several client fios.
# Sourced by in-vm.sh after lib.sh; connections.py judges the reports in
# the guest, rules.py the statuses on the host.

# connections_case KIND N FIOS: a server job of clients=N (thread=1: the
# job is the fio process, whose memory is sampled) and N client jobs over
# FIOS client fios (thread=1, port_per_job=0), each writing its 256 KiB
# region at random, then reading it back (verify=crc32c). Every job must
# end with 0 errors and its data verified; printed: the time until all N
# were connected, the server's peak memory per connection, its CPU per I/O.
connections_case() {
	local kind=$1 n=$2 fios=$3 name=$1-clients$2 i pids=() rc=0 before=0 after=0 server watcher
	begin_case "$name"
	fio_server "$kind" --thread --clients="$n" --filename=malloc --size=256k --iodepth=2 \
		--busy_wait_polling=0
	server_listens 60 || { fail "$name" "the server did not listen within 60 s"; return; }
	server=$(pid_of server)
	status_kib before "$server" VmRSS
	peak_rss "$server" "$(case_dir)/server.peak-rss" &
	watcher=$!
	for ((i = 1; i <= fios; i++)); do
		fio_start client "$kind" --thread --numjobs=$((n / fios)) --port_per_job=0 \
			--rw=randwrite --bs=4k --iodepth=2 --size=256k --verify=crc32c
		pids+=("$(pid_of client)")
		moved client "client$i"
	done
	for i in "${pids[@]}"; do
		wait_exit "$i" 900 || rc=$?
	done
	fact clients.status "$rc"
	waited server "$server" 60
	# the watcher's last write done (0: the server was gone before it read)
	wait "$watcher"
	read -r after <"$(case_dir)/server.peak-rss" 2>/dev/null
	after=${after:-0}
	# the judge stands on the measurement package, bench/rpma_measure
	PYTHONPATH="$TOP_SRCDIR/bench" python3 "$TOP_SRCDIR/engine/tests/connections.py" "$(case_dir)" "$n" "$before" "$after"
	# not 0: a job that did not end with 0 errors and its data verified
	fact connections.py.status $?
	statuses "$name" clients=ok server=ok connections.py=ok
}

# status_kib VAR PID FIELD: sets VAR to FIELD of /proc/PID/status (VmRSS,
# the resident memory; VmHWM, its peak), in KiB: 0 once PID is gone.
# Builtins only: in the guest starting a process takes up to a second.
status_kib() {
	local k v _
	printf -v "$1" 0
	while read -r k v _; do
		[[ $k == "$3:" ]] && printf -v "$1" %s "$v" && return
	done <"/proc/$2/status" 2>/dev/null
}

# peak_rss PID FILE: FILE holds the peak resident memory of process PID
# (VmHWM, KiB), read again every 0.1 s while PID lives. The server's
# memory is largest once every client is connected and its region
# registered; a sample taken when the server says so came too late where
# the clients' short runs ended it first (32 APM connections, and 256).
peak_rss() {
	local hwm sleeper
	exec {sleeper}<> <(:)
	while [[ -r /proc/$1/status ]]; do
		status_kib hwm "$1" VmHWM
		((hwm)) && echo "$hwm" >"$2"
		read -rt 0.1 -u "$sleeper"
	done
}

# connections_cases quick|full: make check: GPSPM's 32 connections (its
# receive queue shared by all) over two fios; make check-connections: 1,
# 16, 64 and 256 of each method over one, two, four and eight fios
connections_cases() {
	local kind
	if [[ $1 == quick ]]; then
		connections_case gpspm 32 2
		return
	fi
	for kind in apm gpspm; do
		connections_case "$kind" 1 1
		connections_case "$kind" 16 2
		connections_case "$kind" 64 4
		connections_case "$kind" 256 8
	done
}
