#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every exported function has a page, and every page an exported function.
. "$(dirname "$0")/lib.sh"
mancheck coverage --map "$top_srcdir/rpma/librpma.map" --header "$top_srcdir/rpma/librpma.h" \
	--src "$srcdir/man/src" --built "$builddir" ${man_pages+--installed "$man_pages"}
