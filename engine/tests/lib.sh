# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# engine/tests/lib.sh -- helpers of the engine tests; sourced inside the
# Soft-RoCE VM (tests/vm/run) by in-vm.sh.
#
# A case runs a server fio and a client fio, each with --output-format=json
# (or $format: json+, normal,json), in a directory of its own under
# $RESULTS; each fio output file there is listed with its format in the
# case's "formats" file, and evaluate.py parses every one of them. The guest only runs the cases
# (programs start slowly there: python3 takes 20 s): each appends a line to
# $RESULTS/cases, "NAME<TAB>pair<TAB>CLIENT-STATUS SERVER-STATUS" for the
# host's evaluate.py to check with the JSON reports, "NAME<TAB>judge<TAB>DIR"
# for it to judge by the rules the case stated (expect) over the facts it
# recorded (fact, waited) and the files it left in DIR (rules.py),
# "NAME<TAB>fail<TAB>REASON" for a case the guest could not set up (no
# rogue client, no second device, no Device DAX for the old GPSPM client),
# or "NAME<TAB>skip<TAB>REASON" when it could not run here (no Device DAX,
# no native verbs in this kernel).

: "${ENGINE_DIR:?}" "${RPMA_TEST_IP:?}" "${RESULTS:?}"
export LD_LIBRARY_PATH=${RPMA_LIB_DIR:+$RPMA_LIB_DIR:}${LD_LIBRARY_PATH:-}
# the stock fio, given the sanitizers' runtime (FIO_PRELOAD) when the
# engines are built with them: fio itself is not instrumented
FIO=(fio)
if [[ -n "${FIO_PRELOAD:-}" ]]; then
	FIO=(env LD_PRELOAD="$FIO_PRELOAD" fio)
	# a fio with ASan's runtime takes several seconds more to end (its
	# leak check, in the emulated VM): the cases' bounds on how soon a
	# process ends are tripled
	export WAIT_SCALE=3
fi
readonly FIO
# The state of the case that runs, this file's own: the other files ask
# for it (case_dir, case_port, pid_of) and change it through begin_case,
# use_case and link_cycled_by.
current_dir=
current_port=7204	# every case gets ports of its own: no wait for the old ones
case_start=$SECONDS	# when the case began (summary)
# the case that took the link down (errors.sh, link_down): after that rxe
# takes no new connection for a minute or more, so no case may follow it
cycled_by=

engine() { # engine apm_client -> the ioengine= value
	echo "external:$ENGINE_DIR/librpma_$1.so"
}

begin_case() { # begin_case NAME
	[[ -z $cycled_by ]] ||
		fail "$1-order" "begun after $cycled_by, whose link cycle stops new connections: move it before link_cases"
	use_case "$RESULTS/$1" $((current_port + 8))
	case_start=$SECONDS
	rm -rf "$current_dir"
	mkdir -p "$current_dir"
}

# use_case DIR PORT: the case directory and the port of what follows
use_case() {
	current_dir=$1 current_port=$2
}

case_dir() { # the case's directory
	echo "$current_dir"
}

case_port() { # the case's port (the first, where it takes more)
	echo "$current_port"
}

# link_cycled_by NAME: case NAME took the link down and up: no case may
# begin after it
link_cycled_by() {
	cycled_by=$1
}

record() { # record NAME pair|judge|fail|skip DETAIL
	printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$RESULTS/cases"
	echo "  ran $1: $2${3:+ ($3)}"
}

skip() { # skip NAME REASON: the case cannot run here
	record "$1" skip "$2"
}

fail() { # fail NAME REASON: also false
	record "$1" fail "$2"
	return 1
}

# fact KEY VALUE: what the case that runs saw (an exit status, seconds, a
# count), for the rules of its verdicts
fact() {
	printf '%s\t%s\n' "$1" "$2" >>"$current_dir/facts"
}

# waited ROLE PID SECONDS: wait_exit's status of ROLE's process (124: it
# still ran after SECONDS), also the fact ROLE.status
waited() {
	local status
	wait_exit "$2" "$3"
	status=$?
	fact "$1.status" "$status"
	return "$status"
}

# ended ROLE:SECONDS...: waited ROLE "$(pid_of ROLE)" SECONDS, for each
# ROLE in turn
ended() {
	local role
	for role; do
		waited "${role%%:*}" "$(pid_of "${role%%:*}")" "${role##*:}"
	done
}

# expect NAME RULE ARG...: verdict NAME holds to RULE (rules.py: status,
# says, between...) over the case directory that runs; evaluate.py judges
# it on the host. Its first rule enters NAME in $RESULTS/cases, so a
# verdict's rules follow what they judge.
#   expect "$name" status server failed
#   expect "$name" says server "disconnected before ending the run"
expect() {
	local name=$1 verdict='' _
	shift
	if [[ -f "$current_dir/expect" ]]; then
		while IFS=$'\t' read -r verdict _; do
			[[ $verdict == "$name" ]] && break
		done <"$current_dir/expect"
	fi
	[[ $verdict == "$name" ]] || record "$name" judge "${current_dir##*/}"
	local IFS=$'\t'
	printf '%s\t%s\n' "$name" "$*" >>"$current_dir/expect"
}

# statuses NAME ROLE=VERDICT...: expect NAME status ROLE VERDICT, for each
statuses() {
	local name=$1 rule
	shift
	for rule; do
		expect "$name" status "${rule%%=*}" "${rule#*=}"
	done
}

# output_file FILE FORMAT: FILE, in the case directory, holds fio's report
# in FORMAT (--output-format=)
output_file() {
	printf '%s\t%s\n' "$1" "$2" >>"$current_dir/formats"
}

# killed ROLE PID: kills fio ROLE (-9) before it could write its report
killed() {
	kill -9 "$2" 2>/dev/null
	wait "$2" 2>/dev/null
	mv "$current_dir/$1.json" "$current_dir/$1.killed"
	sed -i "/^$1\.json\t/d" "$current_dir/formats"
}

# needs_devdax NAME: true where the guest has a Device DAX
# (RPMA_TEST_DEVDAX); else false, case NAME recorded SKIP
needs_devdax() {
	[[ -n "${RPMA_TEST_DEVDAX:-}" ]] || { skip "$1" "no Device DAX (tests/vm/run --nvdimm)"; return 1; }
}

# beside_sanitizers NAME...: true, each case NAME recorded SKIP, where fio
# runs with the sanitizers' runtime (FIO_PRELOAD): the cases that need
# engine_check in fio cannot run there, as engine_check interposes free()
# and the runtime must come first and owns the heap
beside_sanitizers() {
	[[ -n "${FIO_PRELOAD:-}" ]] || return 1
	local name
	for name; do
		skip "$name" "needs engine_check in fio, which cannot run beside the sanitizers' runtime"
	done
}

# has_odp: the RDMA device pages on demand (rxe from kernel 6.15)
has_odp() {
	ibv_devinfo -v -d "${RPMA_TEST_DEV:-rxe0}" 2>/dev/null |
		grep -A1 general_odp_caps | grep -q ODP_SUPPORT
}

# odp_offsets_lost: the ODP probe (ODP_PROBE: tests/integration/odp-probe),
# run once per run of the suite, found this kernel misplacing data within a
# page of an On-Demand Paging region (rxe of Linux 7.2); odp_defect then
# says how. Without the probe nothing is known: false.
odp_offsets_lost() {
	if [[ -z "${odp_probe_said+set}" ]]; then
		odp_probe_said=
		if [[ -x "${ODP_PROBE:-}" ]]; then
			odp_probe_said=$("$ODP_PROBE" "$RPMA_TEST_IP")
			echo "ODP probe (status $?): $odp_probe_said"
		fi
	fi
	[[ $odp_probe_said == "odp-probe: offsets lost: "* ]]
}

odp_defect() { # how the kernel's ODP loses offsets, once odp_offsets_lost said so
	echo "${odp_probe_said#odp-probe: offsets lost: }"
}

# fio_start ROLE KIND ARGS...: a server or client fio (ROLE) of the method
# KIND in the background, in the case directory; pid_of ROLE is its pid. Its
# standard output, line-buffered so that notes printed with the normal
# output show while it runs, goes to ROLE.json (fio's report in $format,
# json by default), its errors and the engines' notes in json formats to
# ROLE.log. side=old runs the old engines instead (interop.sh); fio_wrapper,
# an array, a command that runs fio (races.sh: valgrind).
fio_start() {
	local role=$1 kind=$2 cmd engine_args fmt=${format:-json}
	shift 2
	if [[ ${side:-new} == old ]]; then
		cmd=(env LD_LIBRARY_PATH="$OLD_RPMA_LIB" "$OLD_FIO")
		# the old client crashed with fio's default create_serialize=1
		engine_args=(--ioengine="librpma_${kind}_$role" --create_serialize=0)
	else
		cmd=(${fio_wrapper[@]+"${fio_wrapper[@]}"} "${FIO[@]}")
		engine_args=(--ioengine="$(engine "${kind}_$role")")
	fi
	# the old engines print notes into the report: nothing to fix there
	output_file "$role.json" "$fmt${side:+ $side}"
	# the files are opened here, not in the background: a case may move
	# them (moved) as soon as this returns
	local out err
	exec {out}>"$current_dir/$role.json" {err}>"$current_dir/$role.log"
	(cd "$current_dir" && exec stdbuf -oL "${cmd[@]}" --output-format="$fmt" \
		--name="$role" "${engine_args[@]}" --serverip="$RPMA_TEST_IP" --port="$current_port" \
		--thread "$@") >&"$out" 2>&"$err" {out}>&- {err}>&- &
	echo $! >"$current_dir/$role.pid"
	exec {out}>&- {err}>&-
}

# pid_of ROLE: the pid of the last fio ROLE that fio_start started in this
# case (its output files may since have moved)
pid_of() {
	local pid
	read -r pid <"$current_dir/$1.pid"
	echo "$pid"
}

# ending_when FILE: sets companion to the options of a job that ends its
# fio's other jobs (exitall) once the case creates FILE in its directory
# (told FILE), at most 300 s on: a job that ran for a fixed time ended them
# too soon in a slow VM, or made every run wait for the slowest
ending_when() {
	# shellcheck disable=SC2034 # the caller's local, given to fio_start
	companion=(--exitall --name=companion --ioengine=null --size=1m --rw=read
		"--exec_prerun=timeout 300 sh -c 'until [ -e $1 ]; do sleep 0.2; done'")
}

told() { # told FILE: what ending_when FILE waits for
	touch "$current_dir/$1"
}

# fio_server KIND ARGS...: pid_of server is its pid. It runs in the case
# directory, where filename=malloc must not create a file.
fio_server() {
	fio_start server "$@"
}

# served_case NAME KIND SERVER_ARGS...: begins case NAME with a server fio
# of KIND and SERVER_ARGS, waited for (30 s at most) to listen: one that
# does not is judged by its status
served_case() {
	begin_case "$1"
	shift
	fio_server "$@"
	server_listens 30
	return 0
}

# fio_client KIND ARGS...: its exit status (the fact client.status), at
# most 5 minutes later
fio_client() {
	fio_start client "$@"
	waited client "$(pid_of client)" 300
}

# shellcheck source=wait.sh
. "$(dirname "${BASH_SOURCE[0]}")/wait.sh"

# server_connections: how many connections the server has established on
# the case's port (its ends, not the clients'); the cases poll it, so it
# reads the port itself rather than through a subshell of case_port
server_connections() {
	rdma res show cm_id 2>/dev/null | grep -c "state CONNECT .*src-addr $RPMA_TEST_IP:$current_port "
}

# await_connections N SECONDS [PID]: true once the server has N
# connections; false after SECONDS, or once process PID (their clients)
# ended
await_connections() {
	local end=$((SECONDS + $2))
	until (($(server_connections) == $1)); do
		((SECONDS < end)) && { [[ -z ${3:-} ]] || kill -0 "$3" 2>/dev/null; } || return 1
		sleep 0.2
	done
}

# wait_for_text FILE TEXT SECONDS: true once FILE contains TEXT (the rogue
# peers' notes, safety.sh)
wait_for_text() {
	local end=$((SECONDS + $3))
	until grep -qF -- "$2" "$1" 2>/dev/null; do
		((SECONDS < end)) || return 1
		sleep 0.2
	done
}

# server_listens SECONDS: true once the server fio said that it waits for a
# client (a note: on its standard output or its standard error, by format)
server_listens() {
	local end=$((SECONDS + $1))
	until grep -qsF "waiting for a client" "$current_dir/server.log" "$current_dir/server.json"; do
		((SECONDS < end)) || return 1
		sleep 0.2
	done
}

# moved ROLE NEW: ROLE's output files and pid become NEW's (pid_of NEW), so
# that a second ROLE fio can start in the case directory
moved() {
	local f
	for f in json log pid; do
		mv "$current_dir/$1.$f" "$current_dir/$2.$f"
	done
	sed -i "s/^$1\.json\t/$2.json\t/" "$current_dir/formats"
}

# record_pair NAME CLIENT-STATUS SERVER-STATUS: pair case NAME ran, for
# evaluate.py to judge (the statuses, the reports); false unless both
# statuses are 0, so that what a case checks after its pair (the server's
# notes, its memory) is stated only after a pair that ended well
record_pair() {
	record "$1" pair "$2 $3"
	(($2 == 0 && $3 == 0))
}

# run_pair NAME KIND "SERVER ARGS" "CLIENT ARGS": the ordinary case; false
# unless both fios ended with 0
run_pair() {
	local name=$1 kind=$2 crc src
	begin_case "$name"
	# shellcheck disable=SC2086 # the argument lists are word lists
	fio_server "$kind" $3
	# shellcheck disable=SC2086
	fio_client "$kind" $4
	crc=$?
	wait_exit "$(pid_of server)" 30
	src=$?
	record_pair "$name" "$crc" "$src"
}

# The rogue cases (hostile.sh, errors.sh, safety.sh): a peer of our own
# making (ROGUE_CLIENT: engine/tests/rogue_client.cc; ROGUE_SERVER:
# rogue_server.cc) does to a fio of ours what no engine does, and the case
# states what each side must have seen (expect).

# rogue_case NAME KIND SERVER_ARGS...: served_case NAME, whose rogue is
# ROGUE_CLIENT: without it false, the case recorded FAIL
rogue_case() {
	[[ -x "${ROGUE_CLIENT:-}" ]] || { fail "$1" "no ROGUE_CLIENT"; return; }
	served_case "$@"
}

# rogue_start ROLE ARGS...: the rogue (rogue_program, by default
# ROGUE_CLIENT; bound to rogue_bound seconds by timeout where set) in the
# background, given the test's address, the case's port and ARGS, its
# output in ROLE.log; pid_of ROLE is its pid
rogue_start() {
	local role=$1
	shift
	${rogue_bound:+timeout "$rogue_bound"} "${rogue_program:-$ROGUE_CLIENT}" "$RPMA_TEST_IP" \
		"$current_port" "$@" >"$current_dir/$role.log" 2>&1 &
	echo $! >"$current_dir/$role.pid"
}

# rogue_run ROLE ARGS...: rogue_start's rogue to its end: its status, also
# the fact ROLE.status
rogue_run() {
	local status
	rogue_start "$@"
	wait "$(pid_of "$1")"
	status=$?
	fact "$1.status" "$status"
	return "$status"
}

# summary [ROLE]: a line of the log on the case that ran: its facts
# (ROLE.status as ROLE), its seconds and the last line ROLE wrote (the
# rogue's)
summary() {
	local facts
	facts=$(awk -F '\t' '{ sub(/\.status$/, "", $1); printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }' \
		"$current_dir/facts" 2>/dev/null)
	echo "  ${current_dir##*/}: $facts ($((SECONDS - case_start)) s)${1:+; $(tail -1 "$current_dir/$1.log")}"
}
