// SPDX-License-Identifier: BSD-3-Clause
// options.hh -- the job options shared by all four engines.
#ifndef RPMA_ENGINE_OPTIONS_HH
#define RPMA_ENGINE_OPTIONS_HH

#include "fio.hh"

#include <string>

namespace rpma_fio {

// Filled by fio's option parser through the offsets in options[]; the
// first member is padding because fio treats offset 0 as "no field".
struct Options {
	void *pad;
	char *serverip;
	char *port;
	unsigned int direct_write_to_pmem;
	unsigned int busy_wait_polling;
	unsigned int connect_timeout; // seconds
};

extern fio_option options[];

inline const Options &options_of(thread_data *td)
{
	return *static_cast<const Options *>(td->eo);
}

// The port of this job: the base port plus the job's number, so that the
// Nth server job pairs with the Nth client job. Empty, after printing why,
// when the option is not a valid port.
std::string job_port(thread_data *td);

}

#endif
