// SPDX-License-Identifier: BSD-3-Clause
// allow.hh -- a server's allow= option: the addresses and networks it takes
// connection requests from (docs/engines.md, "Who may connect"). No fio
// here: engine/tests/allow_test.cc tests it on the host.
#ifndef RPMA_ENGINE_ALLOW_HH
#define RPMA_ENGINE_ALLOW_HH

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rpma_fio {

class AllowList {
public:
	// "ADDR[/PREFIX][,ADDR[/PREFIX]...]": IPv4 or IPv6 addresses, each
	// alone (a prefix of its full length) or a network of PREFIX bits (0
	// to 32, or 128), separated by commas; spaces around an entry are
	// ignored. Host bits past the prefix are ignored (192.0.2.7/24 is
	// 192.0.2.0/24). Nothing, with *why, if the list is empty, an entry is
	// empty, an address is none or a prefix is out of range.
	static std::optional<AllowList> parse(std::string_view text, std::string *why);

	// Whether a request from src (a sockaddr_in or sockaddr_in6; an
	// IPv4-mapped IPv6 address counts as its IPv4 one) is allowed.
	bool allows(const sockaddr *src) const noexcept;

	// The list in its canonical words, "192.0.2.0/24,2001:db8::1/128".
	std::string str() const;

private:
	struct Network {
		bool v6;
		std::array<uint8_t, 16> bytes; // IPv4: the first 4
		unsigned prefix;
	};
	static bool within(const Network &n, bool v6, const uint8_t *addr) noexcept;

	std::vector<Network> networks_;
};

// src as text ("192.0.2.7", "2001:db8::1"; an IPv4-mapped IPv6 address as
// its IPv4 one), "" if it is neither.
std::string address_text(const sockaddr *src);

}

#endif
