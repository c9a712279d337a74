#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# groff -man -ww -z has nothing to say about any page.
. "$(dirname "$0")/lib.sh"
mancheck groff --built "$builddir" ${GROFF:+--groff "$GROFF"}
