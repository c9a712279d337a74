// SPDX-License-Identifier: BSD-3-Clause
// Owning handles for librpma objects, so that a failed assertion (which
// throws) still releases everything a test created.

#ifndef RPMA_TESTS_INTEGRATION_HANDLES_HH
#define RPMA_TESTS_INTEGRATION_HANDLES_HH

#include <memory>

#include <librpma.h>

namespace it {

// librpma's destructors take T** and clear it; a unique_ptr deleter gets T*.
template <typename T, int (*Delete)(T **)> struct Deleter {
	void operator()(T *p) const { (void)Delete(&p); }
};

template <typename T, int (*Delete)(T **)> using Handle = std::unique_ptr<T, Deleter<T, Delete>>;

using Peer = Handle<rpma_peer, rpma_peer_delete>;
using PeerCfg = Handle<rpma_peer_cfg, rpma_peer_cfg_delete>;
using Ep = Handle<rpma_ep, rpma_ep_shutdown>;
using ConnCfg = Handle<rpma_conn_cfg, rpma_conn_cfg_delete>;
using ConnReq = Handle<rpma_conn_req, rpma_conn_req_delete>;
using Conn = Handle<rpma_conn, rpma_conn_delete>;
using MrLocal = Handle<rpma_mr_local, rpma_mr_dereg>;
using MrRemote = Handle<rpma_mr_remote, rpma_mr_remote_delete>;
using SrqCfg = Handle<rpma_srq_cfg, rpma_srq_cfg_delete>;
using Srq = Handle<rpma_srq, rpma_srq_delete>;
using Mw = Handle<rpma_mw, rpma_mw_delete>;

} // namespace it

#endif
