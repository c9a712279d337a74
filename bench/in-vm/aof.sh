# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# bench/in-vm/aof.sh -- BENCH_AOF=1: the append-only log's rows (aof).

# --- the append-only log: appends per second, packets per append ------------
# aof_pair ROUND KIND BS QD NATIVE: one run of the appends of BS bytes
# (KIND aof-apm or aof-gpspm; apm-write and gpspm-write: sequential writes
# of those engines, the yardsticks; aof-MODE-rR: the log kept on R
# replicas, R server jobs of one fio on ports of their own, the client
# appending to all of them, write_quorum=all) at iodepth QD (1: sync=1),
# the client with native_ops=NATIVE;
# one line in $BENCH_RAW/aof: ROW ROUND IOS PACKETS STATUS(client server)
# NATIVE-LINE (what the client said it used); fio's reports in $BENCH_RAW/fio
aof_pair() {
	local r=$1 kind=$2 bs=$3 qd=$4 native=$5 row n=4096 sync=0 bytes mode reps=1 i
	local cmd se ce lib extra=() sextra=() s c cst sst pkts base said ips ports
	row=$kind-bs$bs-qd$qd-native$native
	mode=$kind
	[[ $kind =~ ^(aof-[a-z]+)-r([1-9])$ ]] && mode=${BASH_REMATCH[1]} reps=${BASH_REMATCH[2]}
	# the replicas' rows take 4096 appends at iodepth 1 too: their p99.9
	# is then the fifth slowest append, not the slowest but one
	((qd == 1)) && sync=1
	((qd == 1)) && [[ $mode == "$kind" ]] && n=1024
	base=$BENCH_RAW/fio/$row.r$r
	bytes=$((n * bs))
	impl_fio ours "${mode%%-*}" cmd lib se ce
	[[ $mode == aof-* ]] && extra=(--aof_mode="${mode#aof-}")
	[[ $mode == *gpspm* ]] && sextra=(--iodepth=$((2 * qd)))
	# the replicas' GPSPM servers sleep between requests: R spinning
	# servers and the spinning client would share the guest's 2 CPUs,
	# which servers on hosts of their own do not (every factor alike)
	[[ $mode == *gpspm* && $mode != "$kind" ]] && sextra+=(--busy_wait_polling=0)
	# ports of their own for every run: up to 3 server jobs (job N listens
	# on the base + N - 1), the client naming each replica's
	port=$((port + 3))
	ips=$BENCH_IP ports=$port
	for ((i = 1; i < reps; i++)); do
		ips+=,$BENCH_IP ports+=,$((port + i))
	done
	(cd "$BENCH_WORK" && LD_LIBRARY_PATH=$lib exec "${cmd[@]}" --output-format=json \
		--output="$base.server.json" --name=server "${se[@]}" --serverip="$BENCH_IP" \
		--port="$port" --thread --filename=malloc --size=$((bytes + 4096)) \
		--numjobs="$reps" "${extra[@]}" "${sextra[@]}") >"$base.server.log" 2>&1 &
	s=$!
	wait_listen "$port" "$reps" 60 || say "$row: the server does not listen"
	pkts=$(sent_packets)
	(cd "$BENCH_WORK" && LD_LIBRARY_PATH=$lib exec "${cmd[@]}" --output-format=json \
		--output="$base.client.json" --name=client "${ce[@]}" --serverip="$ips" \
		--port="$ports" --thread --create_serialize=0 --rw=write --bs="$bs" \
		--iodepth="$qd" --sync="$sync" --size="$bytes" --native_ops="$native" \
		"${extra[@]}") >"$base.client.log" 2>&1 &
	c=$!
	wait_exit "$c" 300
	cst=$?
	wait_exit "$s" 60
	sst=$?
	said=$(grep -m1 -o 'flush [^,]*, atomic write .*' "$base.client.log")
	printf '%s\t%s\t%s\t%s\t%s %s\t%s\n' "$row" "$r" "$n" $(($(sent_packets) - pkts)) \
		"$cst" "$sst" "${said:--}" >>"$BENCH_RAW/aof"
	((cst || sst)) && say "$row round $r: status client $cst, server $sst"
	((cst || sst)) || rm -f "$base.server.log" "$base.client.log"
	return 0
}

# aof_runs: every row, round after round; in each round the replicas'
# rows (4096-byte records, both modes, 1, 2 and 3 replicas) after the
# others, the factors one after the other (3, 2, 1 in even rounds: a
# drift of the host's load does not favour one factor)
aof_runs() {
	local port=$BENCH_PORT natives r bs qd native kind mode reps order
	# native_ops=all as well where the kernel's rxe executes both verbs
	natives=none
	[[ ${BENCH_NATIVE:-0} == 1 ]] && natives="none all"
	for ((r = 1; r <= BENCH_ROUNDS; r++)); do
		for bs in 64 512 4096; do
			for qd in 1 16; do
				for native in $natives; do
					for kind in apm-write gpspm-write aof-apm aof-gpspm; do
						# GPSPM posts no flush and no atomic write
						[[ $kind == *gpspm* && $native != none ]] && continue
						[[ $kind-bs$bs-qd$qd-native$native =~ ${BENCH_ROWS:-.} ]] || continue
						say "round $r: $kind bs $bs qd $qd native_ops=$native"
						aof_pair "$r" "$kind" "$bs" "$qd" "$native"
					done
				done
			done
		done
		order="1 2 3"
		((r % 2)) || order="3 2 1"
		for qd in 1 16; do
			for mode in apm gpspm; do
				for reps in $order; do
					kind=aof-$mode-r$reps
					[[ $kind-bs4096-qd$qd-nativenone =~ ${BENCH_ROWS:-.} ]] || continue
					say "round $r: $kind (replicas) bs 4096 qd $qd"
					aof_pair "$r" "$kind" 4096 "$qd" none
				done
			done
		done
	done
}
