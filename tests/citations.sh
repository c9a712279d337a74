#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/citations.sh -- make check's run of tests/citations.py: first its
# self-test (a broken citation of each kind, planted in a scratch tree, must
# be reported), then the tree itself: every document, section and source a
# comment or a document cites is in the tree.
top=${top_srcdir:-$(dirname "$0")/..}
py=${PYTHON3:-python3}
if ! command -v "$py" >/dev/null 2>&1; then
	echo "SKIP: citations: no $py to run tests/citations.py"
	exit 77
fi
PYTHONDONTWRITEBYTECODE=1 "$py" "$top/tests/citations.py" --self-test || exit 1
PYTHONDONTWRITEBYTECODE=1 exec "$py" "$top/tests/citations.py" "$top"
