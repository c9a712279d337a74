#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/layering.sh -- the C API layer (rpma/c/) sits on the C++ core
# (rpma/*.cc), never under it: no core object refers to a symbol that an
# object of rpma/c/ defines, and no core source includes a file of rpma/c/.
# Symbols rather than source text, so that a call through a macro, an inline
# function or a template counts as well.
set -euo pipefail
build=${top_builddir:-.}/rpma
src=${srcdir:-.}/../rpma

# The object behind a libtool .lo: the PIC one, or the static one when
# shared libraries are disabled.
objects() {
	local lo dir obj
	for lo in "$@"; do
		dir=$(dirname "$lo")
		obj=$(sed -n "s/^pic_object='\(.*\)'$/\1/p" "$lo")
		[ -n "$obj" ] && [ "$obj" != none ] ||
			obj=$(sed -n "s/^non_pic_object='\(.*\)'$/\1/p" "$lo")
		echo "$dir/$obj"
	done
}

shopt -s nullglob
core_lo=("$build"/*.lo)
c_lo=("$build"/c/*.lo)
# librpma.lo would be the library itself; the core is librpma_core's sources
if [ ${#core_lo[@]} -eq 0 ] || [ ${#c_lo[@]} -eq 0 ]; then
	echo "layering: $build has no objects; build the library first"
	exit 1
fi

failed=0
# U lines of the core, T/W/D/B/R... lines of the C layer
mapfile -t c_defined < <(objects "${c_lo[@]}" | xargs nm --defined-only |
	awk 'NF == 3 && $2 ~ /[TWDBRVi]/ { print $3 }' | sort -u)
mapfile -t core_undefined < <(objects "${core_lo[@]}" | xargs nm --undefined-only |
	awk '{ print $NF }' | sort -u)
overlap=$(comm -12 <(printf '%s\n' "${c_defined[@]}") <(printf '%s\n' "${core_undefined[@]}"))
if [ -n "$overlap" ]; then
	echo "layering: the core uses symbols defined in rpma/c/:"
	for symbol in $overlap; do
		users=$(for o in $(objects "${core_lo[@]}"); do
			if nm --undefined-only "$o" | awk '{ print $NF }' | grep -qxF "$symbol"; then
				basename "$o" .o
			fi; done | tr '\n' ' ')
		echo "  $(echo "$symbol" | c++filt) (in: $users)"
	done
	failed=1
fi

includes=$(grep -lE '^#include[[:space:]]*"(\.\./)?c/' "$src"/*.cc "$src"/*.hh || true)
if [ -n "$includes" ]; then
	echo "layering: core sources include rpma/c/ files: $includes"
	failed=1
fi

echo "$((1 - failed)) passed, $failed failed"
exit $failed
