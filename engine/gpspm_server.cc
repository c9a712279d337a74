// SPDX-License-Identifier: BSD-3-Clause
// gpspm_server.cc -- librpma_gpspm_server: General Purpose Server
// Persistency Method. The server persists each range its client asks for in
// a flush request and answers when done; an all-zero request ends the run.
#include "gpspm_serving.hh"
#include "many_server.hh"
#include "server_ops.hh"

namespace rpma_fio {
namespace {

std::unique_ptr<Server> make()
{
	return std::make_unique<GpspmServer>();
}

}
}

ioengine_ops ioengine = rpma_fio::server_ops<rpma_fio::make, rpma_fio::make_gpspm_many>(
	"librpma_gpspm_server");
