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
	AM_CONDITIONAL([BUILD_ENGINES], [test -n "$FIO_SRC"])
])
