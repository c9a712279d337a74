#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The SYNOPSIS of every built page, read back, matches the header.
. "$(dirname "$0")/lib.sh"
mancheck synopsis --header "$top_srcdir/rpma/librpma.h" --built "$builddir"
