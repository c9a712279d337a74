#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/in-vm.sh -- the measuring half of bench/run: runs in the Soft-RoCE
# VM (or on the host, with a real RDMA device) and only writes raw results;
# bench/summarize.py reads them on the host (python starts slowly in the VM).
#
# Environment (set by bench/run):
#   BENCH_IP, BENCH_DEV   the RDMA address (server and client) and device
#   BENCH_RAW             where the raw results go (created, written live)
#   BENCH_MODE            quick or full; BENCH_ROUNDS, BENCH_RUNTIME (s)
#   ENGINE_DIR, RPMA_LIB_DIR   our engines (librpma_*.so) and librpma.so.0
#   OLD_FIO, OLD_RPMA_LIB      the reference (bench/prepare-reference)
#   RPMA_BENCH            the rpma-bench program
#   BENCH_PORT            first port to use (default 7300)
#   BENCH_ROWS            a regular expression: only the fio rows it matches
#   BENCH_FIO_ONLY        1: no perftest, no rpma-bench (quick comparisons)
#   BENCH_SCALING         1: only the scaling rows and the latency baselines
#   CM_LOG_SO             cm-log.so, preloaded into the scaling rows' fio
#   BENCH_CONNECT         1: only rpma-bench --connections (1, 16, 64)
#   BENCH_IMPLS           --counts: only these implementations (ours,ref,base)
#   BENCH_AOF             1: only the append-only log's rows (aof_pair);
#                         BENCH_NATIVE 1: with native_ops=all as well
#
# Writes to BENCH_RAW:
#   runs       one line per fio pair: ROW<TAB>IMPL<TAB>ROUND<TAB>CLIENT-STATUS SERVER-STATUS
#   packets    one line per counted pair: ROW<TAB>IMPL<TAB>PACKETS<TAB>IOS<TAB>STATUS
#   aof        BENCH_AOF's runs: ROW<TAB>ROUND<TAB>IOS<TAB>PACKETS<TAB>STATUS<TAB>NATIVE-LINE
#   fio/ROW.IMPL.rROUND.{client,server}.json   fio's reports, trimmed later
#   perftest/TEST.SIZE.rROUND.txt              perftest's client output
#   rpma-bench/IMPL.rROUND.json                rpma-bench's lines
#   connect/list, connect/IMPL.nN.HOW.rROUND.json   BENCH_CONNECT's runs
#   env        the guest's kernel, CPU, device
set -uo pipefail

: "${BENCH_IP:?}" "${BENCH_DEV:?}" "${BENCH_RAW:?}" "${ENGINE_DIR:?}" \
	"${RPMA_LIB_DIR:?}" "${OLD_FIO:?}" "${OLD_RPMA_LIB:?}" "${RPMA_BENCH:?}"
mode=${BENCH_MODE:-quick}
rounds=${BENCH_ROUNDS:-3}
runtime=${BENCH_RUNTIME:-5}
ip=$BENCH_IP
dev=$BENCH_DEV
raw=$BENCH_RAW
port=${BENCH_PORT:-7300}
mkdir -p "$raw/fio" "$raw/perftest" "$raw/rpma-bench"
# the servers' working directory: the reference's server lays out a file
# named after filename=malloc there; keep that off the shared directory
work=$(mktemp -d "${TMPDIR:-/tmp}/rpma-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

say() { echo "bench: $*"; }

{
	echo "kernel=$(uname -r)"
	echo "guest_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "guest_cpus=$(nproc)"
	echo "device=$dev"
	echo "ip=$ip"
	echo "mode=$mode"
	echo "rounds=$rounds"
	echo "runtime=$runtime"
	echo "our_fio=$(fio --version)"
	[[ $OLD_FIO == - ]] || echo "reference_fio=$("$OLD_FIO" --version)"
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
} >"$raw/env"

# wait_listen PORT N SECONDS: true once N RDMA-CM ids listen on PORT..PORT+N-1
wait_listen() {
	local end=$((SECONDS + $3)) n
	while ((SECONDS < end)); do
		n=$(rdma res show cm_id 2>/dev/null | grep -c "state LISTEN.*src-addr [^ ]*:\($(seq -s '\|' "$1" $(($1 + $2 - 1)))\) ")
		((n >= $2)) && return 0
		sleep 0.2
	done
	return 1
}

# shellcheck source=../engine/tests/wait.sh
. "$(dirname "${BASH_SOURCE[0]}")/../engine/tests/wait.sh"

# --- perftest: the verbs baseline ------------------------------------------
# perftest TEST SIZE ROUND
perftest() {
	local t=$1 size=$2 r=$3 iters out s st
	case $t in
	*_lat) iters=1000 ;;
	*) iters=2000 ;;
	esac
	out=$raw/perftest/$t.$size.r$r.txt
	# perftest times with the CPU's cycle counter; when it cannot tell the
	# counter's frequency (a noisy sample, common under emulation), its
	# latencies come out as "inf", or it makes no report at all (status 1):
	# try again, five times at most
	for _ in 1 2 3 4 5; do
		port=$((port + 1))
		(cd "$work" && exec "$t" -d "$dev" -R -s "$size" -n "$iters" -p "$port") >"$out.server" 2>&1 &
		s=$!
		wait_listen "$port" 1 30 || say "$t: the server does not listen"
		"$t" -d "$dev" -R -s "$size" -n "$iters" -p "$port" "$ip" >"$out" 2>&1 &
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
	LD_LIBRARY_PATH=$lib "$RPMA_BENCH" server "$ip" "$port" --size 1m \
		>"$raw/rpma-bench/$impl.r$r.server.log" 2>&1 &
	s=$!
	wait_listen "$port" 1 30 || say "rpma-bench: the server does not listen"
	LD_LIBRARY_PATH=$lib "$RPMA_BENCH" client "$ip" "$port" --iterations 1000 \
		--bs "$3" --json >"$raw/rpma-bench/$impl.r$r.json" 2>"$raw/rpma-bench/$impl.r$r.log" &
	wait_exit $! 300
	st=$?
	wait_exit "$s" 30
	((st)) && say "rpma-bench on $impl's librpma: status $st"
}

# --- fio: our engines and library against the reference ---------------------
# sent_packets: what the device has sent so far (client and server both
# use it, so that is every packet of a pair)
sent_packets() {
	rdma statistic show link "$dev/1" 2>/dev/null |
		awk '{ for (i = 1; i < NF; i++) if ($i == "sent_pkts") print $(i + 1) }'
}

# impl_fio IMPL KIND: sets the caller's cmd (the fio to run), lib (the
# folder of its librpma) and se/ce (the server's and the client's engine)
# for ours, base (the engines, and librpma if given, of an earlier build:
# before/after) or ref
impl_fio() {
	local impl=$1 kind=$2 edir=$ENGINE_DIR
	if [[ $impl == ref ]]; then
		cmd=("$OLD_FIO") lib=$OLD_RPMA_LIB
		se=(--ioengine="librpma_${kind}_server")
		ce=(--ioengine="librpma_${kind}_client")
		return
	fi
	# one: ours, one server job taking every connection (clients=N)
	cmd=(fio) lib=$RPMA_LIB_DIR
	[[ $impl == base ]] && edir=$BENCH_BASE_ENGINE_DIR lib=${BENCH_BASE_RPMA_LIB_DIR:-$lib}
	se=(--ioengine="external:$edir/librpma_${kind}_server.so")
	ce=(--ioengine="external:$edir/librpma_${kind}_client.so")
}

# fio_pair IMPL ROUND KIND RW BS IODEPTH SYNC NUMJOBS BUSY
# ROUND "count": instead of a timed run, COUNT_IOS I/Os whose packets are
# counted (one line in $raw/packets)
COUNT_IOS=4096
fio_pair() {
	local impl=$1 r=$2 kind=$3 rw=$4 bs=$5 qd=$6 sync=$7 nj=$8 busy=$9
	local row=$kind-$rw-bs$bs-qd$qd-nj$nj cmd se ce lib extra=() s c cst sst
	local length=(--time_based --ramp_time=1 --runtime="$runtime") pkts
	[[ $kind == gpspm ]] && row+=-busy$busy
	local base=$raw/fio/$row.$impl.r$r
	if [[ $r == count ]]; then
		length=(--number_ios="$COUNT_IOS")
		pkts=$(sent_packets)
	fi
	impl_fio "$impl" "$kind"
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
	(cd "$work" && exec "${cmd[@]}" --output-format=json --output="$base.server.json" \
		--name=server "${se[@]}" --serverip="$ip" --port="$port" --thread \
		--numjobs="$nj" --group_reporting --filename=malloc --size=16m \
		--iodepth="$sqd" "${extra[@]}") >"$base.server.log" 2>&1 &
	s=$!
	wait_listen "$port" "$nj" 60 || say "$row $impl: the server does not listen"
	(cd "$work" && exec "${cmd[@]}" --output-format=json --output="$base.client.json" \
		--name=client "${ce[@]}" --serverip="$ip" --port="$port" --thread \
		--numjobs="$nj" --group_reporting --rw="$rw" --bs="$bs" --iodepth="$qd" \
		--sync="$sync" --size=16m --lat_percentiles=1 "${length[@]}") \
		>"$base.client.log" 2>&1 &
	c=$!
	wait_exit "$c" $((runtime + 120))
	cst=$?
	wait_exit "$s" 30
	sst=$?
	unset LD_LIBRARY_PATH
	if [[ $r == count ]]; then
		printf '%s\t%s\t%s\t%s\t%s %s\n' "$row" "$impl" \
			$(($(sent_packets) - pkts)) $((COUNT_IOS * nj)) "$cst" "$sst" >>"$raw/packets"
		rm -f "$base".*
		return 0
	fi
	printf '%s\t%s\t%s\t%s %s\n' "$row" "$impl" "$r" "$cst" "$sst" >>"$raw/runs"
	((cst || sst)) && say "$row $impl round $r: status client $cst, server $sst"
	# the logs only matter when something failed
	((cst || sst)) || rm -f "$base.server.log" "$base.client.log"
	return 0
}

# --- counts: instructions per I/O under callgrind ---------------------------
# count_pair IMPL REP N KIND RW QD SYNC VGSERVER PORT: one pair, the client (and,
# VGSERVER=1, the server) under callgrind, counting only inside fio's I/O
# loop's calls that reach the engine (start-up, connection and teardown
# stay out); the client does N I/Os. One line per profile in
# $raw/counts/list.
count_pair() {
	local impl=$1 rep=$2 n=$3 kind=$4 rw=$5 qd=$6 sync=$7 vgs=$8
	local row=$kind-$rw-bs4k-qd$qd-nj1 cmd se ce s c cst sst sqd=$qd extra=() lib
	local base=$row.$impl.n$n.r$rep.s$vgs pfx=() vg lport=$9 mb=16 smb
	# room for N 4 KiB I/Os: fio stops at the end of --size, number_ios or not
	((n * 4 > mb * 1024)) && mb=$(((n * 4 + 1023) / 1024))
	smb=$mb
	# aof-MODE: the append-only log (its server's log begins after a page)
	if [[ $kind == aof-* ]]; then
		extra=(--aof_mode="${kind#aof-}") smb=$((mb + 1))
	fi
	# fio's calls in its I/O loop that enclose every call into the engine
	# there (queue, commit, getevents, event) and the accounting of a
	# submission and a completion, and never each other (a toggle met
	# inside another one would turn counting off)
	# per instruction, uncompressed addresses: counts.py finds how often
	# rpma_cq_get_wc took its empty return (the one instruction that loads
	# RPMA_E_NO_COMPLETION) in the count of that instruction
	vg=(valgrind --tool=callgrind --collect-atstart=no --toggle-collect=td_io_queue
		--toggle-collect=io_queue_event --toggle-collect=io_u_queued_complete
		--dump-instr=yes --compress-pos=no)
	impl_fio "$impl" "${kind%%-*}"
	local sextra=("${extra[@]}")
	# the GPSPM server sleeps between requests (busy_wait_polling=0): its
	# count is then its work, not the time it spun
	[[ $kind == *gpspm ]] && sextra+=(--busy_wait_polling=0) sqd=$((2 * qd))
	((vgs)) && pfx=("${vg[@]}" --callgrind-out-file="$raw/counts/$base.server.cg")
	(cd "$work" && LD_LIBRARY_PATH=$lib exec "${pfx[@]}" "${cmd[@]}" --name=server "${se[@]}" \
		--serverip="$ip" --port="$lport" --thread --filename=malloc --size="${smb}m" \
		--iodepth="$sqd" "${sextra[@]}") >"$raw/counts/$base.server.log" 2>&1 &
	s=$!
	wait_listen "$lport" 1 600 || say "$base: the server does not listen"
	(cd "$work" && LD_LIBRARY_PATH=$lib exec "${vg[@]}" \
		--callgrind-out-file="$raw/counts/$base.client.cg" "${cmd[@]}" --name=client \
		"${ce[@]}" --serverip="$ip" --port="$lport" --thread --rw="$rw" --bs=4k \
		--iodepth="$qd" --sync="$sync" --size="${mb}m" --create_serialize=0 \
		--number_ios="$n" "${extra[@]}") >"$raw/counts/$base.client.log" 2>&1 &
	c=$!
	wait_exit "$c" 1200
	cst=$?
	wait_exit "$s" 300
	sst=$?
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$row" "$impl" "$rep.s$vgs" "$n" client "$base.client.cg" "$cst" >>"$raw/counts/list"
	((vgs)) && printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$row" "$impl" "$rep.s$vgs" "$n" server "$base.server.cg" "$sst" >>"$raw/counts/list"
	say "counts $base: client $cst, server $sst"
}

# --- the append-only log: appends per second, packets per append ------------
# aof_pair ROUND KIND BS QD NATIVE: one run of the appends of BS bytes
# (KIND aof-apm or aof-gpspm; apm-write and gpspm-write: sequential writes
# of those engines, the yardsticks) at iodepth QD (1: sync=1), the client
# with native_ops=NATIVE;
# one line in $raw/aof: ROW ROUND IOS PACKETS STATUS(client server)
# NATIVE-LINE (what the client said it used); fio's reports in $raw/fio
aof_pair() {
	local r=$1 kind=$2 bs=$3 qd=$4 native=$5 row n=4096 sync=0 bytes
	local cmd se ce lib extra=() sextra=() s c cst sst pkts base said
	row=$kind-bs$bs-qd$qd-native$native
	((qd == 1)) && n=1024 sync=1
	base=$raw/fio/$row.r$r
	bytes=$((n * bs))
	impl_fio ours "${kind%%-*}"
	[[ $kind == aof-* ]] && extra=(--aof_mode="${kind#aof-}")
	[[ $kind == *gpspm* ]] && sextra=(--iodepth=$((2 * qd)))
	port=$((port + 1))
	(cd "$work" && LD_LIBRARY_PATH=$lib exec "${cmd[@]}" --output-format=json \
		--output="$base.server.json" --name=server "${se[@]}" --serverip="$ip" \
		--port="$port" --thread --filename=malloc --size=$((bytes + 4096)) \
		"${extra[@]}" "${sextra[@]}") >"$base.server.log" 2>&1 &
	s=$!
	wait_listen "$port" 1 60 || say "$row: the server does not listen"
	pkts=$(sent_packets)
	(cd "$work" && LD_LIBRARY_PATH=$lib exec "${cmd[@]}" --output-format=json \
		--output="$base.client.json" --name=client "${ce[@]}" --serverip="$ip" \
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
		"$cst" "$sst" "${said:--}" >>"$raw/aof"
	((cst || sst)) && say "$row round $r: status client $cst, server $sst"
	((cst || sst)) || rm -f "$base.server.log" "$base.client.log"
	return 0
}

if [[ ${BENCH_AOF:-0} == 1 ]]; then
	# native_ops=all as well where the kernel's rxe executes both verbs
	natives=none
	[[ ${BENCH_NATIVE:-0} == 1 ]] && natives="none all"
	for ((r = 1; r <= rounds; r++)); do
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
	say "done"
	exit 0
fi

if [[ ${BENCH_COUNTS:-0} == 1 ]]; then
	mkdir -p "$raw/counts"
	n=${BENCH_COUNT_IOS:-2000}
	# symbols bound at start-up, not inside the counted calls
	export LD_BIND_NOW=1
	# KIND RW QD SYNC VGSERVERS NS REPS BASE: the APM server takes no part
	# in an I/O (one-sided RDMA), so only one APM row profiles it; the
	# servers' fixed costs (the wait for the disconnect, the reference APM
	# server's pass over its file) cancel out between N and 2N I/Os; "base"
	# (when given) only where the engine changes under test act. The GPSPM
	# clients spin while they wait for the server: their runs take N, 2N
	# and 3N I/Os against a server at full speed (VGSERVER 0) and under
	# callgrind (1, slower: more empty polls), so that counts.py can tell
	# the work per I/O from the cost of an empty poll (a linear fit)
	while read -r kind rw qd sync vgss ns reps base; do
		[[ $kind-$rw-bs4k-qd$qd-nj1 =~ ${BENCH_ROWS:-.} ]] || continue
		impls="ours ref"
		# the append-only log is ours alone (the reference never had it)
		[[ $kind == aof-* ]] && impls=ours
		# a base librpma acts on every row
		[[ -n ${BENCH_BASE_ENGINE_DIR:-} && ($base == 1 || -n ${BENCH_BASE_RPMA_LIB_DIR:-}) ]] &&
			impls="base $impls"
		# --impls: only these (the others' entries stay in counts.json)
		if [[ -n ${BENCH_IMPLS:-} ]]; then
			pick=
			for impl in $impls; do
				[[ ,$BENCH_IMPLS, == *,$impl,* ]] && pick+=" $impl"
			done
			impls=$pick
		fi
		for ((r = 1; r <= reps; r++)); do
			for vgs in ${vgss//,/ }; do
				for m in ${ns//,/ }; do
					# the implementations side by side, one lane each
					for impl in $impls; do
						port=$((port + 8))
						count_pair "$impl" "$r" $((m * n)) "$kind" "$rw" "$qd" "$sync" "$vgs" "$port" &
					done
					wait
				done
			done
		done
	done <<-EOF
		apm write 1 1 0 1 2 1
		apm write 16 0 1 1,2 1 1
		apm read 1 1 0 1 1 0
		apm read 16 0 0 1 1 0
		gpspm write 1 1 1,0 1,2,3 1 1
		gpspm write 16 0 1,0 1,2,3 1 1
		aof-apm write 1 1 0 1,2 1 0
		aof-apm write 16 0 0 1,2 1 0
		aof-gpspm write 1 1 1,0 1,2,3 1 0
		aof-gpspm write 16 0 1,0 1,2,3 1 0
	EOF
	say "done"
	exit 0
fi

# --- connecting: rpma-bench --connections, no fio ------------------------------
# connect_run IMPL N HOW ROUND: one server, one client opening N connections
# (HOW: concurrent or one-by-one); one line in $raw/connect/list:
# IMPL N HOW ROUND CLIENT-STATUS SERVER-STATUS
connect_run() {
	local impl=$1 n=$2 how=$3 r=$4 lib=$RPMA_LIB_DIR s st sst base args=()
	[[ $impl == ref ]] && lib=$OLD_RPMA_LIB
	[[ $how == one-by-one ]] && args=(--one-by-one)
	base=$raw/connect/$impl.n$n.$how.r$r
	port=$((port + 1))
	LD_LIBRARY_PATH=$lib "$RPMA_BENCH" server "$ip" "$port" --connections "$n" \
		>"$base.server.log" 2>&1 &
	s=$!
	wait_listen "$port" 1 30 || say "connect: the server does not listen"
	LD_LIBRARY_PATH=$lib "$RPMA_BENCH" client "$ip" "$port" --connections "$n" "${args[@]}" \
		--json >"$base.json" 2>"$base.log" &
	wait_exit $! 300
	st=$?
	# a client that failed leaves its server waiting for nobody
	((st)) && kill "$s" 2>/dev/null
	wait_exit "$s" 60
	sst=$?
	echo "$impl $n $how $r $st $sst" >>"$raw/connect/list"
	say "connect $impl n$n $how round $r: status $st $sst $(<"$base.json")"
}

if [[ ${BENCH_CONNECT:-0} == 1 ]]; then
	mkdir -p "$raw/connect"
	for ((r = 1; r <= rounds; r++)); do
		# which implementation goes first alternates with the rounds
		if ((r % 2)); then order="ours ref"; else order="ref ours"; fi
		for n in 1 16 64; do
			for how in concurrent one-by-one; do
				for impl in $order; do
					connect_run "$impl" "$n" "$how" "$r"
				done
			done
		done
	done
	say "done"
	exit 0
fi

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
# sample VAR: sets VAR to the guest's CPU ticks (user nice system idle
# iowait irq softirq), its softirq threads' (utime + stime, all CPUs: the
# kernel's share of the work, rxe's), the packets the device has sent and
# the time (s)
sample() {
	local f s comm v k=0 p=-
	for f in /proc/[0-9]*/stat; do
		{ read -r s <"$f"; } 2>/dev/null || continue
		comm=${s#*(} comm=${comm%)*}
		[[ $comm == ksoftirqd/* ]] || continue
		# the fields after the name: state is [0], utime [11], stime [12]
		read -ra v <<<"${s##*) }"
		k=$((k + v[11] + v[12]))
	done
	read -r p <"/sys/class/infiniband/$dev/ports/1/hw_counters/sent_pkts" 2>/dev/null
	read -ra v </proc/stat
	printf -v "$1" '%s,' "${v[@]:1:7}" "$k" "$p" "$EPOCHREALTIME"
}
# watch_pair NJ SERVER-PID CLIENT-PID T0 CLIENT-LOG SERVER-LOG: what
# scale_pair notes while the pair runs, on one line: the microseconds from
# T0 (the client's start) until the client's first RDMA-CM id and until
# the last of the 2 NJ ends has its connection established (cm-log.cc's
# lines), the server's RSS then, and two samples 1.2 s and 4.2 s after
# that, inside the measured part of the run (from 1 s to 6 s). At
# real-time priority, and builtins only until the second sample: in the
# guest a process takes up to a second to start, and busy-polling clients
# would starve a normal one for longer.
watch_pair() {
	local nj=$1 s=$2 c=$3 t0=$4 tf=- tc=- r1=- a=- b=- sleeper f w t n last first=0 k v _
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
		read -rt 0.1 -u "$sleeper"
	done
	if [[ $tc != - ]]; then
		# until 1.2 s after the last connection, then 3 s
		t=$((last + 1200000 - ${EPOCHREALTIME/./}))
		if ((t > 0)); then
			printf -v t '%d.%06d' $((t / 1000000)) $((t % 1000000))
			read -rt "$t" -u "$sleeper"
		fi
		sample a
		read -rt 3 -u "$sleeper"
		kill -0 "$c" 2>/dev/null && sample b
	fi
	exec {sleeper}<&-
	printf '%s\t%s\t%s\t%s\t%s\n' "$tf" "$tc" "$r1" "${a%,}" "${b%,}"
}
# scale_pair IMPL KIND NUMJOBS BUSY ROUND: one timed pair of NUMJOBS jobs a
# side, the clients with busy_wait_polling=BUSY, both fio processes with
# cm-log.cc preloaded; one line in $raw/scaling/list: IMPL KIND NJ BUSY
# ROUND STATUS RSS0 and watch_pair's line
scale_pair() {
	local impl=$1 kind=$2 nj=$3 busy=$4 r=$5 cmd se ce s c cst sst extra=() lib t0 r0 w
	local base=$raw/scaling/$kind.nj$nj.busy$busy.$impl.r$r sqd=16 snj=$nj ports=$nj
	impl_fio "$impl" "$kind"
	# one server job (one thread) for all: clients=N on one port
	if [[ $impl == one ]]; then
		se+=(--clients="$nj") ce+=(--port_per_job=0) snj=1 ports=1
	fi
	# a sleeping GPSPM server: 64 spinning server threads on 2 CPUs would
	# measure the scheduler
	[[ $kind == gpspm ]] && extra=(--busy_wait_polling=0) sqd=32
	port=$((port + nj + 8))
	rm -f "$base.cm-client" "$base.cm-server"
	(cd "$work" && LD_LIBRARY_PATH=$lib LD_PRELOAD=$CM_LOG_SO RPMA_BENCH_CM_LOG=$base.cm-server \
		exec "${cmd[@]}" --output-format=json --output="$base.server.json" --name=server \
		"${se[@]}" --serverip="$ip" --port="$port" --thread --numjobs="$snj" \
		--group_reporting --filename=malloc --size=1m --iodepth="$sqd" \
		"${extra[@]}") >"$base.server.log" 2>&1 &
	s=$!
	wait_listen "$port" "$ports" 300 || say "scaling $kind $nj $impl: the server does not listen"
	r0=$(rss_kb "$s")
	t0=${EPOCHREALTIME/./}
	(cd "$work" && LD_LIBRARY_PATH=$lib LD_PRELOAD=$CM_LOG_SO RPMA_BENCH_CM_LOG=$base.cm-client \
		exec "${cmd[@]}" --output-format=json --output="$base.client.json" --name=client \
		"${ce[@]}" --serverip="$ip" --port="$port" --thread --numjobs="$nj" \
		--group_reporting --rw=write --bs=4k --iodepth=16 --size=1m --create_serialize=0 \
		--time_based --ramp_time=1 --runtime="$runtime" \
		--busy_wait_polling="$busy") >"$base.client.log" 2>&1 &
	c=$!
	w=$(watch_pair "$nj" "$s" "$c" "$t0" "$base.cm-client" "$base.cm-server")
	wait_exit "$c" $((runtime + 300))
	cst=$?
	wait_exit "$s" 60
	sst=$?
	printf '%s\t%s\t%s\t%s\t%s\t%s %s\t%s\t%s\n' "$impl" "$kind" "$nj" "$busy" "$r" \
		"$cst" "$sst" "$r0" "$w" >>"$raw/scaling/list"
	say "scaling $kind nj$nj busy$busy $impl round $r: status $cst $sst; first id, all connected (us), RSS: $(cut -f1-3 <<<"$w")"
}

# --- like-for-like latency: perftest's clock against the wall clock ------------
# Each test runs twice, -n 1000 and -n 11000 iterations; the difference of
# the client's wall time over 10000 is its mean iteration, by a clock
# perftest did not calibrate. fio's apm read at iodepth 1 runs beside it.
latbase() {
	local t n out t0 t1 s
	mkdir -p "$raw/latbase"
	{
		grep -m1 'cpu MHz' /proc/cpuinfo
		grep -m1 -o 'constant_tsc\|nonstop_tsc' /proc/cpuinfo | sort -u | tr '\n' ' '
		echo
		dmesg 2>/dev/null | grep -i 'tsc' | head -n 5
		cat /sys/devices/system/clocksource/clocksource0/current_clocksource
	} >"$raw/latbase/clock.txt"
	for t in ib_read_lat ib_write_lat; do
		for n in 1000 11000; do
			out=$raw/latbase/$t.n$n.txt
			port=$((port + 1))
			(cd "$work" && exec "$t" -d "$dev" -R -s 4096 -n "$n" -p "$port") >"$out.server" 2>&1 &
			s=$!
			wait_listen "$port" 1 30 || say "$t: the server does not listen"
			t0=$EPOCHREALTIME
			"$t" -d "$dev" -R -s 4096 -n "$n" -p "$port" "$ip" >"$out" 2>&1
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
			(cd "$work" && LD_LIBRARY_PATH=$RPMA_LIB_DIR exec fio --name=server \
				--ioengine="external:$ENGINE_DIR/librpma_apm_server.so" --serverip="$ip" \
				--port="$port" --thread --filename=malloc --size=16m) >/dev/null 2>&1 &
			s=$!
			wait_listen "$port" 1 60
			out=$raw/latbase/fio-read.$cs.n$n
			t0=$EPOCHREALTIME
			(cd "$work" && LD_LIBRARY_PATH=$RPMA_LIB_DIR exec timeout 300 fio --name=client \
				--ioengine="external:$ENGINE_DIR/librpma_apm_client.so" --serverip="$ip" \
				--port="$port" --thread --rw=read --bs=4k --iodepth=1 --sync=1 \
				--size=16m --create_serialize=0 --lat_percentiles=1 --clocksource="$cs" \
				--number_ios="$n" --output-format=json --output="$out.json") >/dev/null 2>&1
			t1=$EPOCHREALTIME
			echo "wall_s $(echo "$t1 - $t0" | bc)" >"$out.wall"
			wait_exit "$s" 30
		done
	done
}

if [[ ${BENCH_SCALING:-0} == 1 ]]; then
	mkdir -p "$raw/scaling"
	# --rows picks among "latbase" and KIND-njN-busyB-IMPL
	[[ latbase =~ ${BENCH_ROWS:-.} ]] && latbase
	# the reference's clients spin whatever busy_wait_polling says
	# (docs/engines.md): busy_wait_polling=0 is ours alone. A round runs
	# every row once: a change in the host's load hits all rows alike.
	for ((r = 1; r <= rounds; r++)); do
		for nj in 1 4 16 64; do
			for kind in apm gpspm; do
				for spec in ours:1 ref:1 ours:0 one:1; do
					((nj == 64)) && [[ $spec == ref:* ]] && continue
					((nj == 1)) && [[ $spec == one:* ]] && continue
					[[ $kind-nj$nj-busy${spec#*:}-${spec%:*} =~ ${BENCH_ROWS:-.} ]] || continue
					scale_pair "${spec%:*}" "$kind" "$nj" "${spec#*:}" "$r"
				done
			done
		done
	done
	say "done"
	exit 0
fi

# The rows: KIND RW BS IODEPTH SYNC NUMJOBS BUSY
rows() {
	local bss qds njs kind rw bs qd nj busy
	if [[ $mode == quick ]]; then
		bss="4k" qds="1 16" njs="1"
	else
		bss="512 4k 64k" qds="1 2 16" njs="1 4"
	fi
	for bs in $bss; do
		for qd in $qds; do
			for nj in $njs; do
				# iodepth 1 is a synchronous job (sync=1)
				local sync=0
				((qd == 1)) && sync=1
				for rw in write randwrite read; do
					echo "apm $rw $bs $qd $sync $nj 0"
				done
				for busy in 0 1; do
					echo "gpspm write $bs $qd $sync $nj $busy"
				done
			done
		done
	done
}

sizes=4096
[[ $mode == full ]] && sizes=512,4096,65536
# BENCH_ROWS: only the rows whose name (e.g. apm-write-bs4k-qd1-nj1)
# matches this regular expression
mapfile -t all_rows < <(rows | while read -r k rw bs qd sync nj busy; do
	name=$k-$rw-bs$bs-qd$qd-nj$nj
	[[ $k == gpspm ]] && name+=-busy$busy
	[[ $name =~ ${BENCH_ROWS:-.} ]] && echo "$k $rw $bs $qd $sync $nj $busy"
done)
# baselines ROUND: perftest, then rpma-bench on either library
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
say "$mode: ${#all_rows[@]} fio rows x 2 implementations x $rounds rounds, ${runtime} s each"
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
for ((r = 1; r <= rounds; r++)); do
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
say "done"
