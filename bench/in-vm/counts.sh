# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# bench/in-vm/counts.sh -- BENCH_COUNTS=1: instructions per I/O under
# callgrind (counts/).

# --- counts: instructions per I/O under callgrind ---------------------------
# count_pair IMPL REP N KIND RW QD SYNC VGSERVER PORT: one pair under
# callgrind, counting only inside fio's I/O loop's calls that reach the
# engine (start-up, connection and teardown stay out); the client does N
# I/Os. VGSERVER 0: the client's count; 1: the client's against a server
# slowed by callgrind (its own count is not kept); 2: the server's, its
# client at full speed: a client under callgrind takes about 100 ms an
# I/O, and the server's checks, every 100 ms whatever it serves, would
# count as work of each I/O. One line per profile in
# $BENCH_RAW/counts/list.
count_pair() {
	local impl=$1 rep=$2 n=$3 kind=$4 rw=$5 qd=$6 sync=$7 vgs=$8
	local row=$kind-$rw-bs4k-qd$qd-nj1 cmd se ce s c cst sst sqd=$qd extra=() lib
	local base=$row.$impl.n$n.r$rep.s$vgs pfx=() vg lport=$9 mb=16 smb mode=$kind reps=1 i
	local ips=$BENCH_IP ports=$lport
	# room for N 4 KiB I/Os: fio stops at the end of --size, number_ios or not
	((n * 4 > mb * 1024)) && mb=$(((n * 4 + 1023) / 1024))
	smb=$mb
	# aof-MODE: the append-only log (its server's log begins after a page);
	# aof-MODE-rR: on R replicas, R server jobs of one fio (job N on
	# port + N - 1), the client naming each
	[[ $kind =~ ^(aof-[a-z]+)-r([1-9])$ ]] && mode=${BASH_REMATCH[1]} reps=${BASH_REMATCH[2]}
	if [[ $mode == aof-* ]]; then
		extra=(--aof_mode="${mode#aof-}") smb=$((mb + 1))
	fi
	for ((i = 1; i < reps; i++)); do
		ips+=,$BENCH_IP ports+=,$((lport + i))
	done
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
	impl_fio "$impl" "${mode%%-*}" cmd lib se ce
	local sextra=("${extra[@]}")
	# the GPSPM server sleeps between requests (busy_wait_polling=0): its
	# count is then its work, not the time it spun
	[[ $mode == *gpspm ]] && sextra+=(--busy_wait_polling=0) sqd=$((2 * qd))
	local sout=/dev/null cpfx=("${vg[@]}" --callgrind-out-file="$BENCH_RAW/counts/$base.client.cg")
	((vgs == 2)) && sout=$BENCH_RAW/counts/$base.server.cg cpfx=()
	((vgs)) && pfx=("${vg[@]}" --callgrind-out-file="$sout")
	(cd "$BENCH_WORK" && LD_LIBRARY_PATH=$lib exec "${pfx[@]}" "${cmd[@]}" --name=server "${se[@]}" \
		--serverip="$BENCH_IP" --port="$lport" --thread --filename=malloc --size="${smb}m" \
		--iodepth="$sqd" --numjobs="$reps" "${sextra[@]}") >"$BENCH_RAW/counts/$base.server.log" 2>&1 &
	s=$!
	wait_listen "$lport" "$reps" 600 || say "$base: the server does not listen"
	(cd "$BENCH_WORK" && LD_LIBRARY_PATH=$lib exec "${cpfx[@]}" "${cmd[@]}" --name=client \
		"${ce[@]}" --serverip="$ips" --port="$ports" --thread --rw="$rw" --bs=4k \
		--iodepth="$qd" --sync="$sync" --size="${mb}m" --create_serialize=0 \
		--number_ios="$n" "${extra[@]}") >"$BENCH_RAW/counts/$base.client.log" 2>&1 &
	c=$!
	wait_exit "$c" 1200
	cst=$?
	wait_exit "$s" 300
	sst=$?
	((vgs == 2)) || printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$row" "$impl" "$rep.s$vgs" "$n" client "$base.client.cg" "$cst" >>"$BENCH_RAW/counts/list"
	((vgs == 2)) && printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$row" "$impl" "$rep.s$vgs" "$n" server "$base.server.cg" "$sst" >>"$BENCH_RAW/counts/list"
	say "counts $base: client $cst, server $sst"
}

# counts_runs: the rows of bench/counts.py, the implementations side by side
counts_runs() {
	local port=$BENCH_PORT n kind rw qd sync vgss ns reps base impls pick impl r vgs m side
	mkdir -p "$BENCH_RAW/counts"
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
	# the work per I/O from the cost of an empty poll (a linear fit); the
	# servers are counted in runs of their own (VGSERVER 2)
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
				# --sides: a server's count comes from VGSERVER 2 alone
				side=client
				((vgs == 2)) && side=server
				[[ ,${BENCH_SIDES:-client,server}, == *,$side,* ]] || continue
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
		apm write 16 0 0,2 1,2 1 1
		apm read 1 1 0 1 1 0
		apm read 16 0 0 1 1 0
		gpspm write 1 1 1,0,2 1,2,3 1 1
		gpspm write 16 0 1,0,2 1,2,3 1 1
		aof-apm write 1 1 0 1,2 1 0
		aof-apm write 16 0 0 1,2 1 0
		aof-gpspm write 1 1 1,0,2 1,2,3 1 0
		aof-gpspm write 16 0 1,0,2 1,2,3 1 0
		aof-apm-r1 write 1 1 0 1,2 1 0
		aof-apm-r3 write 1 1 0 1,2 1 0
		aof-gpspm-r1 write 1 1 1,0 1,2,3 1 0
		aof-gpspm-r3 write 1 1 1,0 1,2,3 1 0
		aof-apm-r1 write 16 0 0 1,2 1 0
		aof-apm-r3 write 16 0 0 1,2 1 0
		aof-gpspm-r1 write 16 0 1,0 1,2,3 1 0
		aof-gpspm-r3 write 16 0 1,0 1,2,3 1 0
	EOF
}
