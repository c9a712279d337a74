# SPDX-License-Identifier: BSD-3-Clause
# engine/tests/interop.sh -- the new engines against the old ones (fio's own
# librpma engines with Debian's librpma 1.2, built by build-old-fio), in
# both directions. Sourced by in-vm.sh after lib.sh when OLD_FIO is set.

# interop_case KIND SERVER-SIDE CLIENT-SIDE (old|new)
interop_case() {
	local kind=$1 name=interop-$1-$2-server-$3-client crc src verify=
	begin_case "$name"
	side=$2 fio_start server "$kind" --filename=malloc --size=4m --iodepth=4
	local server=$FIO_PID
	# the old GPSPM client cannot read, so cannot verify
	[[ $3 == new || $kind == apm ]] && verify=--verify=crc32c
	side=$3 fio_start client "$kind" --rw=randwrite --bs=4k --iodepth=4 --size=4m $verify
	wait_exit "$FIO_PID" 300
	crc=$?
	wait_exit "$server" 30
	src=$?
	if ((crc || src)); then
		fail "$name" "exit status: client $crc, server $src"
	else
		record "$name" pair "$crc $src"
	fi
}

interop_cases() {
	local kind
	for kind in apm gpspm; do
		interop_case "$kind" old new
		interop_case "$kind" new old
	done
}
