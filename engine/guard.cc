// SPDX-License-Identifier: BSD-3-Clause
// guard.cc -- the engines read fio's structures (thread_data, io_u, ...)
// through the headers of one fio version and configuration. Inside another
// fio those reads hit the wrong bytes, so check before touching anything.
#include "guard.hh"
#include "fio_version.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>

namespace rpma_fio {

namespace {
std::atomic<bool> known_good{false};
}

bool fio_known_good()
{
	return known_good;
}

bool fio_matches(thread_data *td, const ioengine_ops *self)
{
	// Looked up at run time rather than linked: a fio that does not export
	// it must get this message, not a dlopen() failure.
	const char *running = static_cast<const char *>(dlsym(RTLD_DEFAULT, "fio_version_string"));
	if (!running) {
		log_err("%s: cannot tell which fio loaded this engine "
			"(fio_version_string is not exported); it was built for %s\n",
			self->name, RPMA_FIO_BUILT_FOR);
		return false;
	}
	if (std::strcmp(running, RPMA_FIO_BUILT_FOR) != 0) {
		log_err("%s: this engine was built for %s but is loaded "
			"by %s; rebuild it against that fio's source tree "
			"(configure --with-fio-src=DIR; tools/fio-source prepares "
			"a distribution's fio; see docs/engines.md)\n",
			self->name, RPMA_FIO_BUILT_FOR, running);
		return false;
	}
	// Same version, other configuration (config-host.h): thread_data then
	// has another layout and td->io_ops is not where we look for it.
	if (td->io_ops != self) {
		log_err("%s: the layout of fio's thread_data differs from "
			"the one this engine was built with (%s configured differently?); "
			"rebuild it against the tree this fio was built from\n",
			self->name, RPMA_FIO_BUILT_FOR);
		return false;
	}
	known_good = true;
	return true;
}

}
