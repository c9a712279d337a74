// SPDX-License-Identifier: BSD-3-Clause
// apm_flush.hh -- which flush makes a client's RDMA writes durable enough
// when the client flushes by itself (librpma_apm_client; librpma_aof_client
// with aof_mode=apm).
#ifndef RPMA_ENGINE_APM_FLUSH_HH
#define RPMA_ENGINE_APM_FLUSH_HH

#include "fio.hh"
#include "result.hh"
#include "wire_format.hh"

#include <librpma.h>

namespace rpma_fio {

// From what the server's region allows: a persistent flush to PMem the
// server declares written directly (direct_write_to_pmem=1), which librpma
// is then told; a visibility flush to DRAM (said once per process). A PMem
// region without that declaration, or a region that allows neither, fails
// the job, saying why; `gpspm` names the server-flushed method to use instead.
Result apm_flush_type(thread_data *td, rpma_conn *conn, rpma_mr_remote *remote, const Workspace &ws,
		      const char *gpspm, rpma_flush_type *type);

}

#endif
