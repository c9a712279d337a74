# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/twohosts/lib.sh -- sourced in both guests of tests/twohosts/run.
#
# The client guest drives: for each case it posts a script for the server
# guest (D/case.N), waits until the server says it listens (D/N.ready) or
# gave up (D/N.status), runs its own fio, and records a line in D/cases.
# The server guest runs the posted scripts one after the other (serve).
# D is the directory both guests share ($TWOHOSTS_DIR); every wait is
# bounded, so that a hung peer ends as a failure, never as a hang.

: "${TWOHOSTS_DIR:?}" "${SERVERIP:?}"
D=$TWOHOSTS_DIR
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../engine/tests/wait.sh
. "$here/../../engine/tests/wait.sh"
# the engines by bare name, as an installed package provides them (D/lib:
# links made by the host side, check.sh)
export LD_LIBRARY_PATH=$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nic=${RPMA_TEST_NETDEV:-eth0}

wait_file() { # wait_file SECONDS FILE...: true once one of the FILEs exists
	local end=$((SECONDS + $1)) f
	shift
	while ((SECONDS < end)); do
		for f in "$@"; do [[ -e "$f" ]] && return 0; done
		sleep 0.2
	done
	return 1
}

now() { date +%s.%N; }

# netem SPEC...: the NIC's egress as tc netem SPEC says (none: a clean link)
netem() {
	tc qdisc del dev "$nic" root 2>/dev/null || true
	if [[ "$1" != none ]]; then tc qdisc add dev "$nic" root netem "$@"; fi
}

# --- the server guest

# serve: runs each posted case script until the client posts D/end (or
# falls silent for 10 minutes); the script's status goes to D/N.status
serve() {
	local n=1
	while wait_file 600 "$D/case.$n" "$D/end" && [[ -e "$D/case.$n" ]]; do
		netem none
		ip link set "$nic" up
		(cd "$D" && N=$n bash -c ". '$here/lib.sh'; . '$D/case.$n'") \
			>"$D/$n.server.out" 2>&1
		echo $? >"$D/$n.status"
		n=$((n + 1))
	done
}

# serve_fio ARGS...: a server fio (ARGS: the job file or options), in the
# background; D/N.ready once it listens; its status, at most 5 min later
serve_fio() {
	(cd "$D" && exec fio --output-format=json --output="$D/$N.server.json" "$@") \
		>"$D/$N.server.log" 2>&1 &
	local pid=$!
	local end=$((SECONDS + 60))
	until grep -qsF "waiting for a client" "$D/$N.server.log"; do
		if ! kill -0 "$pid" 2>/dev/null || ((SECONDS >= end)); then break; fi
		sleep 0.2
	done
	touch "$D/$N.ready"
	# until it ends, or the client gives up on it (D/N.abandon: the client
	# ended long ago and this server still waits for it); D/N.kill: the
	# client wants it killed (kill -9) in the middle of the run
	end=$((SECONDS + 300))
	while kill -0 "$pid" 2>/dev/null && ((SECONDS < end)) && [[ ! -e "$D/$N.abandon" ]]; do
		if [[ -e "$D/$N.kill" ]]; then
			kill -9 "$pid"
			wait "$pid"
			return 137
		fi
		sleep 0.2
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -9 "$pid"
		wait "$pid"
		return 124
	fi
	wait "$pid"
}

# serve_cmd PROGRAM ARGS...: a server program that is not fio, in the
# background; D/N.ready once an RDMA-CM id listens; its status, at most
# 60 s later
serve_cmd() {
	"$@" >"$D/$N.server.log" 2>&1 &
	local pid=$!
	local end=$((SECONDS + 30))
	until rdma res show cm_id 2>/dev/null | grep -q LISTEN; do
		if ! kill -0 "$pid" 2>/dev/null || ((SECONDS >= end)); then break; fi
		sleep 0.2
	done
	touch "$D/$N.ready"
	wait_exit "$pid" 60
}

# --- the client guest

case_no=0
# post SCRIPT: the server guest runs SCRIPT (bash, with this file sourced
# and N set); true once it listens, false if it ended or never listened
post() {
	case_no=$((case_no + 1))
	printf '%s\n' "$1" >"$D/.case.$case_no"
	mv "$D/.case.$case_no" "$D/case.$case_no"
	wait_file 120 "$D/$case_no.ready" "$D/$case_no.status" && [[ -e "$D/$case_no.ready" ]]
}

# server_status [SECONDS]: the status of the current case's server script,
# waiting at most SECONDS (default 60) for it; then the server fio is
# killed (status 124)
server_status() {
	local st=0
	if ! wait_file "${1:-60}" "$D/$case_no.status"; then
		# the server never noticed that its client ended: 124
		touch "$D/$case_no.abandon"
		wait_file 30 "$D/$case_no.status" || return 125
	fi
	st=$(cat "$D/$case_no.status")
	return "$st"
}

end_serving() { touch "$D/end"; }

# link_alive: whether the server guest answers ARP within 3 s, its entry
# forgotten first (no RDMA connection is up between cases)
link_alive() {
	ip neigh del "$SERVERIP" dev "$nic" 2>/dev/null
	local end=$((SECONDS + 3))
	while ((SECONDS < end)); do
		# any datagram makes the kernel ask for the address
		echo 2>/dev/null >"/dev/udp/$SERVERIP/9"
		ip neigh show "$SERVERIP" dev "$nic" | grep -q REACHABLE && return 0
		sleep 0.5
	done
	return 1
}

# begin NAME METHOD KIND FAULT: a case begins: its line in D/cases
# (tab-separated), its directory D/NAME made anew, printed. What the case
# sees goes there, the files of its fio and the facts (fact), for the
# host's judge.py, which gives the verdict.
begin() {
	local IFS=$'\t'
	rm -rf "${D:?}/$1"
	mkdir -p "$D/$1"
	echo "$*" >>"$D/cases"
	echo "$D/$1"
}

# fact DIR KEY=VALUE...: what the case in DIR saw (exit statuses, times,
# counters), a line each in DIR/facts
fact() {
	local dir=$1
	shift
	printf '%s\n' "$@" >>"$dir/facts"
	echo "case ${dir##*/}: $*"
}

# unheard DIR: the case's server never listened; false
unheard() {
	fact "$1" listened=no
	return 1
}

# server_files DIR: the report and the log of the current case's server
# fio, into DIR
server_files() {
	cp "$D/$case_no.server.json" "$1/server.json" 2>/dev/null
	cp "$D/$case_no.server.log" "$1/server.log" 2>/dev/null
}

# io_bytes FILE DIR: what fio's JSON report FILE says its jobs did in
# direction DIR (read|write), in bytes
io_bytes() { jq "[.jobs[].$2.io_bytes] | add // 0" "$1" 2>/dev/null || echo 0; }

# packets: what rxe0 sent and received so far (its counters): on the
# client that is every RDMA packet on the wire, both ways
packets() {
	rdma statistic show link rxe0/1 2>/dev/null | awk '{
		for (i = 1; i < NF; i++) if ($i == "sent_pkts" || $i == "rcvd_pkts") n += $(i + 1)
	} END { print n + 0 }'
}

# --- the bed's own

# diag: the state of both guests' network and RDMA device, into
# D/diag.server.N and D/diag.client.N (N: the number its post takes)
diag() {
	local n=$((case_no + 1)) what='{ ip -br link; ip -s link show eth0; grep Udp: /proc/net/snmp; ip neigh; tc qdisc show; rdma res show qp; rdma res show cm_id;
		rdma statistic show link rxe0/1; tc -s qdisc show dev $nic; grep -H . /sys/class/net/$nic/queues/tx-*/tx_timeout; dmesg | grep -B3 -A8 -iE "watchdog|timed out|timeout|warning" | head -n 80; dmesg | tail -n 10; } 2>&1'
	begin "diag-$n" - - - >/dev/null
	post "$what >'$D/diag.server.$n'" || true
	server_status 30 || true
	eval "$what" >"$D/diag.client.$n"
}

# deadlink: the bed's test of itself: from now on the server guest's NIC
# sends nothing (netem loss 100 %, renewed every 0.2 s until the guest
# powers off), as a NIC that stopped transmitting; what follows in this
# boot must not be taken for the engines' failure
deadlink() {
	begin deadlink - - - >/dev/null
	post "(while :; do tc qdisc replace dev \$nic root netem loss 100%; sleep 0.2; done) >/dev/null 2>&1 &" || true
	server_status 30 || true
}

# link_died CASE...: after a case whose client or server failed, whether
# the virtual link itself is gone (the server guest no longer answers ARP:
# on a loaded host its NIC has been seen to stop transmitting for good,
# both engines then rightly failing after 30 s). If so: both guests' state
# into D/diag.*, the case's directory moved aside and its line named in
# D/link-died (judge.py lists it as the bed's event, not a case), and the
# CASEs (this one and those not run yet) left in D/rerun for a new boot.
link_died() {
	link_alive && return 1
	local line name
	line=$(wc -l <"$D/cases")
	name=$(tail -n1 "$D/cases" | cut -f1)
	rm -rf "$D/$name.link-died.$line"
	mv "$D/$name" "$D/$name.link-died.$line"
	printf '%s\t%s\t%s\n' "$line" "$((case_no + 1))" "$name.link-died.$line" >>"$D/link-died"
	diag
	printf '%s\n' "$@" >"$D/rerun"
}

# --- three guests: fio's client/server mode

# fio_serve: fio's own server (fio --server) in this guest, for the fio
# --client of the client guest, until D/end (or the bed's --timeout, after
# which the host kills the guest anyway: a bound of its own ended the
# target of an hour's run half-way); D/ROLE.fio-server
# once it listens. D/kill.ROLE asks for this guest's fio to be killed in the
# middle of a run: every process of the server's but the one that listens
# (the one that talks to the fio --client and the one that runs the jobs)
# gets kill -9, as a fio killed by its user or the OOM killer. The file
# holds the case's number N, done once per N; D/kill.ROLE.N.done holds the
# time. One file, rewritten: a guest's view of the shared directory (9p)
# lags behind the names another guest adds or removes, not behind a
# file's contents.
fio_serve() {
	local role=${TWOHOSTS_ROLE:?} pid end p n handled=
	# a directory of its own: the jobs' files (their verify state) have
	# the same names in every guest
	mkdir -p "$D/$role.fio"
	(cd "$D/$role.fio" && exec fio --server) >"$D/$role.fio-server.log" 2>&1 &
	pid=$!
	# a guest of a host at load 40 took over a minute
	end=$((SECONDS + 300))
	until ss -Hltn 'sport = :8765' | grep -q .; do
		if ! kill -0 "$pid" 2>/dev/null || ((SECONDS >= end)); then
			echo "fio_serve: fio --server did not listen on port 8765 in 300 s" >&2
			return 1
		fi
		sleep 0.2
	done
	touch "$D/$role.fio-server"
	end=$((SECONDS + ${TWOHOSTS_TIMEOUT:-900}))
	while [[ ! -e "$D/end" ]] && ((SECONDS < end)) && kill -0 "$pid" 2>/dev/null; do
		n=''
		[[ -e "$D/kill.$role" ]] && read -r n <"$D/kill.$role"
		if [[ -n $n && $n != "$handled" ]]; then
			for p in $(descendants "$pid"); do kill -9 "$p" 2>/dev/null; done
			now >"$D/kill.$role.$n.done"
			handled=$n
		fi
		sleep 0.2
	done
	kill "$pid" 2>/dev/null
	wait "$pid"
	return 0
}

# descendants PID: the processes below PID, children first
descendants() {
	local c
	for c in $(ps -o pid= --ppid "$1"); do
		echo "$c"
		descendants "$c"
	done
}

# fio_servers_up SECONDS ROLE...: true once each ROLE's fio --server listens
fio_servers_up() {
	local end=$((SECONDS + $1)) role
	shift
	for role in "$@"; do
		[[ -e "$D/$role.fio-server" ]] || wait_file $((end - SECONDS)) "$D/$role.fio-server" || return 1
	done
}
