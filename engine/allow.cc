// SPDX-License-Identifier: BSD-3-Clause
#include "allow.hh"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>
#include <cstring>

namespace rpma_fio {

namespace {

std::string_view trimmed(std::string_view s)
{
	while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
		s.remove_prefix(1);
	while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
		s.remove_suffix(1);
	return s;
}

// The IPv4 address inside an IPv4-mapped IPv6 one (::ffff:a.b.c.d), or
// nullptr.
const uint8_t *mapped_v4(const in6_addr &a)
{
	static constexpr uint8_t PREFIX[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	return std::memcmp(a.s6_addr, PREFIX, sizeof(PREFIX)) == 0 ? a.s6_addr + 12 : nullptr;
}

}

std::optional<AllowList> AllowList::parse(std::string_view text, std::string *why)
{
	AllowList list;
	if (trimmed(text).empty()) {
		*why = "lists no address (ADDR[/PREFIX][,...]; leave allow= out to take anyone)";
		return std::nullopt;
	}
	for (;;) {
		const size_t comma = text.find(',');
		const std::string_view entry = trimmed(text.substr(0, comma));
		if (entry.empty()) {
			*why = "has an empty entry (entries are separated by one comma)";
			return std::nullopt;
		}
		const size_t slash = entry.find('/');
		const std::string addr(entry.substr(0, slash));
		Network n{};
		if (inet_pton(AF_INET, addr.c_str(), n.bytes.data()) == 1) {
			n.v6 = false;
		} else if (inet_pton(AF_INET6, addr.c_str(), n.bytes.data()) == 1) {
			n.v6 = true;
		} else {
			*why = "'" + addr + "' is not an IPv4 or IPv6 address";
			return std::nullopt;
		}
		const unsigned bits = n.v6 ? 128 : 32;
		n.prefix = bits;
		if (slash != std::string_view::npos) {
			const std::string_view p = entry.substr(slash + 1);
			unsigned value = 0;
			const auto [end, err] = std::from_chars(p.data(), p.data() + p.size(),
								value);
			if (p.empty() || err != std::errc() || end != p.data() + p.size() ||
			    value > bits) {
				*why = "'" + std::string(entry) + "': the prefix of an " +
				       (n.v6 ? "IPv6" : "IPv4") + " address is 0 to " +
				       std::to_string(bits) + " bits";
				return std::nullopt;
			}
			n.prefix = value;
		}
		// the host bits past the prefix cleared: str() shows the network
		for (unsigned bit = n.prefix; bit < bits; bit++)
			n.bytes[bit / 8] &= static_cast<uint8_t>(~(0x80U >> (bit % 8)));
		list.networks_.push_back(n);
		if (comma == std::string_view::npos)
			return list;
		text.remove_prefix(comma + 1);
	}
}

bool AllowList::within(const Network &n, bool v6, const uint8_t *addr) noexcept
{
	if (n.v6 != v6)
		return false;
	const unsigned whole = n.prefix / 8, rest = n.prefix % 8;
	if (std::memcmp(n.bytes.data(), addr, whole) != 0)
		return false;
	if (rest == 0)
		return true;
	const auto mask = static_cast<uint8_t>(0xff00U >> rest);
	return (addr[whole] & mask) == n.bytes[whole];
}

bool AllowList::allows(const sockaddr *src) const noexcept
{
	if (!src)
		return false;
	bool v6;
	const uint8_t *addr;
	if (src->sa_family == AF_INET) {
		v6 = false;
		addr = reinterpret_cast<const uint8_t *>(
			&reinterpret_cast<const sockaddr_in *>(src)->sin_addr);
	} else if (src->sa_family == AF_INET6) {
		const in6_addr &a = reinterpret_cast<const sockaddr_in6 *>(src)->sin6_addr;
		addr = mapped_v4(a);
		v6 = !addr;
		if (v6)
			addr = a.s6_addr;
	} else {
		return false; // no address to judge: not known to be allowed
	}
	for (const Network &n : networks_)
		if (within(n, v6, addr))
			return true;
	return false;
}

std::string AllowList::str() const
{
	std::string out;
	for (const Network &n : networks_) {
		char text[INET6_ADDRSTRLEN] = "";
		inet_ntop(n.v6 ? AF_INET6 : AF_INET, n.bytes.data(), text, sizeof(text));
		out += (out.empty() ? "" : ",") + std::string(text) + "/" +
		       std::to_string(n.prefix);
	}
	return out;
}

std::string address_text(const sockaddr *src)
{
	char text[INET6_ADDRSTRLEN] = "";
	if (!src)
		return "";
	if (src->sa_family == AF_INET) {
		inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in *>(src)->sin_addr, text,
			  sizeof(text));
	} else if (src->sa_family == AF_INET6) {
		const in6_addr &a = reinterpret_cast<const sockaddr_in6 *>(src)->sin6_addr;
		if (const uint8_t *v4 = mapped_v4(a))
			inet_ntop(AF_INET, v4, text, sizeof(text));
		else
			inet_ntop(AF_INET6, &a, text, sizeof(text));
	}
	return text;
}

}
