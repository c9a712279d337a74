#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# engine/tests/version-mismatch.sh -- an engine loaded by a fio other than
# the one it was built for refuses with a message, before it touches fio's
# structures. Each engine is copied with its recorded fio version changed
# (same length), then loaded by this host's fio (or $FIO): no RDMA needed.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${ENGINE_DIR:?}" "${ENGINES:?}" "${FIO_VERSION_H:?}"
export LD_LIBRARY_PATH=${RPMA_LIB_DIR:+$RPMA_LIB_DIR:}${LD_LIBRARY_PATH:-}
fio=${FIO:-fio}	# the fio the engines were built for
if ! command -v "$fio" >/dev/null; then
	echo "version-mismatch: SKIP: no $fio"
	exit 77
fi
built_for=$(sed -n 's/^#define RPMA_FIO_BUILT_FOR "\(.*\)"$/\1/p' "$FIO_VERSION_H")
[[ -n "$built_for" ]] || { echo "version-mismatch: no version in $FIO_VERSION_H"; exit 99; }
# every digit 9 (or 8 when it is already all nines): same length, other fio
other=$(tr 0-8 9 <<<"$built_for")
[[ $other != "$built_for" ]] || other=$(tr 9 8 <<<"$built_for")

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
passed=0 failed=0
for engine in $ENGINES; do
	copy=$scratch/$engine.so
	python3 - "$ENGINE_DIR/$engine.so" "$copy" "$built_for" "$other" <<'PY'
import sys
src, dst, old, new = sys.argv[1:]
data = open(src, "rb").read()
old, new = old.encode() + b"\0", new.encode() + b"\0"
if data.count(old) != 1:
    sys.exit(f"{src}: {data.count(old)} copies of the version string")
open(dst, "wb").write(data.replace(old, new))
PY
	status=0
	timeout 60 env ${FIO_PRELOAD:+LD_PRELOAD="$FIO_PRELOAD"} "$fio" --name=mismatch --ioengine="external:$copy" --thread \
		--serverip=127.0.0.1 --port=7204 --filename=malloc --size=1m \
		--rw=write --create_serialize=0 >"$scratch/out" 2>&1 || status=$?
	# the refusal is judged where fio-versions judges its own (the same
	# guard, a real other fio there); one fio, so only the guard may refuse
	IFS=$'\t' read -r verdict detail < <(PYTHONPATH="$here/../../bench" python3 -m \
		rpma_measure.fio_versions guard "${other#fio-}" "${built_for#fio-}" "$status" "$scratch/out" ||
		printf 'fail\tno verdict from rpma_measure.fio_versions\n')
	if [[ $verdict == pass ]]; then
		echo "PASS: $engine refuses a fio it was not built for"
		passed=$((passed + 1))
	else
		echo "FAIL: $engine in another fio: $detail; output:"
		sed 's/^/  /' "$scratch/out"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
((failed == 0))
