# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# engine/tests/native.sh -- native_ops= per job: one client fio (thread=1)
# with two APM jobs, job 1 native_ops=all and job 2 native_ops=none, against
# a server fio of two jobs on Device DAX (persistent flushes), both jobs
# writing and verifying at the same time. Each job must say what its flush
# and atomic write are made of, as this platform allows:
# - the kernel's rxe has both native verbs from Linux 6.2; this build needs
#   rdma-core 44 for the atomic write and 45 for the flush (the guest's
#   userspace is the build's): known here from the versions, not from the
#   library under test;
# - where the native flush is possible, the kernel itself is the witness:
#   a kprobe on rxe's responder function of persistent flushes
#   (rxe_flush_pmem_iova) records each one's length, and the two jobs'
#   writes differ in size (4 KiB and 8 KiB, one flush per write at
#   iodepth=1), so the flushes of each job are told apart: job 1's must be
#   there, job 2's (emulated: 8-byte RDMA reads) must not.
# Which line each job must print, and whether the kernel can witness, is
# decided here from the platform's versions; the rules stated (expect,
# lib.sh) are judged by rules.py on the host. Sourced by in-vm.sh after
# lib.sh.

# version_at_least VERSION MIN: dotted numbers, VERSION's leading ones
version_at_least() {
	local IFS=.
	local -a v m
	read -ra v <<<"${1%%[^0-9.]*}"
	read -ra m <<<"$2"
	local i
	for i in 0 1; do
		((${v[i]:-0} > ${m[i]:-0})) && return 0
		((${v[i]:-0} < ${m[i]:-0})) && return 1
	done
	return 0
}

# native_possible MIN-RDMA-CORE: rxe of this kernel and this rdma-core
# have the verb
native_possible() {
	local rdma
	rdma=$(dpkg-query -W -f='${Version}' libibverbs1 2>/dev/null) || return 1
	version_at_least "$(uname -r)" 6.2 && version_at_least "$rdma" "$1"
}

# expected_line JOB OPS: the line job JOB (native_ops=OPS, all or none)
# must print here; ENGINE_NAME: the client engine (librpma_apm_client)
expected_line() {
	local job=$1 ops=$2 f a
	if native_possible 45; then
		[[ $ops == all ]] && f=native || f="emulated (not enabled by native_ops=none)"
	else
		f="emulated (not supported by the device)"
	fi
	if native_possible 44; then
		[[ $ops == all ]] && a=native || a="emulated (not enabled by native_ops=none)"
	else
		a="emulated (not supported by the device)"
	fi
	echo "${ENGINE_NAME:-librpma_apm_client}[$job]: flush $f, atomic write $a"
}

tracing=/sys/kernel/tracing

# kernel_probe start|stop|remove NAME [FUNCTION ARGS]: a kprobe event
# rpma/NAME on FUNCTION of rxe's, recording ARGS (kprobe_events' syntax) of
# each call; stop leaves the calls in $(case_dir)/NAME.trace; false if it
# cannot be set. Removing an event clears the kernel's trace buffer, the
# other events' calls with it: stop them all before removing any.
kernel_probe() {
	case $1 in
	start)
		if ! mountpoint -q "$tracing"; then
			mount -t tracefs nodev "$tracing" 2>/dev/null || return 1
		fi
		echo "p:rpma/$2 $3 $4" >>"$tracing/kprobe_events" || return 1
		echo >"$tracing/trace"
		echo 1 >"$tracing/events/rpma/$2/enable"
		;;
	stop)
		echo 0 >"$tracing/events/rpma/$2/enable"
		grep -F " $2:" "$tracing/trace" >"$(case_dir)/$2.trace"
		;;
	remove) echo "-:rpma/$2" >>"$tracing/kprobe_events" ;;
	esac
}

# the length of each persistent flush rxe's responder executes
flush_probe() { # flush_probe start|stop|remove
	kernel_probe "$1" flush rxe_flush_pmem_iova 'len=%dx:u32'
}

# native_ops_client ENGINE [OPTION...]: one client fio (thread=1) of two
# jobs writing 1 MiB each at iodepth 1 and reading it back, job 1 with
# native_ops=all and 4 KiB writes, job 2 with none and 8 KiB ones, each
# OPTION (NAME=VALUE) in both; its exit status (wait_exit's)
native_ops_client() {
	local engine_name=$1 o
	shift
	{
		echo "[global]"
		echo "ioengine=$(engine "$engine_name")"
		for o in "$@"; do echo "$o"; done
		cat <<-EOF
			serverip=$RPMA_TEST_IP
			port=$(case_port)
			thread=1
			rw=write
			iodepth=1
			size=1m
			verify=crc32c

			[all]
			native_ops=all
			bs=4k

			[none]
			native_ops=none
			bs=8k
		EOF
	} >"$(case_dir)/client.fio"
	output_file client.json json
	(cd "$(case_dir)" && exec "${FIO[@]}" --output-format=json client.fio) \
		>"$(case_dir)/client.json" 2>"$(case_dir)/client.log" &
	wait_exit $! 300
}

# native_ops_window: a client whose job posts native flushes and atomic
# writes, against a server with isolation=window, fails saying to run the
# server with isolation=none; the job of emulated ones beside it completes
native_ops_window() {
	local name=apm-native-ops-through-a-window
	needs_devdax "$name" || return
	if ! native_possible 45; then
		skip "$name" "no native flush here (kernel $(uname -r))"
		return
	fi
	begin_case "$name"
	fio_server apm --filename="$RPMA_TEST_DEVDAX" --direct_write_to_pmem=1 --numjobs=2 \
		--size=2m --iodepth=1 --isolation=window
	native_ops_client apm_client
	fact client.status $?
	waited server "$(pid_of server)" 30 >/dev/null
	expect "$name" status client failed
	expect "$name" says client "which a server with isolation=window refuses" \
		"run the server with isolation=none"
}

native_ops_case() {
	local name=apm-native-ops-per-job crc src job line probe=no
	needs_devdax "$name" || return
	begin_case "$name"
	if native_possible 45; then
		if flush_probe start 2>"$(case_dir)/probe.log"; then
			probe=yes
		else
			echo "  $name: no kprobe on rxe_flush_pmem_iova ($(cat "$(case_dir)/probe.log"))"
		fi
	fi
	# 2 MiB each: a Device DAX maps at its alignment; isolation=none: a
	# memory window carries no flush right (docs/engines.md, "Isolation of
	# clients")
	fio_server apm --filename="$RPMA_TEST_DEVDAX" --direct_write_to_pmem=1 --numjobs=2 \
		--size=2m --iodepth=1 --isolation=none
	native_ops_client apm_client
	crc=$?
	wait_exit "$(pid_of server)" 30
	src=$?
	[[ $probe == yes ]] && flush_probe stop && flush_probe remove
	record_pair "$name" "$crc" "$src" || return
	# each job's line, once, on fio's info output: with json on stderr
	for job in 1:all 2:none; do
		line=$(expected_line "${job%%:*}" "${job#*:}")
		expect "$name-job${job%%:*}-${job#*:}-says" count client.log 1 1 is "$line"
	done
	# no engine's line inside the JSON report
	expect "$name-not-in-json" count client.json 0 0 contains "librpma_apm_client["
	if ! native_possible 45; then
		skip "$name-kernel-witness" "no native flush here (kernel $(uname -r), rdma-core $(dpkg-query -W -f='${Version}' libibverbs1 2>/dev/null))"
	elif [[ $probe != yes ]]; then
		skip "$name-kernel-witness" "no kprobe event on rxe_flush_pmem_iova (see probe.log)"
	else
		# job 1's 256 writes flushed natively, none of job 2's
		expect "$name-kernel-witness" count flush.trace 256 - ends len=4096
		expect "$name-kernel-witness" count flush.trace 0 0 ends len=8192
	fi
}
