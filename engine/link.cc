// SPDX-License-Identifier: BSD-3-Clause
#include "link.hh"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if_arp.h>
#include <netdb.h>
#include <netpacket/packet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <vector>

namespace rpma_fio {

namespace {

// An IPoIB interface's hardware address: a queue pair number (4 bytes),
// then the GID of the port it runs on.
constexpr size_t IPOIB_ADDR_LEN = 20;

// The GID of an IP address as a RoCE device lists it: IPv6 as it is, IPv4
// mapped into IPv6 (::ffff:a.b.c.d). false for the wildcard address, which
// is on every port, and for other families.
bool gid_of(const sockaddr *sa, ibv_gid &gid)
{
	gid = {};
	if (sa->sa_family == AF_INET6) {
		const auto *in6 = reinterpret_cast<const sockaddr_in6 *>(sa);
		std::memcpy(gid.raw, &in6->sin6_addr, sizeof(gid.raw));
		return !IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr);
	}
	if (sa->sa_family != AF_INET)
		return false;
	const auto *in = reinterpret_cast<const sockaddr_in *>(sa);
	gid.raw[10] = gid.raw[11] = 0xff;
	std::memcpy(&gid.raw[12], &in->sin_addr, sizeof(in->sin_addr));
	return in->sin_addr.s_addr != htonl(INADDR_ANY);
}

bool same_address(const sockaddr *a, const sockaddr *b)
{
	ibv_gid ga, gb;
	return a && b && gid_of(a, ga) && gid_of(b, gb) && !std::memcmp(ga.raw, gb.raw, 16);
}

// The GID of the IPoIB interface that holds addr, if any: InfiniBand GIDs
// are no IP addresses, the interface's hardware address holds the port's.
bool ipoib_gid_of(const sockaddr *addr, ibv_gid &gid)
{
	ifaddrs *all;
	if (getifaddrs(&all))
		return false;
	const char *name = nullptr;
	for (const ifaddrs *i = all; i && !name; i = i->ifa_next)
		if (same_address(i->ifa_addr, addr))
			name = i->ifa_name;
	bool found = false;
	for (const ifaddrs *i = all; name && i && !found; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_PACKET ||
		    std::strcmp(i->ifa_name, name) != 0)
			continue;
		const auto *ll = reinterpret_cast<const sockaddr_ll *>(i->ifa_addr);
		if (ll->sll_hatype != ARPHRD_INFINIBAND || ll->sll_halen != IPOIB_ADDR_LEN)
			continue;
		// glibc's link-level addresses have room for the whole 20 bytes
		const auto *hw = reinterpret_cast<const unsigned char *>(ll) +
				 offsetof(sockaddr_ll, sll_addr);
		std::memcpy(gid.raw, hw + IPOIB_ADDR_LEN - sizeof(gid.raw), sizeof(gid.raw));
		found = true;
	}
	freeifaddrs(all);
	return found;
}

// The local address from which this host reaches dst: the one the kernel's
// routing picks, as rdma-cm's address resolution does. A UDP socket's
// connect() sends nothing.
bool source_for(const sockaddr *dst, socklen_t len, sockaddr_storage &src)
{
	sockaddr_storage to{};
	std::memcpy(&to, dst, len);
	// any port but 0 will do
	if (to.ss_family == AF_INET)
		reinterpret_cast<sockaddr_in &>(to).sin_port = htons(9);
	else
		reinterpret_cast<sockaddr_in6 &>(to).sin6_port = htons(9);
	const int fd = socket(to.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	socklen_t src_len = sizeof(src);
	const bool ok = !connect(fd, reinterpret_cast<const sockaddr *>(&to), len) &&
			!getsockname(fd, reinterpret_cast<sockaddr *>(&src), &src_len);
	close(fd);
	return ok;
}

}

// No RDMA-CM id of the engine's own: fio starts every job at once
// (thread=1), and librdmacm's table of ids is not safe against ids made and
// destroyed by several threads outside librpma's lock.
uint8_t LinkWatch::port_for(ibv_context *dev, const char *addr, bool local) const
{
	addrinfo hints{}, *info;
	hints.ai_flags = local ? AI_PASSIVE : 0;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(addr, nullptr, &hints, &info))
		return 0;
	sockaddr_storage here{};
	bool known = false;
	if (info->ai_family == AF_INET || info->ai_family == AF_INET6) {
		if (local) {
			std::memcpy(&here, info->ai_addr, info->ai_addrlen);
			known = true;
		} else {
			known = source_for(info->ai_addr, info->ai_addrlen, here);
		}
	}
	freeaddrinfo(info);
	if (!known)
		return 0;
	const auto *sa = reinterpret_cast<const sockaddr *>(&here);
	std::array<ibv_gid, 2> wanted{};
	if (!gid_of(sa, wanted[0]))
		return 0;
	const size_t n = ipoib_gid_of(sa, wanted[1]) ? 2 : 1;
	return port_listing(dev, std::span(wanted).first(n));
}

uint8_t LinkWatch::port_listing(ibv_context *dev, std::span<const ibv_gid> gids) const
{
	ibv_device_attr attr{};
	if (q_.device(dev, &attr))
		return 0;
	size_t entries = 0;
	for (uint8_t port = 1; port && port <= attr.phys_port_cnt; port++) {
		ibv_port_attr pa{};
		if (!q_.port(dev, port, &pa))
			entries += pa.gid_tbl_len;
	}
	std::vector<ibv_gid_entry> table(entries);
	const ssize_t got = entries ? q_.gids(dev, table.data(), table.size()) : 0;
	uint8_t found = 0;
	for (ssize_t i = 0; i < got; i++)
		for (const ibv_gid &gid : gids) {
			if (std::memcmp(table[i].gid.raw, gid.raw, sizeof(gid.raw)) != 0)
				continue;
			if (found && found != table[i].port_num)
				return 0;
			found = static_cast<uint8_t>(table[i].port_num);
		}
	return found;
}

PortQueries LinkWatch::real_queries()
{
	// ibv_query_port is a macro around an inline function, and so is
	// ibv_query_gid_table
	return {
		[](ibv_context *dev, ibv_device_attr *attr) { return ibv_query_device(dev, attr); },
		[](ibv_context *dev, uint8_t port, ibv_port_attr *attr) {
			return ibv_query_port(dev, port, attr);
		},
		[](ibv_context *dev, ibv_gid_entry *entries, size_t max) {
			return ibv_query_gid_table(dev, entries, max, 0);
		},
	};
}

void LinkWatch::watch(ibv_context *dev, const char *addr, bool local)
{
	watch_port(dev, port_for(dev, addr, local));
}

void LinkWatch::watch_port(ibv_context *dev, uint8_t port)
{
	dev_ = dev;
	if (port) {
		first_ = last_ = port;
		return;
	}
	ibv_device_attr attr{};
	first_ = 1;
	last_ = q_.device(dev, &attr) ? 0 : attr.phys_port_cnt;
}

bool LinkWatch::down()
{
	const auto now = Clock::now();
	if (!last_ || now < next_check_)
		return false;
	next_check_ = now + std::chrono::milliseconds(CHECK_MS);
	for (uint8_t port = first_; port <= last_; port++) {
		ibv_port_attr attr{};
		// a failed query proves nothing: count the port as up
		if (q_.port(dev_, port, &attr) || attr.state == IBV_PORT_ACTIVE)
			return false;
	}
	return true;
}

}
