# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# bench/in-vm/matrix.sh -- bench/in-vm.sh's default mode: perftest,
# rpma-bench, and the fio rows of ours and the reference, round after round;
# the packets per I/O of the single-job 4 KiB rows first. Writes runs,
# packets, fio/, perftest/, rpma-bench/.

# --- perftest: the verbs baseline ------------------------------------------
# perftest TEST SIZE ROUND
perftest() {
	local t=$1 size=$2 r=$3 iters out s st
	case $t in
	*_lat) iters=1000 ;;
	*) iters=2000 ;;
	esac
	out=$BENCH_RAW/perftest/$t.$size.r$r.txt
	# perftest times with the CPU's cycle counter; when it cannot tell the
	# counter's frequency (a noisy sample, common under emulation), its
	# latencies come out as "inf", or it makes no report at all (status 1):
	# try again, five times at most
	for _ in 1 2 3 4 5; do
		port=$((port + 1))
		(cd "$BENCH_WORK" && exec "$t" -d "$BENCH_DEV" -R -s "$size" -n "$iters" -p "$port") >"$out.server" 2>&1 &
		s=$!
		wait_listen "$port" 1 30 || say "$t: the server does not listen"
		"$t" -d "$BENCH_DEV" -R -s "$size" -n "$iters" -p "$port" "$BENCH_IP" >"$out" 2>&1 &
		wait_exit $! 120
		st=$?
		# a client that gave up leaves its server waiting for nobody
		((st)) && kill "$s" 2>/dev/null
		wait_exit "$s" 30
		rm -f "$out.server"
		((st == 0)) && ! grep -q ' inf ' "$out" && break
		((st)) || st=inf
	done
	[[ $st == 0 ]] || say "$t -s $size: status $st"
}

# --- rpma-bench: the library's own overhead --------------------------------
# rpma_bench IMPL ROUND SIZES
rpma_bench() {
	local impl=$1 r=$2 lib=$RPMA_LIB_DIR s st
	[[ $impl == ref ]] && lib=$OLD_RPMA_LIB
	port=$((port + 1))
	LD_LIBRARY_PATH=$lib "$RPMA_BENCH" server "$BENCH_IP" "$port" --size 1m \
		>"$BENCH_RAW/rpma-bench/$impl.r$r.server.log" 2>&1 &
	s=$!
	wait_listen "$port" 1 30 || say "rpma-bench: the server does not listen"
	LD_LIBRARY_PATH=$lib "$RPMA_BENCH" client "$BENCH_IP" "$port" --iterations 1000 \
		--bs "$3" --json >"$BENCH_RAW/rpma-bench/$impl.r$r.json" 2>"$BENCH_RAW/rpma-bench/$impl.r$r.log" &
	wait_exit $! 300
	st=$?
	wait_exit "$s" 30
	((st)) && say "rpma-bench on $impl's librpma: status $st"
}

# --- fio: our engines and library against the reference ---------------------
# fio_pair IMPL ROUND KIND RW BS IODEPTH SYNC NUMJOBS BUSY
# ROUND "count": instead of a timed run, COUNT_IOS I/Os whose packets are
# counted (one line in $BENCH_RAW/packets)
COUNT_IOS=4096
fio_pair() {
	local impl=$1 r=$2 kind=$3 rw=$4 bs=$5 qd=$6 sync=$7 nj=$8 busy=$9
	local row=$kind-$rw-bs$bs-qd$qd-nj$nj cmd se ce lib extra=() s c cst sst
	local length=(--time_based --ramp_time=1 --runtime="$BENCH_RUNTIME") pkts
	[[ $kind == gpspm ]] && row+=-busy$busy
	local base=$BENCH_RAW/fio/$row.$impl.r$r
	if [[ $r == count ]]; then
		length=(--number_ios="$COUNT_IOS")
		pkts=$(sent_packets)
	fi
	impl_fio "$impl" "$kind" cmd lib se ce
	export LD_LIBRARY_PATH=$lib
	# the old client needs create_serialize=0; ours takes it too
	ce+=(--create_serialize=0)
	# GPSPM: the reference server overruns its array of received messages
	# (and aborts at exit, heap corrupted) when all of its iodepth receives
	# are queued at once, as they can be with a client of the same iodepth:
	# both servers get twice the client's
	local sqd=$qd
	[[ $kind == gpspm ]] && extra=(--busy_wait_polling="$busy") sqd=$((2 * qd))
	port=$((port + 8))
	(cd "$BENCH_WORK" && exec "${cmd[@]}" --output-format=json --output="$base.server.json" \
		--name=server "${se[@]}" --serverip="$BENCH_IP" --port="$port" --thread \
		--numjobs="$nj" --group_reporting --filename=malloc --size=16m \
		--iodepth="$sqd" "${extra[@]}") >"$base.server.log" 2>&1 &
	s=$!
	wait_listen "$port" "$nj" 60 || say "$row $impl: the server does not listen"
	(cd "$BENCH_WORK" && exec "${cmd[@]}" --output-format=json --output="$base.client.json" \
		--name=client "${ce[@]}" --serverip="$BENCH_IP" --port="$port" --thread \
		--numjobs="$nj" --group_reporting --rw="$rw" --bs="$bs" --iodepth="$qd" \
		--sync="$sync" --size=16m --lat_percentiles=1 "${length[@]}") \
		>"$base.client.log" 2>&1 &
	c=$!
	wait_exit "$c" $((BENCH_RUNTIME + 120))
	cst=$?
	wait_exit "$s" 30
	sst=$?
	unset LD_LIBRARY_PATH
	if [[ $r == count ]]; then
		printf '%s\t%s\t%s\t%s\t%s %s\n' "$row" "$impl" \
			$(($(sent_packets) - pkts)) $((COUNT_IOS * nj)) "$cst" "$sst" >>"$BENCH_RAW/packets"
		rm -f "$base".*
		return 0
	fi
	printf '%s\t%s\t%s\t%s %s\n' "$row" "$impl" "$r" "$cst" "$sst" >>"$BENCH_RAW/runs"
	((cst || sst)) && say "$row $impl round $r: status client $cst, server $sst"
	# the logs only matter when something failed
	((cst || sst)) || rm -f "$base.server.log" "$base.client.log"
	return 0
}


# The rows: KIND RW BS IODEPTH SYNC NUMJOBS BUSY, of the plan of
# $BENCH_MODE (bench/plans/quick.json, full.json), which bench/run expanded
# on the host (bench/rows.py) into $BENCH_RAW/rows
rows() {
	cat "$BENCH_RAW/rows"
}

# baselines ROUND: perftest, then rpma-bench on either library (in the
# order matrix_runs says, with its sizes)
baselines() {
	say "round $1: perftest"
	for size in ${sizes//,/ }; do
		for t in ib_write_lat ib_read_lat ib_send_lat; do
			perftest "$t" "$size" "$1"
		done
		for t in ib_write_bw ib_read_bw; do
			perftest "$t" "$size" "$1"
		done
	done
	say "round $1: rpma-bench"
	for impl in $order; do
		rpma_bench "$impl" "$1" "$sizes"
	done
}
# matrix_runs: the packets per I/O, then the rounds
matrix_runs() {
	local port=$BENCH_PORT sizes all_rows order r i row impl k rw bs qd sync nj busy
	sizes=4096
	[[ $BENCH_MODE == full ]] && sizes=512,4096,65536
	# BENCH_ROWS: only the rows whose name (e.g. apm-write-bs4k-qd1-nj1)
	# matches this regular expression
	mapfile -t all_rows < <(rows | while read -r k rw bs qd sync nj busy; do
		name=$k-$rw-bs$bs-qd$qd-nj$nj
		[[ $k == gpspm ]] && name+=-busy$busy
		[[ $name =~ ${BENCH_ROWS:-.} ]] && echo "$k $rw $bs $qd $sync $nj $busy"
	done)
	say "$BENCH_MODE: ${#all_rows[@]} fio rows x 2 implementations x $BENCH_ROUNDS rounds, ${BENCH_RUNTIME} s each"
	# What each I/O costs the transport, from the device's packet counters:
	# the same every time, unlike the timings. Single-job rows at 4 KiB.
	if [[ -n $(sent_packets) ]]; then
		for row in "${all_rows[@]}"; do
			read -r k rw bs qd sync nj busy <<<"$row"
			[[ $bs == 4k && $nj == 1 ]] || continue
			say "packets per I/O: $row"
			for impl in ours ref; do
				# shellcheck disable=SC2086 # a row is a word list
				fio_pair "$impl" count $row
			done
		done
	else
		say "the device has no packet counters (rdma statistic): no packets per I/O"
	fi
	for ((r = 1; r <= BENCH_ROUNDS; r++)); do
		# which implementation goes first alternates with the rounds
		if ((r % 2)); then order="ours ref"; else order="ref ours"; fi
		[[ ${BENCH_FIO_ONLY:-0} == 1 ]] || baselines "$r"
		i=0
		for row in "${all_rows[@]}"; do
			i=$((i + 1))
			say "round $r: fio $i/${#all_rows[@]}: $row"
			for impl in $order; do
				# shellcheck disable=SC2086 # a row is a word list
				fio_pair "$impl" "$r" $row
			done
		done
	done
}
