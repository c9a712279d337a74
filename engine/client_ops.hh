// SPDX-License-Identifier: BSD-3-Clause
// client_ops.hh -- the ioengine_ops of a client engine.
#ifndef RPMA_ENGINE_CLIENT_OPS_HH
#define RPMA_ENGINE_CLIENT_OPS_HH

#include "client.hh"
#include "guard.hh"
#include "options.hh"

namespace rpma_fio {

// The hooks fio may call first check that they run inside the fio they
// were built for.
template <std::unique_ptr<Client> (*Make)()>
ioengine_ops client_ops(const char *name, fio_option *opts = client_options())
{
	return {
		.name = name,
		.version = FIO_IOOPS_VERSION,
		.flags = FIO_DISKLESSIO | FIO_ASYNCIO_SETS_ISSUE_TIME,
		.init =
			[](thread_data *td) {
				return fio_matches(td, &ioengine) ? Client::init(td, Make) : 1;
			},
		.post_init = Client::post_init,
		.queue = Client::queue,
		.commit = Client::commit,
		.getevents = Client::getevents,
		.event = Client::event,
		.cleanup = Client::cleanup,
		.open_file = Client::open_file,
		.close_file = Client::close_file,
		.get_file_size =
			[](thread_data *td, fio_file *f) {
				return fio_matches(td, &ioengine) ? Client::get_file_size(td, f)
								  : 1;
			},
		.io_u_free = Client::io_u_free,
		.option_struct_size = sizeof(Options),
		.options = opts,
	};
}

}

#endif
