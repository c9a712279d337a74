# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# bench/in-vm/scaling.sh -- BENCH_SCALING=1: the scaling rows and the
# latency baselines (scaling/, latbase/).

# --- scaling: many jobs, each its own connection ------------------------------
# Builtins only where it can be: in the guest starting a process takes up
# to a second.
# rss_kb PID: the process's resident memory, from its page tables
# (smaps_rollup), not from the counters behind VmRSS, which lag per thread
# before Linux 6.2
rss_kb() {
	local k v _
	while read -r k v _; do
		[[ $k == Rss: ]] && echo "$v" && return
	done <"/proc/$1/smaps_rollup" 2>/dev/null
}
# ticks VAR PID: sets VAR to utime + stime of all of the process's threads
# (clock ticks), - when it is gone
ticks() {
	local s v
	printf -v "$1" -
	{ read -r s <"/proc/$2/stat"; } 2>/dev/null || return 0
	# the fields after the name: state is [0], utime [11], stime [12]
	read -ra v <<<"${s##*) }"
	printf -v "$1" %s $((v[11] + v[12]))
}
# sample VAR SERVER-PID CLIENT-PID: sets VAR to the guest's CPU ticks
# (user nice system idle iowait irq softirq), its softirq threads'
# (utime + stime, all CPUs: the kernel's share of the work, rxe's), the
# packets the device has sent, the server's and the client's ticks and
# the time (s)
sample() {
	local f s comm v k=0 p=- st ct
	for f in /proc/[0-9]*/stat; do
		{ read -r s <"$f"; } 2>/dev/null || continue
		comm=${s#*(} comm=${comm%)*}
		[[ $comm == ksoftirqd/* ]] || continue
		read -ra v <<<"${s##*) }"
		k=$((k + v[11] + v[12]))
	done
	{ read -r p <"/sys/class/infiniband/$BENCH_DEV/ports/1/hw_counters/sent_pkts"; } 2>/dev/null
	ticks st "$2"
	ticks ct "$3"
	read -ra v </proc/stat
	printf -v "$1" '%s,' "${v[@]:1:7}" "$k" "$p" "$st" "$ct" "$EPOCHREALTIME"
}
# The steady state: the client's jobs log each I/O (write_iops_log, from
# the job's own thread: fio's averaged logs come from its helper thread,
# which the spinning jobs starve for seconds) from their start, right
# after their own connection, until the watcher stops the run STEADY_S
# seconds after all connections were up; scaling.py takes the window
# from shortly after the last connection to the stop. No ramp_time: a
# job starved for seconds ends its ramp late, and its I/Os until then
# would be missing from the window.
STEADY_S=$((BENCH_RUNTIME + 3))
STALL_S=60
# watch_pair NJ SERVER-PID CLIENT-PID T0 CLIENT-LOG SERVER-LOG SAMPLES:
# what scale_pair notes while the pair runs, on one line: the
# microseconds from T0 (the client's start) until the client's first
# RDMA-CM id and until the last of the 2 NJ ends has its connection
# established (cm-log.cc's lines), the server's RSS then, the ends
# established, and how it stopped the client (SIGINT): 1 STEADY_S
# seconds after the last, 2 when no end came up for STALL_S seconds
# (connections that time out in a starved guest leave the others running
# until runtime=), 0 not at all; meanwhile a sample (sample's line) every
# 0.5 s into SAMPLES. At real-time priority, and builtins only: in the guest a
# process takes up to a second to start, and busy-polling clients would
# starve a normal one for longer.
watch_pair() {
	local nj=$1 s=$2 c=$3 t0=$4 tf=- tc=- r1=- x stopped=0 sleeper f w t n=0 last first=0 k v _
	local seen=0 since=$SECONDS
	chrt -f -p 10 "$BASHPID" >/dev/null 2>&1
	# read -t on a pipe nobody writes: a sleep without a process
	exec {sleeper}<> <(:)
	while kill -0 "$c" 2>/dev/null; do
		n=0 last=0
		for f in "$5" "$6"; do
			[[ -f $f ]] || continue
			while read -r w t _; do
				[[ $w == first_id && $f == "$5" ]] && first=$t
				[[ $w == established ]] && n=$((n + 1)) && ((t > last)) && last=$t
			done <"$f"
		done
		if ((n >= 2 * nj)); then
			while read -r k v _; do
				[[ $k == Rss: ]] && r1=$v
			done <"/proc/$s/smaps_rollup"
			tc=$((last - t0))
			((first)) && tf=$((first - t0))
			break
		fi
		((n > seen)) && seen=$n since=$SECONDS
		if ((SECONDS - since >= STALL_S)); then
			kill -INT "$c" 2>/dev/null && stopped=2
			break
		fi
		read -rt 0.1 -u "$sleeper"
	done
	if [[ $tc != - ]]; then
		while kill -0 "$c" 2>/dev/null && ((${EPOCHREALTIME/./} < last + STEADY_S * 1000000)); do
			sample x "$s" "$c"
			echo "${x%,}" >>"$7"
			read -rt 0.5 -u "$sleeper"
		done
		sample x "$s" "$c"
		echo "${x%,}" >>"$7"
		kill -INT "$c" 2>/dev/null && stopped=1
	fi
	exec {sleeper}<&-
	printf '%s\t%s\t%s\t%s\t%s\n' "$tf" "$tc" "$r1" "$n" "$stopped"
}
# scale_pair IMPL KIND NUMJOBS BUSY ROUND: one timed pair of NUMJOBS jobs a
# side, the clients with busy_wait_polling=BUSY, both fio processes with
# cm-log.cc preloaded, each client job's I/Os logged with the wall clock's
# time; one line in $BENCH_RAW/scaling/list: IMPL KIND NJ BUSY
# ROUND STATUS RSS0 T0 and watch_pair's line
scale_pair() {
	local impl=$1 kind=$2 nj=$3 busy=$4 r=$5 cmd se ce s c cst sst extra=() lib t0 r0 w
	local base=$BENCH_RAW/scaling/$kind.nj$nj.busy$busy.$impl.r$r sqd=16 snj=$nj ports=$nj
	impl_fio "$impl" "$kind" cmd lib se ce
	# one server job (one thread) for all: clients=N on one port; one-none
	# the same without memory windows
	if [[ $impl == one* ]]; then
		se+=(--clients="$nj") ce+=(--port_per_job=0) snj=1 ports=1
	fi
	[[ $impl == *-none ]] && se+=(--isolation=none)
	# a sleeping GPSPM server: 256 spinning server threads on 2 CPUs
	# would measure the scheduler
	[[ $kind == gpspm ]] && extra=(--busy_wait_polling=0) sqd=32
	port=$((port + nj + 8))
	rm -f "$base".*
	(cd "$BENCH_WORK" && LD_LIBRARY_PATH=$lib LD_PRELOAD=$CM_LOG_SO RPMA_BENCH_CM_LOG=$base.cm-server \
		exec "${cmd[@]}" --output-format=json --output="$base.server.json" --name=server \
		"${se[@]}" --serverip="$BENCH_IP" --port="$port" --thread --numjobs="$snj" \
		--group_reporting --filename=malloc --size=1m --iodepth="$sqd" \
		"${extra[@]}") >"$base.server.log" 2>&1 &
	s=$!
	wait_listen "$port" "$ports" 300 || say "scaling $kind $nj $impl: the server does not listen"
	r0=$(rss_kb "$s")
	t0=${EPOCHREALTIME/./}
	# runtime= only bounds a run whose connections never all come up:
	# the watcher stops it. A niced client leaves the server (one thread,
	# or N) the CPUs it would have on a target of its own: one thread's
	# fair share among hundreds of client threads is a few per cent
	(cd "$BENCH_WORK" && LD_LIBRARY_PATH=$lib LD_PRELOAD=$CM_LOG_SO RPMA_BENCH_CM_LOG=$base.cm-client \
		exec nice -n "${BENCH_CLIENTS_NICE:-0}" "${cmd[@]}" --output-format=json --output="$base.client.json" --name=client \
		"${ce[@]}" --serverip="$BENCH_IP" --port="$port" --thread --numjobs="$nj" \
		--group_reporting --rw=write --bs=4k --iodepth=16 --size=1m --create_serialize=0 \
		--time_based --runtime=$((STEADY_S + 420)) \
		--write_iops_log="$base.client" --log_unix_epoch=1 \
		--busy_wait_polling="$busy") >"$base.client.log" 2>&1 &
	c=$!
	w=$(watch_pair "$nj" "$s" "$c" "$t0" "$base.cm-client" "$base.cm-server" "$base.samples")
	wait_exit "$c" $((STEADY_S + 540))
	cst=$?
	# fio's status after the SIGINT that ended the run: 128 plus its
	# failed jobs
	[[ ${w##*$'\t'} != 0 ]] && ((cst >= 128)) && cst=$((cst - 128))
	wait_exit "$s" 60
	sst=$?
	printf '%s\t%s\t%s\t%s\t%s\t%s %s\t%s\t%s\t%s\n' "$impl" "$kind" "$nj" "$busy" "$r" \
		"$cst" "$sst" "$r0" "$t0" "$w" >>"$BENCH_RAW/scaling/list"
	say "scaling $kind nj$nj busy$busy $impl round $r: status $cst $sst; first id, all connected (us), RSS: $(cut -f1-3 <<<"$w")"
}

# --- like-for-like latency: perftest's clock against the wall clock ------------
# Each test runs twice, -n 1000 and -n 11000 iterations; the difference of
# the client's wall time over 10000 is its mean iteration, by a clock
# perftest did not calibrate. fio's apm read at iodepth 1 runs beside it.
latbase() {
	local t n out t0 t1 s
	mkdir -p "$BENCH_RAW/latbase"
	{
		grep -m1 'cpu MHz' /proc/cpuinfo
		grep -m1 -o 'constant_tsc\|nonstop_tsc' /proc/cpuinfo | sort -u | tr '\n' ' '
		echo
		dmesg 2>/dev/null | grep -i 'tsc' | head -n 5
		cat /sys/devices/system/clocksource/clocksource0/current_clocksource
	} >"$BENCH_RAW/latbase/clock.txt"
	for t in ib_read_lat ib_write_lat; do
		for n in 1000 11000; do
			out=$BENCH_RAW/latbase/$t.n$n.txt
			port=$((port + 1))
			(cd "$BENCH_WORK" && exec "$t" -d "$BENCH_DEV" -R -s 4096 -n "$n" -p "$port") >"$out.server" 2>&1 &
			s=$!
			wait_listen "$port" 1 30 || say "$t: the server does not listen"
			t0=$EPOCHREALTIME
			"$t" -d "$BENCH_DEV" -R -s 4096 -n "$n" -p "$port" "$BENCH_IP" >"$out" 2>&1
			t1=$EPOCHREALTIME
			echo "wall_s $(echo "$t1 - $t0" | bc)" >>"$out"
			wait_exit "$s" 30
		done
	done
	# fio: the bench's apm read row, on fio's default clock (the CPU's
	# counter when fio trusts it) and on clock_gettime, 1000 and 4000 I/Os
	# (number_ios stops a run only within size=, 4096 blocks here), each
	# client process timed by the wall clock
	for cs in cpu clock_gettime; do
		for n in 1000 4000; do
			port=$((port + 8))
			(cd "$BENCH_WORK" && LD_LIBRARY_PATH=$RPMA_LIB_DIR exec fio --name=server \
				--ioengine="external:$ENGINE_DIR/librpma_apm_server.so" --serverip="$BENCH_IP" \
				--port="$port" --thread --filename=malloc --size=16m) >/dev/null 2>&1 &
			s=$!
			wait_listen "$port" 1 60
			out=$BENCH_RAW/latbase/fio-read.$cs.n$n
			t0=$EPOCHREALTIME
			(cd "$BENCH_WORK" && LD_LIBRARY_PATH=$RPMA_LIB_DIR exec timeout 300 fio --name=client \
				--ioengine="external:$ENGINE_DIR/librpma_apm_client.so" --serverip="$BENCH_IP" \
				--port="$port" --thread --rw=read --bs=4k --iodepth=1 --sync=1 \
				--size=16m --create_serialize=0 --lat_percentiles=1 --clocksource="$cs" \
				--number_ios="$n" --output-format=json --output="$out.json") >/dev/null 2>&1
			t1=$EPOCHREALTIME
			echo "wall_s $(echo "$t1 - $t0" | bc)" >"$out.wall"
			wait_exit "$s" 30
		done
	done
}

# scaling_runs: the latency baselines, then the rows, round after round
scaling_runs() {
	local port=$BENCH_PORT r nj kind spec impl order
	mkdir -p "$BENCH_RAW/scaling"
	# a fio of 256 client jobs holds a few descriptors per connection
	ulimit -n 65536
	# --isolation: windows against none, both in each round, which goes
	# first alternating with the rounds (a row inherits its predecessor's
	# leftovers: 256 connections still being torn down); the clients spin
	# where IOPS are compared (1 and 16), sleep at 256, where the time to
	# connect is
	if ((${BENCH_ISOLATION:-0})); then
		for ((r = 1; r <= BENCH_ROUNDS; r++)); do
			order="one one-none"
			((r % 2)) || order="one-none one"
			for spec in 1:1 16:1 256:0; do
				for kind in apm gpspm; do
					for impl in $order; do
						nj=${spec%:*}
						[[ $kind-nj$nj-busy${spec#*:}-$impl =~ ${BENCH_ROWS:-.} ]] || continue
						scale_pair "$impl" "$kind" "$nj" "${spec#*:}" "$r"
					done
				done
			done
		done
		return
	fi
	# --rows picks among "latbase" and KIND-njN-busyB-IMPL
	[[ latbase =~ ${BENCH_ROWS:-.} ]] && latbase
	# the reference's clients spin whatever busy_wait_polling says
	# (docs/engines.md): busy_wait_polling=0 is ours alone. A round runs
	# every row once: a change in the host's load hits all rows alike.
	for ((r = 1; r <= BENCH_ROUNDS; r++)); do
		for nj in 1 4 16 64 256; do
			for kind in apm gpspm; do
				for spec in ours:1 ref:1 ours:0 one:1 one:0; do
					((nj >= 64)) && [[ $spec == ref:* ]] && continue
					((nj == 1)) && [[ $spec == one:* ]] && continue
					[[ $kind-nj$nj-busy${spec#*:}-${spec%:*} =~ ${BENCH_ROWS:-.} ]] || continue
					scale_pair "${spec%:*}" "$kind" "$nj" "${spec#*:}" "$r"
				done
			done
		done
	done
}
