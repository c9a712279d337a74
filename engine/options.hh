// SPDX-License-Identifier: BSD-3-Clause
// options.hh -- the job options of the engines.
#ifndef RPMA_ENGINE_OPTIONS_HH
#define RPMA_ENGINE_OPTIONS_HH

#include "fio.hh"
#include "native_ops.hh"

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
	unsigned int clients;         // server: connections a job serves
	unsigned int port_per_job;    // client: job N connects to port + N - 1
	// Server: seconds an accepted connection request may take to come up
	// before its place is given back (a stranger's, or a client too slow)
	unsigned int handshake_timeout;
	// Client: native_ops= as given, and parsed (native_ops.hh): 0 when
	// not given, and then the environment's RPMA_NATIVE_OPS decides.
	char *native_ops_list;
	unsigned int native_ops;
	unsigned int aof_mode; // librpma_aof_*: an AofMode (wire_format.hh)
	// Server: allow= as given (checked by its callback; allow.hh parses
	// it), nullptr or "" when not given: anyone may connect.
	char *allow;
	// Server: isolation= as given (isolation.hh parses it), nullptr or ""
	// when not given: window where the device has type 2 windows.
	char *isolation;
	char *write_quorum; // librpma_aof_client: "all" or a number of replicas
};

// Every engine's options, the clients' own first: the servers' list is the
// same array past those (fio reads a list up to an entry without a name).
extern fio_option options[];
constexpr int CLIENT_ONLY_OPTIONS = 1;

inline fio_option *client_options()
{
	return options;
}

inline fio_option *server_options()
{
	return options + CLIENT_ONLY_OPTIONS;
}

// The append-only-log engines': aof_mode=, then the client's or the
// server's list above.
fio_option *aof_client_options();
fio_option *aof_server_options();

inline const Options &options_of(thread_data *td)
{
	return *static_cast<const Options *>(td->eo);
}

// The port of this job (docs/engines.md, "Ports"): the base port plus the
// job's number, so that the Nth server job pairs with the Nth client job;
// a client job with port_per_job=0 connects to the base port itself, where
// a server job with clients= takes many connections. Empty when the option
// is not a valid port: the job has failed (fail()), its caller returns
// Result::FAILED.
std::string job_port(thread_data *td, bool per_job = true);
// The same from the base port `base` (one item of a client's port= list).
std::string job_port(thread_data *td, const char *base, bool per_job);

}

#endif
