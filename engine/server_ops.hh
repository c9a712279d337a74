// SPDX-License-Identifier: BSD-3-Clause
// server_ops.hh -- the ioengine_ops of a server engine.
#ifndef RPMA_ENGINE_SERVER_OPS_HH
#define RPMA_ENGINE_SERVER_OPS_HH

#include "guard.hh"
#include "options.hh"
#include "server.hh"

namespace rpma_fio {

// The hooks fio may call first check that they run inside the fio they
// were built for.
// FIO_DISKLESSIO: fio must not lay out a file named by filename= (malloc).
using MakeServer = std::unique_ptr<Server> (*)();

// Make: the flavour's server.
template <MakeServer Make>
ioengine_ops server_ops(const char *name, fio_option *opts = server_options())
{
	return {
		.name = name,
		.version = FIO_IOOPS_VERSION,
		.flags = FIO_SYNCIO | FIO_DISKLESSIO | FIO_NODISKUTIL,
		.init =
			[](thread_data *td) {
				if (!fio_matches(td, &ioengine))
					return 1;
				return Server::init(td, Make);
			},
		.queue = Server::queue,
		.cleanup = Server::cleanup,
		.open_file = Server::open_file,
		.close_file = Server::close_file,
		.invalidate = Server::invalidate,
		.get_file_size =
			[](thread_data *td, fio_file *f) {
				return fio_matches(td, &ioengine) ? Server::get_file_size(td, f)
								  : 1;
			},
		.option_struct_size = sizeof(Options),
		.options = opts,
	};
}

}

#endif
