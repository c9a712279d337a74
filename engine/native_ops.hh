// SPDX-License-Identifier: BSD-3-Clause
// native_ops.hh -- the clients' native_ops= option: a list of the native
// operations a job's connection posts, in RPMA_NATIVE_OPS's words. No fio
// here: engine/tests/native_ops_test.cc tests it on the host.
#ifndef RPMA_ENGINE_NATIVE_OPS_HH
#define RPMA_ENGINE_NATIVE_OPS_HH

#include <optional>
#include <string>
#include <string_view>

namespace rpma_fio {

// In Options::native_ops: the option was given (native_ops=none sets it
// alone); the low bits are librpma_private.h's RPMA_NATIVE_OP_*.
constexpr unsigned int NATIVE_OPS_SET = 1U << 8;

// "none", "flush", "atomic_write" or "all", several separated by commas or
// spaces (as RPMA_NATIVE_OPS): NATIVE_OPS_SET and the operations' bits, or
// nothing if a word is none of those (*bad: the first such word) or there
// is no word at all.
std::optional<unsigned int> parse_native_ops(std::string_view list, std::string *bad);

// "native_ops=" and the option's value in its shortest words
std::string native_ops_option(unsigned int value);

}

#endif
