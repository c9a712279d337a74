# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# engine/tests/matrix.sh -- end-to-end cases: a server fio and a client fio
# over rxe0. Sourced by in-vm.sh after lib.sh.

size_for() { # size_for BS: enough I/O to mean something, quick in the VM
	case $1 in
	512) echo 1m ;;
	4k) echo 2m ;;
	*) echo 8m ;;
	esac
}

# pair_case KIND RW BS IODEPTH SYNC NUMJOBS BUSY [EXTRA CLIENT ARGS]
# Write jobs verify what they wrote by reading it back from the server.
pair_case() {
	local kind=$1 rw=$2 bs=$3 qd=$4 sync=$5 nj=$6 busy=$7 size check=
	size=$(size_for "$bs")
	case $rw in write | randwrite) check=--verify=crc32c ;; esac
	run_pair "$kind-$rw-bs$bs-qd$qd-sync$sync-nj$nj-busy$busy${8:+-extra}" "$kind" \
		"--numjobs=$nj --filename=malloc --size=$size --iodepth=$qd --busy_wait_polling=$busy" \
		"--numjobs=$nj --rw=$rw --bs=$bs --iodepth=$qd --sync=$sync --size=$size --busy_wait_polling=$busy $check ${8:-}"
}

# Every rw x bs x (iodepth 1, 2, 16 without sync; 1 with sync); numjobs
# and busy polling alternate.
matrix_full() {
	local kind rw bs qd sync i=0
	for kind in apm gpspm; do
		local rws="write randwrite read randread rw randrw"
		[[ $kind == gpspm ]] && rws="write randwrite"
		for rw in $rws; do
			for bs in 512 4k 256k; do
				for qd_sync in 1:0 2:0 16:0 1:1; do
					qd=${qd_sync%:*} sync=${qd_sync#*:}
					pair_case "$kind" "$rw" "$bs" "$qd" "$sync" \
						$((i % 3 ? 1 : 4)) $((i % 2))
					i=$((i + 1))
				done
			done
		done
	done
}

# A covering subset: every rw, bs, iodepth, sync, numjobs and polling
# value at least once, for both methods.
matrix_quick() {
	pair_case apm write 4k 1 1 1 1
	pair_case apm randwrite 512 16 0 1 0
	pair_case apm read 256k 2 0 1 1
	format=json+ pair_case apm randread 4k 16 0 4 1
	format=normal,json pair_case apm rw 4k 2 0 1 0
	pair_case apm randrw 512 16 0 1 1
	pair_case gpspm write 4k 1 1 1 1
	pair_case gpspm randwrite 512 16 0 4 0
	format=json+ pair_case gpspm write 256k 2 0 1 1
}

# What the old engines could not do.
extras() {
	# fsync=, fdatasync=, end_fsync= flush what was written
	pair_case apm write 4k 8 0 1 1 "--fsync=4 --end_fsync=1"
	pair_case gpspm randwrite 4k 8 0 1 0 "--fdatasync=3 --end_fsync=1"
	# a GPSPM server with fewer message slots than the client's iodepth
	run_pair gpspm-server-fewer-slots gpspm \
		"--filename=malloc --size=2m --iodepth=2" \
		"--rw=randwrite --bs=4k --iodepth=16 --size=2m --verify=crc32c"
	# sequential writes that wrap around within one batch (15 blocks, 16
	# per batch): a flush across the wrap would reach past the region
	run_pair apm-wrap-batch apm "--filename=malloc --size=60k" \
		"--rw=write --bs=4k --iodepth=16 --iodepth_batch=16 --size=60k --io_size=1m"
	run_pair gpspm-wrap-batch gpspm "--filename=malloc --size=60k --iodepth=16" \
		"--rw=write --bs=4k --iodepth=16 --iodepth_batch=16 --size=60k --io_size=1m"
	# the client's create_serialize=0 of the old job files still works
	run_pair apm-create-serialize-0 apm "--filename=malloc --size=2m" \
		"--rw=randwrite --bs=4k --create_serialize=0 --verify=crc32c"
	# processes instead of threads
	run_pair apm-processes apm "--filename=malloc --size=2m --thread=0" \
		"--rw=randwrite --bs=4k --iodepth=4 --size=2m --thread=0 --verify=crc32c"
}

# The job files of examples/, as they are, loading the engines by bare
# name: a file named exactly like the engine in the library path; fio's
# report in --output=, in FORMAT (examples_case METHOD FORMAT).
examples_case() {
	local method=$1 fmt=$2 name=examples-$1 crc src server
	begin_case "$name"
	output_file server.json "$fmt"
	output_file client.json "$fmt"
	mkdir "$(case_dir)/lib"
	local e
	for e in client server; do
		ln -s "$ENGINE_DIR/librpma_${method}_$e.so" "$(case_dir)/lib/librpma_${method}_$e"
	done
	(cd "$(case_dir)" && SERVERIP=$RPMA_TEST_IP LD_LIBRARY_PATH=$(case_dir)/lib:$LD_LIBRARY_PATH \
		exec "${FIO[@]}" --output-format="$fmt" --output=server.json \
		"$TOP_SRCDIR/examples/librpma_$method-server.fio") >"$(case_dir)/server.log" 2>&1 &
	server=$!
	(cd "$(case_dir)" && SERVERIP=$RPMA_TEST_IP LD_LIBRARY_PATH=$(case_dir)/lib:$LD_LIBRARY_PATH \
		exec "${FIO[@]}" --output-format="$fmt" --output=client.json \
		"$TOP_SRCDIR/examples/librpma_$method-client.fio") >"$(case_dir)/client.log" 2>&1 &
	wait_exit $! 300
	crc=$?
	wait_exit "$server" 30
	src=$?
	record_pair "$name" "$crc" "$src"
}

# fio's client/server mode: the client job runs in a fio backend server.
distributed_case() {
	local name=apm-distributed crc src
	begin_case "$name"
	# not in the case directory: 9p file systems cannot hold sockets
	local sock=/tmp/rpma-engine-tests-$$.sock
	"${FIO[@]}" --server="sock:$sock" >"$(case_dir)/backend.log" 2>&1 &
	local backend=$!
	local end=$((SECONDS + 20))
	until [[ -S "$sock" ]] || ((SECONDS >= end)); do
		sleep 0.2
	done
	fio_server apm --filename=malloc --size=2m
	output_file client.json "json distributed"
	cat >"$(case_dir)/client.fio" <<-EOF
		[client]
		ioengine=$(engine apm_client)
		serverip=$RPMA_TEST_IP
		port=$(case_port)
		thread
		rw=randwrite
		bs=4k
		size=2m
		iodepth=4
		verify=crc32c
	EOF
	(cd "$(case_dir)" && exec "${FIO[@]}" --output-format=json \
		--output=client.json --client="sock:$sock" client.fio) >"$(case_dir)/client.log" 2>&1 &
	wait_exit $! 300
	crc=$?
	wait_exit "$(pid_of server)" 30
	src=$?
	kill "$backend" 2>/dev/null
	wait "$backend" 2>/dev/null
	rm -f "$sock"
	record_pair "$name" "$crc" "$src"
}

# FS DAX (a file on ext4 -o dax) needs On-Demand Paging: rxe has it from
# kernel 6.15. Where the device has it, both methods serve such a file, the
# server warns about rxe's ODP, and the file holds what the client wrote (a
# skip naming the defect where the ODP probe finds the kernel misplacing
# data within a page, as rxe of 7.2.13 does); elsewhere errors.sh checks
# that the server refuses it with a message.
fsdax_cases() {
	if [[ -z "${RPMA_TEST_FSDAX:-}" ]]; then
		echo "SKIP fsdax: no FS DAX mount (tests/vm/run --nvdimm)"
		return
	fi
	if ! has_odp; then
		skip fsdax-odp "the device reports no On-Demand Paging (kernel $(uname -r); rxe has it from 6.15)"
		return
	fi
	local kind file
	for kind in apm gpspm; do
		file=$RPMA_TEST_FSDAX/$kind-fsdax
		truncate -s 16m "$file"
		if run_pair "$kind-fsdax-odp" "$kind" \
			"--filename=$file --direct_write_to_pmem=1 --size=16m --iodepth=4" \
			"--rw=write --bs=64k --iodepth=4 --size=16m --buffer_pattern=0x5aa5c33c"; then
			# the test VM's device is rxe, whose ODP the server
			# must warn about (docs/engines.md)
			expect "$kind-fsdax-server-warns-of-rxe-odp" \
				says server "over Soft-RoCE (rxe), whose On-Demand Paging"
			if odp_offsets_lost; then
				skip "$kind-fsdax-server-sees-data" "$(odp_defect)"
			else
				"$PATTERN_CHECK" "$file" 0 $((16 << 20)) 0x5aa5c33c >"$(case_dir)/pattern.log" 2>&1
				# not 0: the file does not hold the client's pattern
				fact pattern-check.status $?
				expect "$kind-fsdax-server-sees-data" status pattern-check ok
			fi
		fi
		rm -f "$file"
	done
}

# Persistent memory: Device DAX for both methods; what the client wrote is
# then checked on the server side, in the device itself.
pmem_cases() {
	local kind
	for kind in apm gpspm; do
		needs_devdax "$kind-devdax-2jobs" || continue
		run_pair "$kind-devdax-2jobs" "$kind" \
			"--filename=$RPMA_TEST_DEVDAX --direct_write_to_pmem=1 --numjobs=2 --size=32m --iodepth=8" \
			"--rw=write --bs=64k --iodepth=8 --numjobs=2 --size=32m --buffer_pattern=0x5aa5c33c" ||
			continue
		# job 2's part of the device: written by the second client job
		"$PATTERN_CHECK" "$RPMA_TEST_DEVDAX" $((32 << 20)) $((32 << 20)) 0x5aa5c33c \
			>"$(case_dir)/pattern.log" 2>&1
		# not 0: the device does not hold the client's pattern
		fact pattern-check.status $?
		expect "$kind-devdax-server-sees-data" status pattern-check ok
	done
}
