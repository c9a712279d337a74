# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# engine/tests/interop.sh -- the new engines against the old ones (fio's own
# librpma engines with Debian's librpma 1.2, built by build-old-fio or
# bench/prepare-reference), in every pairing. Sourced by in-vm.sh after
# lib.sh when OLD_FIO is set; `make check-interop` runs only these cases.
#
# A side is one of
#   new     fio with our engines and our librpma (RPMA_LIB_DIR)
#   old     the reference fio with its own engines and Debian's librpma
#   ourlib  the reference fio and engines on OUR librpma.so.0: the library
#           as a drop-in replacement under a program built against 1.2

interop_pattern_n=0

# interop_start SIDE ROLE KIND ARGS...: fio_start as SIDE
interop_start() {
	local s=$1
	shift
	case $s in
	new | old) side=$s fio_start "$@" ;;
	# fio_start's old side with our library in the old one's place
	ourlib) side=old OLD_RPMA_LIB=$RPMA_LIB_DIR fio_start "$@" ;;
	esac
}

# interop_case KIND SERVER-SIDE CLIENT-SIDE: a sequential write job of the
# client, checked one of two ways:
# - a client that can read (every APM client, our GPSPM client) verifies
#   what it wrote by reading it back (verify=crc32c);
# - the old GPSPM engine cannot read (it refuses every mode that reads, so
#   fio's verify cannot run), so its client writes a pattern
#   (buffer_pattern=) into a server on the Device DAX, and the server's
#   memory is checked afterwards (pattern_check). Every such case writes a
#   pattern of its own: data left by an earlier case cannot pass for it.
interop_case() {
	local kind=$1 srv=$2 cli=$3 name crc src start=$SECONDS pattern=
	name=interop-$kind-$srv-server-$cli-client
	[[ $srv == ourlib ]] && name=interop-$kind-old-engines-on-our-librpma
	begin_case "$name"
	if [[ $srv == ourlib ]] && [[ -z "${RPMA_LIB_DIR:-}" ]]; then
		fail "$name" "RPMA_LIB_DIR is not set: which librpma is ours?"
		return
	fi
	local server_args=(--filename=malloc --size=4m --iodepth=4)
	local client_args=(--rw=write --bs=4k --iodepth=4 --size=4m)
	if [[ $kind == gpspm && $cli != new ]]; then
		if [[ -z "${RPMA_TEST_DEVDAX:-}" || -z "${PATTERN_CHECK:-}" ]]; then
			fail "$name" "no Device DAX (tests/vm/run --nvdimm) or no PATTERN_CHECK to check the server's memory with"
			return
		fi
		interop_pattern_n=$((interop_pattern_n + 1))
		pattern=$(printf '0x%02x5aa5%02x' $((0x30 + interop_pattern_n)) $((0xc0 + interop_pattern_n)))
		server_args=(--filename="$RPMA_TEST_DEVDAX" --size=4m --iodepth=4)
		client_args+=(--buffer_pattern="$pattern")
	else
		client_args+=(--verify=crc32c)
	fi
	interop_start "$srv" server "$kind" "${server_args[@]}"
	interop_start "$cli" client "$kind" "${client_args[@]}"
	wait_exit "$(pid_of client)" 300
	crc=$?
	wait_exit "$(pid_of server)" 30
	src=$?
	echo "  $name: $((SECONDS - start)) s"
	# fio lays out a file named malloc for the old server engines (a
	# difference from ours, docs/engines.md); evaluate.py fails a pair that
	# leaves one, which holds for our server only
	[[ $srv == new ]] || rm -f "$(case_dir)/malloc"
	if record_pair "$name" "$crc" "$src" && [[ -n $pattern ]]; then
		"$PATTERN_CHECK" "$RPMA_TEST_DEVDAX" 0 $((4 << 20)) "$pattern" \
			>"$(case_dir)/pattern.log" 2>&1
		# not 0: the server's memory does not hold the client's pattern
		fact pattern-check.status $?
		expect "$name-server-holds-pattern" status pattern-check ok
	fi
}

# {new, old} client x {new, old} server x {APM, GPSPM}, then the old
# engines on our library, both sides
interop_cases() {
	local kind srv cli
	for kind in apm gpspm; do
		for srv in new old; do
			for cli in new old; do
				interop_case "$kind" "$srv" "$cli"
			done
		done
		interop_case "$kind" ourlib ourlib
		many_mixed "$kind"
	done
}
