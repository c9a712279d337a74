// SPDX-License-Identifier: BSD-3-Clause
// The codes the unit tests saw the C API return (record.cc).
#pragma once

namespace unit {

// Writes them to $RPMA_UNIT_ERRORS_DIR/<program>.txt if that is set; false
// if it could not.
bool write_seen_errors(const char *program);

} // namespace unit
