#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The checks of the manual can fail: each runs on a scratch copy of its
# inputs, first as they are (it must pass), then broken in one way (it must
# fail). A check that cannot fail checks nothing.
. "$(dirname "$0")/lib.sh"

scratch=$builddir/selftest.tmp
rm -rf "$scratch"
mkdir -p "$scratch/rpma" "$scratch/built"
trap 'rm -rf "$scratch"' EXIT
status=0

fresh() {
	rm -rf "$scratch/rpma" "$scratch/built" "$scratch/src" "$scratch/seen"
	cp -R "$top_srcdir/rpma" "$scratch/rpma"
	cp -R "$srcdir/man/src" "$scratch/src"
	mkdir -p "$scratch/seen"
	[ ! -d "${errors_seen:-}" ] || cp "$errors_seen"/*.txt "$scratch/seen/"
	mkdir -p "$scratch/built"
	cp -R "$builddir/man3" "$builddir/man7" "$scratch/built/"
	chmod -R u+w "$scratch"
}

run() { # run <check>: the check on the scratch copy
	case $1 in
	coverage) mancheck coverage --map "$scratch/rpma/librpma.map" --header "$scratch/rpma/librpma.h" \
		--src "$scratch/src" --built "$scratch/built" ;;
	synopsis) mancheck synopsis --header "$scratch/rpma/librpma.h" --built "$scratch/built" ;;
	groff) mancheck groff --built "$scratch/built" ${GROFF:+--groff "$GROFF"} ;;
	errors) mancheck errors --src "$scratch/src" --header "$scratch/rpma/librpma.h" --seen "$scratch/seen" ;;
	esac >"$scratch/out" 2>&1
}

expect() { # expect pass|fail <check> <what was done>
	if run "$2"; then got=pass; else got=fail; fi
	if [ "$got" = "$1" ]; then
		if [ "$1" = pass ]; then
			echo "ok: $2 passes on the unchanged inputs"
		else
			echo "ok: $2 fails after $3:"
			grep -m 2 -A 1 '^FAIL' "$scratch/out" | head -n 3 | sed 's/^/    /'
		fi
	else
		echo "NOT OK: $2 ${3:+after $3 }should $1 but did not:"
		sed 's/^/    /' "$scratch/out"
		status=1
	fi
}

# without the unit tests' records (make check runs tests/ before docs/) the
# errors check is skipped, here as in errors.sh
checks="coverage synopsis groff"
[ ! -d "${errors_seen:-}" ] || checks="$checks errors"
for check in $checks; do
	fresh
	expect pass "$check"
done

fresh; rm "$scratch/built/man3/rpma_mr_reg.3"
expect fail coverage "removing the page of rpma_mr_reg"
fresh; rm "$scratch/src/rpma_cq_wait.3.md"
expect fail coverage "removing the source of rpma_cq_wait"
fresh; sed -i 's/^\([[:space:]]*\)rpma_write;$/\1rpma_write;\n\1rpma_not_documented;/' "$scratch/rpma/librpma.map"
echo 'int rpma_not_documented(void);' >>"$scratch/rpma/librpma.h"
expect fail coverage "exporting an undocumented function"
fresh; printf '\nSee rpma_no_such_call(3).\n' >>"$scratch/src/rpma_mr_reg.3.md"
expect fail coverage "referring to a page that does not exist"

fresh; sed -i 's/size_t " "size"/int " "size"/' "$scratch/built/man3/rpma_mr_reg.3"
expect fail synopsis "editing a parameter type in the built page of rpma_mr_reg"
fresh; sed -i '/^\.SH DESCRIPTION$/a Its \\fIlength\\fP.' "$scratch/built/man3/rpma_mr_get_size.3"
expect fail synopsis "mentioning a parameter the function does not have in rpma_mr_get_size.3"
fresh; sed -i 's/int rpma_cq_wait(struct rpma_cq \*cq);/int rpma_cq_wait(struct rpma_cq *cq, int flags);/' "$scratch/rpma/librpma.h"
expect fail synopsis "changing the prototype of rpma_cq_wait in the header"
fresh; sed -i 's/enum rpma_log_level level);/int level);/' "$scratch/rpma/librpma.h"
expect fail synopsis "changing a parameter of rpma_log_set_threshold in the header"

fresh; printf '.XX unknown macro\n' >>"$scratch/built/man3/rpma_conn_delete.3"
expect fail groff "adding an unknown macro to rpma_conn_delete.3"
fresh; printf 'an undefined character \\[nosuchglyph]\n' >>"$scratch/built/man7/librpma.7"
expect fail groff "adding an undefined special character to librpma.7"

if [ -d "${errors_seen:-}" ]; then
	fresh; printf -- '- RPMA_E_AGAIN: never\n' >"$scratch/extra"
	sed -i '/^## ERRORS/r '"$scratch/extra" "$scratch/src/rpma_mr_get_ptr.3.md"
	expect fail errors "listing RPMA_E_AGAIN for rpma_mr_get_ptr"
	fresh; sed -i '/^- RPMA_E_PROVIDER:/d' "$scratch/src/rpma_mr_reg.3.md"
	expect fail errors "dropping RPMA_E_PROVIDER from rpma_mr_reg"
	fresh; sed -i '/^rpma_srq_cfg_new RPMA_E_NOMEM$/d' "$scratch/seen"/*.txt
	expect fail errors "dropping the unit test that provokes RPMA_E_NOMEM from rpma_srq_cfg_new"
	fresh; sed -i '/^rpma_cq_wait\( \|$\)/d' "$scratch/seen"/*.txt
	expect fail errors "dropping every unit test that calls rpma_cq_wait"
fi

exit $status
