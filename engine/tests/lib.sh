# SPDX-License-Identifier: BSD-3-Clause
# engine/tests/lib.sh -- helpers of the engine tests; sourced inside the
# Soft-RoCE VM (tests/vm/run) by in-vm.sh.
#
# A case runs a server fio and a client fio, each with --output-format=json,
# in a directory of its own under $RESULTS. The guest only runs the cases
# (programs start slowly there: python3 takes 20 s): each appends a line to
# $RESULTS/cases, "NAME<TAB>pair<TAB>CLIENT-STATUS SERVER-STATUS" for the
# host's evaluate.py to check the JSON reports of, or
# "NAME<TAB>pass|fail|skip<TAB>REASON" when the guest could judge it (skip:
# the platform lacks what the case needs).

: "${ENGINE_DIR:?}" "${RPMA_TEST_IP:?}" "${RESULTS:?}"
export LD_LIBRARY_PATH=${RPMA_LIB_DIR:+$RPMA_LIB_DIR:}${LD_LIBRARY_PATH:-}
ip=$RPMA_TEST_IP
port=7204	# every case gets ports of its own: no wait for the old ones
case_dir=

engine() { # engine apm_client -> the ioengine= value
	echo "external:$ENGINE_DIR/librpma_$1.so"
}

begin_case() { # begin_case NAME
	case_dir=$RESULTS/$1
	rm -rf "$case_dir"
	mkdir -p "$case_dir"
	port=$((port + 8))
}

record() { # record NAME pair|pass|fail DETAIL
	printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$RESULTS/cases"
	echo "  ran $1: $2${3:+ ($3)}"
}

pass() { # pass NAME [DETAIL]
	record "$1" pass "${2:-}"
}

fail() { # fail NAME REASON: also false
	record "$1" fail "$2"
	return 1
}

skip() { # skip NAME REASON: the platform lacks what the case needs
	record "$1" skip "$2"
}

# has_odp: the RDMA device pages on demand (rxe from kernel 6.15)
has_odp() {
	ibv_devinfo -v -d "${RPMA_TEST_DEV:-rxe0}" 2>/dev/null |
		grep -A1 general_odp_caps | grep -q ODP_SUPPORT
}

# fio_start ROLE KIND ARGS...: a server or client fio (ROLE) of the method
# KIND in the background, in the case directory; FIO_PID is its pid. Its
# standard output, line-buffered so that the engines' notes ("waiting for a
# client") show while it runs, goes to ROLE.json (the notes, then fio's JSON
# report), its errors to ROLE.log. side=old runs the old engines instead
# (interop.sh).
fio_start() {
	local role=$1 kind=$2 cmd engine_args
	shift 2
	if [[ ${side:-new} == old ]]; then
		cmd=(env LD_LIBRARY_PATH="$OLD_RPMA_LIB" "$OLD_FIO")
		# the old client crashed with fio's default create_serialize=1
		engine_args=(--ioengine="librpma_${kind}_$role" --create_serialize=0)
	else
		cmd=(fio)
		engine_args=(--ioengine="$(engine "${kind}_$role")")
	fi
	(cd "$case_dir" && exec stdbuf -oL "${cmd[@]}" --output-format=json \
		--name="$role" "${engine_args[@]}" --serverip="$ip" --port="$port" \
		--thread "$@") >"$case_dir/$role.json" 2>"$case_dir/$role.log" &
	FIO_PID=$!
}

# fio_server KIND ARGS...: SERVER_PID is its pid. It runs in the case
# directory, where filename=malloc must not create a file.
fio_server() {
	fio_start server "$@"
	SERVER_PID=$FIO_PID
}

# fio_client KIND ARGS...: its exit status, at most 5 minutes later
fio_client() {
	fio_start client "$@"
	wait_exit "$FIO_PID" 300
}

# shellcheck source=wait.sh
. "$(dirname "${BASH_SOURCE[0]}")/wait.sh"

# wait_for_text FILE TEXT SECONDS: true once FILE contains TEXT
wait_for_text() {
	local end=$((SECONDS + $3))
	until grep -qF -- "$2" "$1" 2>/dev/null; do
		((SECONDS < end)) || return 1
		sleep 0.2
	done
}

# run_pair NAME KIND "SERVER ARGS" "CLIENT ARGS": the ordinary case; false
# if it already failed here
run_pair() {
	local name=$1 kind=$2 crc src
	begin_case "$name"
	# shellcheck disable=SC2086 # the argument lists are word lists
	fio_server "$kind" $3
	# shellcheck disable=SC2086
	fio_client "$kind" $4
	crc=$?
	wait_exit "$SERVER_PID" 30
	src=$?
	if [[ -e "$case_dir/malloc" ]]; then
		fail "$name" "the server laid out a file named malloc"
	elif ((crc || src)); then
		fail "$name" "exit status: client $crc, server $src"
	else
		record "$name" pair "$crc $src"
	fi
}
