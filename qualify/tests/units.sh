#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rpma-qualify's unit tests (qualify/tests/test_units.py) with Debian's
# python3, the one rpma-qualify runs on. Exit 77 (SKIP) without it.
: "${srcdir:=$(dirname "$0")/..}"
py=/usr/bin/python3
if [ ! -x $py ]; then
	echo "SKIP: no $py (Debian's python3)"
	exit 77
fi
# the packages from the source tree: rpma_qualify and the measurement
# package it stands on, bench/rpma_measure
PYTHONPATH="$srcdir:$srcdir/../bench" PYTHONDONTWRITEBYTECODE=1 $py "$srcdir/tests/test_units.py" -v 2>&1 | tee units.out
status=$?
grep -q '^OK' units.out || status=1
# the count in the form CI's summary adds up
awk '/^Ran [0-9]+ tests? in/ { n = $2 }
	/^FAILED \(/ { gsub(/[^0-9,]/, ""); split($0, a, ","); for (i in a) f += a[i] }
	/^OK \(skipped=/ { gsub(/[^0-9]/, ""); s = $0 }
	END { printf "%d passed, %d failed%s\n", n - f - s, f, s ? ", " s " skipped" : "" }' units.out
exit $status
