// SPDX-License-Identifier: BSD-3-Clause
// peer_addr.hh -- the address of the other end of a connection, for
// messages. librpma keeps its connection's rdma-cm id to itself; the
// kernel's RDMA netlink interface lists every id with its queue pair
// number and both addresses (what `rdma res show cm_id` prints).
#ifndef RPMA_ENGINE_PEER_ADDR_HH
#define RPMA_ENGINE_PEER_ADDR_HH

#include <infiniband/verbs.h>

#include <cstdint>
#include <span>
#include <string>

namespace rpma_fio {

// "ADDR:PORT" of the peer of the connection whose queue pair on dev is qp
// (IPv6 as "[ADDR]:PORT"), or "" if it cannot be told.
std::string peer_address(ibv_context *dev, uint32_t qp);

// What peer_address() reads from the kernel's answer: the messages of one
// RDMA_NLDEV_CMD_RES_CM_ID_GET dump (part of it). *done is set when they
// end the dump.
std::string peer_in_dump(std::span<const uint8_t> msgs, uint32_t qp, bool *done);

}

#endif
