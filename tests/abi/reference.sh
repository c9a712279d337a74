#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/abi/reference.sh DIR -- unpacks Debian's upstream librpma (librpma0 and
# librpma-dev) into DIR without installing it; prints nothing when done before.
# Exits 77 (skip) on a release that has no librpma0 (Debian removed it after
# trixie).
set -euo pipefail
dir=$1
[ -f "$dir/usr/include/librpma.h" ] && exit 0
if ! apt-cache show librpma0 >/dev/null 2>&1; then
	echo "abi: SKIP: this distribution's apt knows no librpma0 to compare with (Debian 12 and 13 have it; later releases dropped it)"
	exit 77
fi
mkdir -p "$dir/debs"
(cd "$dir/debs" && apt-get -q -o APT::Sandbox::User=root download librpma0 librpma-dev >/dev/null) ||
	{ echo "abi: cannot download librpma0/librpma-dev (Debian registry unreachable?)" >&2; exit 1; }
for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir"; done
