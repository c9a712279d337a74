#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The ERRORS of every page are the codes the unit tests saw its function
# return (tests/unit/record.cc records them while make check runs them).
. "$(dirname "$0")/lib.sh"
if [ ! -d "${errors_seen:-}" ]; then
	echo "SKIP: no records of the unit tests in '${errors_seen:-}' (configured with --disable-tests, or make check has not run tests/unit)"
	exit 77
fi
mancheck errors --src "$srcdir/man/src" --header "$top_srcdir/rpma/librpma.h" --seen "$errors_seen"
