# SPDX-License-Identifier: BSD-3-Clause
# Macros of the rpma build.

# RPMA_REQUIRE_PKG(VAR, MODULE, DEBIAN-PACKAGE)
# A pkg-config module that must be present; the error names the package to install.
AC_DEFUN([RPMA_REQUIRE_PKG], [
	PKG_CHECK_MODULES([$1], [$2], [],
		[AC_MSG_ERROR([$2 not found by pkg-config: install the Debian package $3])])
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
	FIO_CPPFLAGS="-isystem $FIO_SRC -include $FIO_SRC/config-host.h -D_GNU_SOURCE -D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64 -DFIO_INC_DEBUG"
	AC_SUBST([FIO_CPPFLAGS])
	AS_IF([test -n "$FIO_SRC"], [RPMA_FIO_PROBES])
	AM_CONDITIONAL([BUILD_ENGINES], [test -n "$FIO_SRC"])
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
