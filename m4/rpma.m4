# SPDX-License-Identifier: BSD-3-Clause
# Macros of the rpma build.

# RPMA_REQUIRE_PKG(VAR, MODULE, DEBIAN-PACKAGE, [SWITCHES])
# A pkg-config module that must be present; the error names the package to
# install, and the switches that do without it.
AC_DEFUN([RPMA_REQUIRE_PKG], [
	PKG_CHECK_MODULES([$1], [$2], [],
		[AC_MSG_ERROR([$2 not found by pkg-config: install the Debian package $3[]_RPMA_WITHOUT([$4])])])
])

# AX_CXX_REQUIRE_STD20: the C++ compiler must accept -std=c++20.
AC_DEFUN([AX_CXX_REQUIRE_STD20], [
	AC_LANG_PUSH([C++])
	rpma_save_CXXFLAGS=$CXXFLAGS
	CXXFLAGS="$CXXFLAGS -std=c++20"
	AC_MSG_CHECKING([whether $CXX accepts -std=c++20])
	AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <span>]], [[std::span<int> s;]])],
		[AC_MSG_RESULT([yes])],
		[AC_MSG_RESULT([no]); AC_MSG_ERROR([a C++20 compiler is required (g++ 10 or later)])])
	CXXFLAGS=$rpma_save_CXXFLAGS
	AC_LANG_POP([C++])
])

# RPMA_FIO_SOURCE: where the configured fio source tree is.
# --with-fio-src=DIR names it; by default tools/setup leaves it in .cache/fio.
AC_DEFUN([RPMA_FIO_SOURCE], [
	AC_ARG_WITH([fio-src],
		[AS_HELP_STRING([--with-fio-src=DIR],
			[configured fio source tree matching the fio that loads the engines (default: .cache/fio if present; "no" to skip the engines)])],
		[], [with_fio_src=check])
	FIO_SRC=
	AS_CASE([$with_fio_src],
		[no], [],
		[check], [AS_IF([test -f "$srcdir/.cache/fio/config-host.h"],
			[FIO_SRC=`cd "$srcdir/.cache/fio" && pwd`])],
		[AS_IF([test -f "$with_fio_src/config-host.h"],
			[FIO_SRC=`cd "$with_fio_src" && pwd`],
			[AC_MSG_ERROR([$with_fio_src is not a configured fio source tree (no config-host.h); run tools/setup or see docs/engines.md])])])
	AS_IF([test -z "$FIO_SRC" && test "x$with_fio_src" = xcheck],
		[AC_MSG_WARN([no fio source tree found: the fio engines will not be built (run tools/setup, or give --with-fio-src=DIR)])])
	AC_SUBST([FIO_SRC])
	# fio's own build flags for its headers (fio's Makefile and configure)
	FIO_CPPFLAGS=
	AS_IF([test -n "$FIO_SRC"], [
		FIO_CPPFLAGS="-isystem $FIO_SRC -include $FIO_SRC/config-host.h -D_GNU_SOURCE -D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64 -DFIO_INC_DEBUG"
		RPMA_FIO_PROBES])
	AC_SUBST([FIO_CPPFLAGS])
	AM_CONDITIONAL([BUILD_ENGINES], [test -n "$FIO_SRC"])
])

# RPMA_REQUIRE_PKG and RPMA_REQUIRE_PROG take, as an optional last argument,
# the configure switches that leave out what needs the dependency.
m4_define([_RPMA_WITHOUT], [m4_ifval([$1], [ (or configure $1 to build without it)])])

# RPMA_REQUIRE_PROG(VAR, PROGRAM, DEBIAN-PACKAGE, [SWITCHES])
AC_DEFUN([RPMA_REQUIRE_PROG], [
	AC_PATH_PROG([$1], [$2], [no])
	AS_IF([test "x$$1" = xno],
		[AC_MSG_ERROR([$2 not found: install the Debian package $3[]_RPMA_WITHOUT([$4])])])
])

# RPMA_OPTIONAL_PART(NAME, WHAT): --disable-NAME leaves WHAT out of the build;
# the summary at the end of configure says so.
AC_DEFUN([RPMA_OPTIONAL_PART], [
	AC_ARG_ENABLE([$1],
		[AS_HELP_STRING([--disable-$1], [do not build $2])],
		[], [enable_$1=yes])
	AS_CASE([$enable_$1], [yes|no], [],
		[AC_MSG_ERROR([--enable-$1 takes yes or no, not $enable_$1])])
	AS_IF([test "x$enable_$1" = xno],
		[AC_MSG_NOTICE([--disable-$1: $2 will not be built])])
	AM_CONDITIONAL(m4_toupper([BUILD_$1]), [test "x$enable_$1" = xyes])
	AS_IF([test "x$enable_$1" = xno], [rpma_why=" (--disable-$1)"], [rpma_why=])
	rpma_summary="$rpma_summary
  $1: $enable_$1$rpma_why"
])

# RPMA_FIO_ENGINE_LINKS: --with-fio-engine-links[=DIR] makes `make install`
# also put a symlink named exactly like each engine (librpma_apm_client, no
# ".so") into DIR, where a stock fio's dlopen of the bare name finds it. DIR
# must be in the dynamic linker's default search path; "yes" picks
# /usr/lib/<multiarch>. Off by default: then `make install` writes under
# its prefix only.
AC_DEFUN([RPMA_FIO_ENGINE_LINKS], [
	AC_ARG_WITH([fio-engine-links],
		[AS_HELP_STRING([--with-fio-engine-links@<:@=DIR@:>@],
			[make install also links each fio engine by its bare name into DIR, where a stock fio finds ioengine=librpma_apm_client; DIR defaults to /usr/lib/MULTIARCH (default: no)])],
		[], [with_fio_engine_links=no])
	FIO_ENGINE_LINK_DIR=
	AS_CASE([$with_fio_engine_links],
		[no], [],
		[yes], [rpma_multiarch=`$CC -print-multiarch 2>/dev/null`
			FIO_ENGINE_LINK_DIR=/usr/lib${rpma_multiarch:+/$rpma_multiarch}],
		[/*], [FIO_ENGINE_LINK_DIR=$with_fio_engine_links],
		[AC_MSG_ERROR([--with-fio-engine-links takes an absolute directory, yes or no, not $with_fio_engine_links])])
	AS_IF([test -n "$FIO_ENGINE_LINK_DIR" && test -z "$FIO_SRC"],
		[AC_MSG_WARN([--with-fio-engine-links: there are no engines to link (no fio source tree)])])
	AC_SUBST([FIO_ENGINE_LINK_DIR])
])

# RPMA_SUMMARY: what this configuration builds and installs, and what not.
AC_DEFUN([RPMA_SUMMARY], [
	AS_IF([test -n "$FIO_SRC"],
		[rpma_engines="yes, for the fio in $FIO_SRC"],
		[rpma_engines="no (no fio source tree: --with-fio-src=DIR builds them)"])
	AS_IF([test -n "$FIO_ENGINE_LINK_DIR"],
		[rpma_links="$FIO_ENGINE_LINK_DIR"],
		[rpma_links="no (--with-fio-engine-links adds them)"])
	rpma_libdir=`test "x$prefix" = xNONE && prefix=$ac_default_prefix
		test "x$exec_prefix" = xNONE && exec_prefix=$prefix
		eval eval echo "$libdir"`
	AC_MSG_NOTICE([rpma $PACKAGE_VERSION will build
  library: yes, installed into $rpma_libdir
  fio engines: $rpma_engines
  engine links by bare name: $rpma_links
  assertions (--enable-checked): $enable_checked$rpma_summary])
])

# RPMA_FIO_PROBE(WHAT, MACRO, BODY): defines MACRO when BODY compiles in a
# function that sees fio's headers as the engines do (engine/fio.hh).
AC_DEFUN([RPMA_FIO_PROBE], [
	AC_MSG_CHECKING([whether fio's tree has $1])
	AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include "fio.hh"]], [$3])],
		[AC_MSG_RESULT([yes]); AC_DEFINE([$2], [1], [fio's tree has $1])],
		[AC_MSG_RESULT([no])])
])

# RPMA_FIO_PROBES: what the engines' source must adapt to in the fio tree
# they are built against. fio's interface changes from release to release
# (see docs/engines.md); these ask the tree instead of its version number.
AC_DEFUN([RPMA_FIO_PROBES], [
	AC_LANG_PUSH([C++])
	rpma_save_CPPFLAGS=$CPPFLAGS
	rpma_save_CXXFLAGS=$CXXFLAGS
	CPPFLAGS="$CPPFLAGS -I$srcdir/engine $FIO_CPPFLAGS"
	CXXFLAGS="$CXXFLAGS -std=c++20"
	AC_MSG_CHECKING([whether the engines compile with fio's headers in $FIO_SRC])
	AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include "fio.hh"]], [[return FIO_IOOPS_VERSION;]])],
		[AC_MSG_RESULT([yes])],
		[AC_MSG_RESULT([no])
		 AC_MSG_ERROR([fio's headers in $FIO_SRC do not compile (see config.log): is it a configured fio source tree?])])
	# fio 3.38 dropped its librpma engines and their option group
	RPMA_FIO_PROBE([the option group FIO_OPT_G_LIBRPMA], [RPMA_FIO_HAS_OPT_G_LIBRPMA],
		[[return FIO_OPT_G_LIBRPMA != 0;]])
	CPPFLAGS=$rpma_save_CPPFLAGS
	CXXFLAGS=$rpma_save_CXXFLAGS
	AC_LANG_POP([C++])
])
