// SPDX-License-Identifier: BSD-3-Clause
// gpspm_server_engine.cc -- librpma_gpspm_server: General Purpose Server
// Persistency Method. The server persists each range its clients ask for
// in a flush request and answers when done; an all-zero request ends a
// client's run (gpspm_server.hh). Apart from gpspm_server.cc, which
// librpma_aof_server builds on too: each engine defines its own ioengine.
#include "gpspm_server.hh"
#include "server_ops.hh"

namespace rpma_fio {
namespace {

std::unique_ptr<Server> make()
{
	return std::make_unique<GpspmServer>();
}

}
}

ioengine_ops ioengine = rpma_fio::server_ops<rpma_fio::make>("librpma_gpspm_server");
