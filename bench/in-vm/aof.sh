# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# bench/in-vm/aof.sh -- BENCH_AOF=1: the append-only log's rows (aof).

# --- the append-only log: appends per second, packets per append ------------
# aof_pair ROUND KIND BS QD NATIVE: one run of the appends of BS bytes
# (KIND aof-apm or aof-gpspm; apm-write and gpspm-write: sequential writes
# of those engines, the yardsticks) at iodepth QD (1: sync=1), the client
# with native_ops=NATIVE;
# one line in $BENCH_RAW/aof: ROW ROUND IOS PACKETS STATUS(client server)
# NATIVE-LINE (what the client said it used); fio's reports in $BENCH_RAW/fio
aof_pair() {
	local r=$1 kind=$2 bs=$3 qd=$4 native=$5 row n=4096 sync=0 bytes
	local cmd se ce lib extra=() sextra=() s c cst sst pkts base said
	row=$kind-bs$bs-qd$qd-native$native
	((qd == 1)) && n=1024 sync=1
	base=$BENCH_RAW/fio/$row.r$r
	bytes=$((n * bs))
	impl_fio ours "${kind%%-*}" cmd lib se ce
	[[ $kind == aof-* ]] && extra=(--aof_mode="${kind#aof-}")
	[[ $kind == *gpspm* ]] && sextra=(--iodepth=$((2 * qd)))
	port=$((port + 1))
	(cd "$BENCH_WORK" && LD_LIBRARY_PATH=$lib exec "${cmd[@]}" --output-format=json \
		--output="$base.server.json" --name=server "${se[@]}" --serverip="$BENCH_IP" \
		--port="$port" --thread --filename=malloc --size=$((bytes + 4096)) \
		"${extra[@]}" "${sextra[@]}") >"$base.server.log" 2>&1 &
	s=$!
	wait_listen "$port" 1 60 || say "$row: the server does not listen"
	pkts=$(sent_packets)
	(cd "$BENCH_WORK" && LD_LIBRARY_PATH=$lib exec "${cmd[@]}" --output-format=json \
		--output="$base.client.json" --name=client "${ce[@]}" --serverip="$BENCH_IP" \
		--port="$port" --thread --create_serialize=0 --rw=write --bs="$bs" \
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

# aof_runs: every row, round after round
aof_runs() {
	local port=$BENCH_PORT natives r bs qd native kind
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
	done
}
