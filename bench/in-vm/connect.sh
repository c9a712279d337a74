# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# bench/in-vm/connect.sh -- BENCH_CONNECT=1: rpma-bench --connections
# (connect/).

# --- connecting: rpma-bench --connections, no fio ------------------------------
# connect_run IMPL N HOW ROUND: one server, one client opening N connections
# (HOW: concurrent or one-by-one); IMPL ours, ref, or ours-window (ours, the
# server binding a memory window for each connection); one line in
# $BENCH_RAW/connect/list: IMPL N HOW ROUND CLIENT-STATUS SERVER-STATUS
connect_run() {
	local impl=$1 n=$2 how=$3 r=$4 lib=$RPMA_LIB_DIR s st sst base args=() sargs=()
	[[ $impl == ref ]] && lib=$OLD_RPMA_LIB
	[[ $impl == ours-window ]] && sargs=(--windows)
	[[ $how == one-by-one ]] && args=(--one-by-one)
	base=$BENCH_RAW/connect/$impl.n$n.$how.r$r
	port=$((port + 1))
	LD_LIBRARY_PATH=$lib "$RPMA_BENCH" server "$BENCH_IP" "$port" --connections "$n" "${sargs[@]}" \
		>"$base.server.log" 2>&1 &
	s=$!
	wait_listen "$port" 1 30 || say "connect: the server does not listen"
	LD_LIBRARY_PATH=$lib "$RPMA_BENCH" client "$BENCH_IP" "$port" --connections "$n" "${args[@]}" \
		--json >"$base.json" 2>"$base.log" &
	wait_exit $! 300
	st=$?
	# a client that failed leaves its server waiting for nobody
	((st)) && kill "$s" 2>/dev/null
	wait_exit "$s" 60
	sst=$?
	echo "$impl $n $how $r $st $sst" >>"$BENCH_RAW/connect/list"
	say "connect $impl n$n $how round $r: status $st $sst $(<"$base.json")"
}

# connect_runs: 1, 16, 64 and 256 connections: ours, the reference, and ours
# with a window per connection
connect_runs() {
	local port=$BENCH_PORT r order=(ours ours-window ref) n how impl
	mkdir -p "$BENCH_RAW/connect"
	for ((r = 1; r <= BENCH_ROUNDS; r++)); do
		for n in 1 16 64 256; do
			for how in concurrent one-by-one; do
				for impl in "${order[@]}"; do
					connect_run "$impl" "$n" "$how" "$r"
				done
				# which goes first rotates from one N and way to the next
				order=("${order[@]:1}" "${order[0]}")
			done
		done
	done
}
