// SPDX-License-Identifier: BSD-3-Clause
// options.cc -- names, types and defaults follow the old fio engines, so
// their job files run unchanged; connect_timeout and those after it are new.
#include "config.h"
#include "options.hh"
#include "allow.hh"
#include "isolation.hh"
#include "native_ops.hh"
#include "report.hh"
#include "wire_format.hh"

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <vector>

namespace rpma_fio {

namespace {
// fio lists engine options by group (--cmdhelp); the librpma group went
// away with fio's own librpma engines (3.38)
#ifdef RPMA_FIO_HAS_OPT_G_LIBRPMA
constexpr auto OPTION_GROUP = FIO_OPT_G_LIBRPMA;
#else
constexpr auto OPTION_GROUP = FIO_OPT_G_RDMA;
#endif

// fio's callback of native_ops= (its parser has stored the text): 0, or 1
// after saying what is wrong, which makes fio refuse the job file
int native_ops_given(void *data, const char *list)
{
	std::string bad;
	std::optional<unsigned int> value = parse_native_ops(list, &bad);
	if (!value) {
		log_err("fio: native_ops=%s: %s%s%s (none, flush, atomic_write or all; a list "
			"separated by commas)\n",
			list, bad.empty() ? "no operation" : "'", bad.c_str(),
			bad.empty() ? "" : "' is not an operation");
		return 1;
	}
	static_cast<Options *>(data)->native_ops = *value;
	return 0;
}

// fio's callback of allow=: 0, or 1 after saying what is wrong, which makes
// fio refuse the job file; the server parses the stored text again
int allow_given(void *, const char *list)
{
	std::string why;
	if (AllowList::parse(list ? list : "", &why))
		return 0;
	log_err("fio: allow=%s %s\n", list ? list : "", why.c_str());
	return 1;
}

// fio's callback of isolation=, as allow_given: the job file is refused
// with a clear word rather than fio's own list of values
int isolation_given(void *, const char *value)
{
	std::string why;
	if (parse_isolation(value ? value : "", &why))
		return 0;
	log_err("fio: isolation=%s %s\n", value ? value : "", why.c_str());
	return 1;
}
}

fio_option options[] = {
	// the client-only ones first (CLIENT_ONLY_OPTIONS): the servers' list
	// starts after them
	{
		.name = "native_ops",
		.lname = "librpma native operations",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(Options, native_ops_list),
		// the values are checked as a whole here: fio's own lists
		// (FIO_OPT_STR_MULTI) let a bad value after a good one pass
		.cb = reinterpret_cast<void *>(native_ops_given),
		.help = "Client: the RDMA operations to post natively where the local device has "
			"them, which the server's device must execute (a list; default: "
			"RPMA_NATIVE_OPS)",
		// for --enghelp=ENGINE,native_ops only: native_ops_given parses
		.posval =
			{
				{.ival = "none", .help = "flush and atomic write emulated"},
				{.ival = "flush", .help = "native RDMA FLUSH"},
				{.ival = "atomic_write", .help = "native RDMA ATOMIC WRITE"},
				{.ival = "all", .help = "both"},
			},
		.category = FIO_OPT_C_ENGINE,
		.group = OPTION_GROUP,
	},
	{
		.name = "serverip",
		.lname = "rpma_server_ip",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(Options, serverip),
		.help = "IP address the server listens on / the client connects to",
		.def = "",
		.category = FIO_OPT_C_ENGINE,
		.group = OPTION_GROUP,
	},
	{
		.name = "port",
		.lname = "rpma_server port",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(Options, port),
		.help = "Base port: job N uses port + N - 1 (a client with port_per_job=0: port)",
		.def = "7204",
		.category = FIO_OPT_C_ENGINE,
		.group = OPTION_GROUP,
	},
	{
		.name = "direct_write_to_pmem",
		.lname = "Direct Write to PMem (via RDMA) from the remote host is possible",
		.type = FIO_OPT_BOOL,
		.off1 = offsetof(Options, direct_write_to_pmem),
		.help = "Server: set only if RDMA writes reach PMem directly (DDIO off)",
		.def = "0",
		.category = FIO_OPT_C_ENGINE,
		.group = OPTION_GROUP,
	},
	{
		.name = "busy_wait_polling",
		.lname = "Set to 0 to wait for completion instead of busy-wait polling completion.",
		.type = FIO_OPT_BOOL,
		.off1 = offsetof(Options, busy_wait_polling),
		.help = "1: spin on the completion queue; 0: sleep until a completion arrives",
		.def = "1",
		.category = FIO_OPT_C_ENGINE,
		.group = OPTION_GROUP,
	},
	{
		.name = "connect_timeout",
		.lname = "librpma client connection timeout",
		.type = FIO_OPT_INT,
		.off1 = offsetof(Options, connect_timeout),
		.maxval = 24ULL * 3600,
		.minval = 0,
		.help = "Client: seconds to keep retrying until the server listens",
		.def = "60",
		.category = FIO_OPT_C_ENGINE,
		.group = OPTION_GROUP,
	},
	{
		.name = "clients",
		.lname = "librpma server connections per job",
		.type = FIO_OPT_INT,
		.off1 = offsetof(Options, clients),
		.maxval = 1024,
		.minval = 1,
		.help = "Server: connections the job accepts on its one port, each to a region "
			"of size= bytes of its own",
		.def = "1",
		.category = FIO_OPT_C_ENGINE,
		.group = OPTION_GROUP,
	},
	{
		.name = "handshake_timeout",
		.lname = "librpma server handshake timeout",
		.type = FIO_OPT_INT,
		.off1 = offsetof(Options, handshake_timeout),
		.maxval = 24ULL * 3600,
		.minval = 1,
		.help = "Server: seconds an accepted connection request may take to complete "
			"before its place is given back to the next request",
		.def = "10",
		.category = FIO_OPT_C_ENGINE,
		.group = OPTION_GROUP,
	},
	{
		.name = "allow",
		.lname = "librpma server allowed sources",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(Options, allow),
		.cb = reinterpret_cast<void *>(allow_given),
		.help = "Server: the addresses or networks (ADDR[/PREFIX], IPv4 or IPv6, a list "
			"separated by commas) whose connection requests it takes; others are "
			"refused before anything is made for them (default: anyone)",
		.category = FIO_OPT_C_ENGINE,
		.group = OPTION_GROUP,
	},
	{
		.name = "isolation",
		.lname = "librpma server isolation of clients",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(Options, isolation),
		.cb = reinterpret_cast<void *>(isolation_given),
		.help = "Server: window: each client reaches its range through a type 2 memory "
			"window bound on its own connection (refused where the device has none); "
			"none: through the region's key, which any connection of the job may use "
			"(default: window where the device has type 2 windows, else none)",
		// for --enghelp=ENGINE,isolation only: isolation_given parses
		.posval =
			{
				{.ival = "window", .help = "a memory window per connection"},
				{.ival = "none", .help = "the region's key"},
			},
		.category = FIO_OPT_C_ENGINE,
		.group = OPTION_GROUP,
	},
	{
		.name = "port_per_job",
		.lname = "librpma client port per job",
		.type = FIO_OPT_BOOL,
		.off1 = offsetof(Options, port_per_job),
		.help = "Client: 1: job N connects to port + N - 1; 0: every job to port (a "
			"server with clients=)",
		.def = "1",
		.category = FIO_OPT_C_ENGINE,
		.group = OPTION_GROUP,
	},
	{
		.name = nullptr,
	},
};

namespace {

fio_option aof_mode_option = {
	.name = "aof_mode",
	.lname = "librpma append-only log method",
	.type = FIO_OPT_STR,
	.off1 = offsetof(Options, aof_mode),
	.help = "How appended records and the log's tail pointer are made persistent; "
		"client and server must have the same",
	.def = "apm",
	.posval =
		{
			{.ival = "apm",
			 .oval = static_cast<unsigned int>(AofMode::APM),
			 .help = "the client flushes the records, atomically writes the tail "
				 "pointer and flushes it"},
			{.ival = "gpspm",
			 .oval = static_cast<unsigned int>(AofMode::GPSPM),
			 .help = "the client asks the server, which persists the records and "
				 "then the tail pointer"},
		},
	.category = FIO_OPT_C_ENGINE,
	.group = OPTION_GROUP,
};

fio_option write_quorum_option = {
	.name = "write_quorum",
	.lname = "librpma append-only log write quorum",
	.type = FIO_OPT_STR_STORE,
	.off1 = offsetof(Options, write_quorum),
	.help = "Client with several servers (serverip=A,B,C): how many replicas must hold an "
		"append persistently before it completes (1 to their number, or all)",
	.def = "all",
	.category = FIO_OPT_C_ENGINE,
	.group = OPTION_GROUP,
};

// aof_mode= (and `own`) then the options of `list`, up to its end: fio
// reads an engine's list up to an entry without a name
std::vector<fio_option> with_aof_mode(const fio_option *list,
				      std::initializer_list<fio_option> own = {})
{
	std::vector<fio_option> all{aof_mode_option};
	all.insert(all.end(), own);
	for (; list->name; list++)
		all.push_back(*list);
	all.push_back({.name = nullptr});
	return all;
}

}

fio_option *aof_client_options()
{
	static std::vector<fio_option> list = with_aof_mode(client_options(),
							    {write_quorum_option});
	return list.data();
}

fio_option *aof_server_options()
{
	static std::vector<fio_option> list = with_aof_mode(server_options());
	return list.data();
}

std::string job_port(thread_data *td, bool per_job)
{
	return job_port(td, options_of(td).port, per_job);
}

std::string job_port(thread_data *td, const char *base, bool per_job)
{
	char *end = nullptr;
	errno = 0;
	unsigned long port = base ? std::strtoul(base, &end, 10) : 0;
	if (!base || !*base || *end || errno)
		port = 0;
	else if (per_job)
		port += td->thread_number - 1;
	if (port == 0 || port > 65535) {
		// said and recorded: the caller returns Result::FAILED
		(void)fail(td, EINVAL, "port",
			   "port=%s: job %u would use port %lu, not in 1..65535", base ? base : "",
			   td->thread_number, port);
		return {};
	}
	char buf[8];
	std::snprintf(buf, sizeof(buf), "%lu", port);
	return buf;
}

}
