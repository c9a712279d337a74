#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/install/prefix.sh -- `make install DESTDIR=...` writes under the
# configured prefix only, except the engines' bare-name links, which go to
# FIO_ENGINE_LINK_DIR only when configure was asked for them
# (--with-fio-engine-links), each pointing at an installed engine; the
# installed engines.list names the installed engines, no more, no less.
set -euo pipefail
: "${top_builddir:?}" "${prefix:?}"
links=${FIO_ENGINE_LINK_DIR:-}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

# a make of its own: variables given to the make that runs this test
# (TESTS=, SUBDIRS=) must not change what is installed
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" -s -C "$top_builddir" install DESTDIR="$dest" >"$dest/.log" 2>&1; then
	cat "$dest/.log"
	echo "0 passed, 1 failed"
	exit 1
fi
rm -f "$dest/.log"

passed=0 failed=0
check() { # description command...
	local what=$1
	shift
	if "$@"; then passed=$((passed + 1)); else echo "FAIL: $what"; failed=$((failed + 1)); fi
}

outside=$(cd "$dest" && find . ! -type d | sed 's|^\.||' | while read -r f; do
	case $f in "$prefix"/*) continue ;; esac
	[ -n "$links" ] && [ "${f%/*}" = "$links" ] && [ -L "$dest$f" ] && continue
	echo "$f"
done)
[ -z "$outside" ] || echo "installed outside $prefix:"$'\n'"$outside"
check "every file under $prefix${links:+ or a link in $links}" test -z "$outside"

engines=$(cd "$dest" && find ".$prefix" -name 'librpma_*.so' | sed 's|^\.||')
# the list the packages read names exactly the engines installed
list=$(cd "$dest" && find ".$prefix" -name engines.list)
if [ -n "$engines$list" ]; then
	check "$prefix's engines.list names the engines installed" test \
		"$(sort "$dest/$list" 2>/dev/null)" = "$(for e in $engines; do basename "$e" .so; done | sort)"
fi
if [ -n "$links" ]; then
	for e in $engines; do
		name=$(basename "$e" .so)
		check "$links/$name -> $e" test "$(readlink "$dest$links/$name" 2>/dev/null)" = "$e"
	done
	check "engines to link" test -n "$engines"
else
	check "no engine links without --with-fio-engine-links" test -z "$outside"
fi
# rpma-qualify runs on its installed packages: rpma_qualify and the
# measurement package it stands on (bench/rpma_measure), installed side by
# side; the command, pointed at this DESTDIR, lists its plans
tool=$(cd "$dest" && find ".$prefix" -path '*/bin/rpma-qualify' | sed 's|^\.||')
if [ -n "$tool" ]; then
	sed "s|\"\(/[^\"]*/qualify\)\"|\"$dest\1\"|" "$dest$tool" >"$dest/rpma-qualify"
	check "the installed rpma-qualify runs on its installed packages" sh -c \
		"cd / && /usr/bin/python3 '$dest/rpma-qualify' plans | grep -qx quick"
	check "rpma_measure installed beside rpma_qualify" test -n \
		"$(cd "$dest" && find ".$prefix" -path '*/qualify/rpma_measure/fio.py')"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
