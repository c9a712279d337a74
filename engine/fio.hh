// SPDX-License-Identifier: BSD-3-Clause
// fio.hh -- fio's internal headers, as seen from the engines.
//
// fio's headers are C without extern "C" blocks, so every function they
// declare would get C++ linkage. They are wrapped here. A few of them include
// C++ headers of their own when __cplusplus is set (<atomic>); those are
// included first so that the nested includes are no-ops inside the block.
// config-host.h comes from the command line (-include), as in fio's build.
#ifndef RPMA_ENGINE_FIO_HH
#define RPMA_ENGINE_FIO_HH

#include <atomic>

// fio keeps its assertions (fio_ro_check() is one): its inline functions
// keep them here too where a release build compiles the engines' own out
// (NDEBUG); assert.h defines assert anew each time it is included.
#ifdef NDEBUG
#undef NDEBUG
#define RPMA_ENGINE_FIO_NDEBUG
#endif
#include <assert.h> // NOLINT(modernize-deprecated-headers): as below

extern "C" {
#include "fio.h"
#include "debug.h"
#include "ioengines.h"
#include "optgroup.h"
}

#ifdef RPMA_ENGINE_FIO_NDEBUG
#define NDEBUG
#include <assert.h> // NOLINT(modernize-deprecated-headers): defines assert anew
#undef RPMA_ENGINE_FIO_NDEBUG
#endif

// fio's minmax.h defines function-like min() and max() macros, which break
// std::min and std::max. fio's own inline functions are already expanded.
#undef min
#undef max

// The engine of this module, defined by apm_client.cc, gpspm_server.cc...:
// the one symbol fio looks up (as "ioengine", after the engine's name, which
// an external:/path/... name never matches). Everything else stays hidden.
extern "C" __attribute__((visibility("default"))) ioengine_ops ioengine;

#endif
