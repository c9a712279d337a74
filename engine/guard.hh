// SPDX-License-Identifier: BSD-3-Clause
// guard.hh -- refusing to run inside a fio the engine was not built for.
#ifndef RPMA_ENGINE_GUARD_HH
#define RPMA_ENGINE_GUARD_HH

#include "fio.hh"

namespace rpma_fio {

// true if td may be used; otherwise prints why not and returns false.
// Must be the first thing each hook that fio may call first does.
bool fio_matches(thread_data *td, const ioengine_ops *self);

// true once fio_matches() succeeded: hooks that fio may call after a failed
// check (cleanup) must not touch td otherwise.
bool fio_known_good();

}

#endif
