#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/judges.sh -- make check's run of tests/judges.py: the unit tests of
# the VM suites' judges on the run files recorded next to each.
top=${top_srcdir:-$(dirname "$0")/..}
py=${PYTHON3:-python3}
if ! command -v "$py" >/dev/null 2>&1; then
	echo "SKIP: judges: no $py to run tests/judges.py"
	exit 77
fi
PYTHONDONTWRITEBYTECODE=1 exec "$py" "$top/tests/judges.py" \
	"$top/tests/twohosts/test_judge.py" "$top/engine/tests/test_evaluate.py" \
	"$top/engine/tests/test_rules.py" "$top/engine/tests/test_soak_judge.py" \
	"$top/tests/test_tally.py" "$top/tests/twohosts/test_aof_summary.py" \
	"$top/tests/test_fio_readers.py" "$top/tests/test_measure.py"
