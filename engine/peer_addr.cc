// SPDX-License-Identifier: BSD-3-Clause
#include "peer_addr.hh"

#include <arpa/inet.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <span>
#include <vector>

namespace rpma_fio {

namespace {

constexpr size_t BUF_SIZE = 32768;

// The attributes of a netlink message or of a nested attribute.
template <typename F> void each_attr(std::span<const uint8_t> data, F &&f)
{
	while (data.size() >= sizeof(nlattr)) {
		nlattr a;
		std::memcpy(&a, data.data(), sizeof(a));
		if (a.nla_len < sizeof(a) || a.nla_len > data.size())
			return;
		f(a.nla_type & NLA_TYPE_MASK, data.subspan(NLA_HDRLEN, a.nla_len - NLA_HDRLEN));
		data = data.subspan(std::min<size_t>(NLA_ALIGN(a.nla_len), data.size()));
	}
}

std::string format(std::span<const uint8_t> ss)
{
	sockaddr_storage sa{};
	std::memcpy(&sa, ss.data(), std::min(ss.size(), sizeof(sa)));
	char host[INET6_ADDRSTRLEN] = "";
	char out[INET6_ADDRSTRLEN + 16];
	if (sa.ss_family == AF_INET) {
		const auto *in = reinterpret_cast<const sockaddr_in *>(&sa);
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		std::snprintf(out, sizeof(out), "%s:%u", host, ntohs(in->sin_port));
	} else if (sa.ss_family == AF_INET6) {
		const auto *in6 = reinterpret_cast<const sockaddr_in6 *>(&sa);
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		std::snprintf(out, sizeof(out), "[%s]:%u", host, ntohs(in6->sin6_port));
	} else {
		return {};
	}
	return out;
}

// The peer address of the entry, if its queue pair is qp.
std::string match(std::span<const uint8_t> entry, uint32_t qp)
{
	bool ours = false;
	std::span<const uint8_t> dst;
	each_attr(entry, [&](int type, std::span<const uint8_t> v) {
		if (type == RDMA_NLDEV_ATTR_RES_LQPN && v.size() >= 4) {
			uint32_t n;
			std::memcpy(&n, v.data(), sizeof(n));
			ours = n == qp;
		} else if (type == RDMA_NLDEV_ATTR_RES_DST_ADDR) {
			dst = v;
		}
	});
	return ours && !dst.empty() ? format(dst) : std::string();
}

}

std::string peer_in_dump(std::span<const uint8_t> msgs, uint32_t qp, bool *done)
{
	std::string found;
	// on to the end after a match: the caller reads until the dump's end,
	// and one it was not told of would leave it waiting for a message
	// that never comes
	while (msgs.size() >= sizeof(nlmsghdr)) {
		nlmsghdr h;
		std::memcpy(&h, msgs.data(), sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > msgs.size())
			break;
		if (h.nlmsg_type == NLMSG_DONE || h.nlmsg_type == NLMSG_ERROR) {
			*done = true;
			break;
		}
		each_attr(msgs.subspan(NLMSG_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN),
			  [&](int type, std::span<const uint8_t> table) {
				  if (type != RDMA_NLDEV_ATTR_RES_CM_ID)
					  return;
				  each_attr(table, [&](int t, std::span<const uint8_t> e) {
					  if (t == RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY && found.empty())
						  found = match(e, qp);
				  });
			  });
		msgs = msgs.subspan(std::min<size_t>(NLMSG_ALIGN(h.nlmsg_len), msgs.size()));
	}
	return found;
}

std::string peer_address(ibv_context *dev, uint32_t qp)
{
	int index = dev ? ibv_get_device_index(dev->device) : -1;
	if (index < 0)
		return {};
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (fd < 0)
		return {};
	// the serving thread asks: a kernel that does not answer costs it a
	// name, not the clients' service
	const timeval bound{1, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof(bound));
	struct {
		nlmsghdr h;
		nlattr a;
		uint32_t index;
	} req{};
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_CM_ID_GET);
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.h.nlmsg_seq = 1;
	req.a.nla_len = NLA_HDRLEN + sizeof(uint32_t);
	req.a.nla_type = RDMA_NLDEV_ATTR_DEV_INDEX;
	req.index = static_cast<uint32_t>(index);
	std::string found;
	if (send(fd, &req, sizeof(req), 0) == static_cast<ssize_t>(sizeof(req))) {
		std::vector<uint8_t> buf(BUF_SIZE);
		bool done = false;
		// until the dump names the peer or ends: what is left of it
		// goes with the socket
		while (!done && found.empty()) {
			ssize_t n = recv(fd, buf.data(), buf.size(), 0);
			if (n <= 0)
				break;
			found = peer_in_dump({buf.data(), static_cast<size_t>(n)}, qp, &done);
		}
	}
	close(fd);
	return found;
}

}
