#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# make check's entry: runs suite.sh (the integration test program and every
# example pair) where real RDMA verbs work: on the host if it has an RDMA
# device, else in one boot of the Soft-RoCE VM.
set -u
: "${top_srcdir:?set by make check}" "${top_builddir:?set by make check}"

# the VM's own bound (suite.sh bounds each program well within it), and an
# emulated NVDIMM for the persistent-memory examples
exec "$top_srcdir/tests/vm/with-rdma" --timeout 900 --nvdimm -- \
	"$top_srcdir/tests/integration/suite.sh" "$top_builddir"
