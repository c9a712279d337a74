#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The ERRORS of every page are the codes the implementation can return.
. "$(dirname "$0")/lib.sh"
mancheck errors --src "$srcdir/man/src" --rpma "$top_srcdir/rpma" \
	--adjust "$srcdir/man/errors-adjust.tbl"
