#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/abi/reference.sh DIR -- unpacks Debian's upstream librpma (librpma0 and
# librpma-dev) into DIR without installing it; prints nothing when done before.
set -euo pipefail
dir=$1
[ -f "$dir/usr/include/librpma.h" ] && exit 0
mkdir -p "$dir/debs"
(cd "$dir/debs" && apt-get -q -o APT::Sandbox::User=root download librpma0 librpma-dev >/dev/null) ||
	{ echo "abi: cannot download librpma0/librpma-dev (Debian registry unreachable?)" >&2; exit 1; }
for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir"; done
