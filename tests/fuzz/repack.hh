// SPDX-License-Identifier: BSD-3-Clause
// repack.hh -- the check both GPSPM message targets make: unpack the input
// (an exact-size heap copy, so that AddressSanitizer sees any over-read);
// what is accepted, packed again, must take exactly `size` bytes, refuse a
// room one byte short, and unpack to the same value.
#ifndef RPMA_TESTS_FUZZ_REPACK_HH
#define RPMA_TESTS_FUZZ_REPACK_HH

#include <cstddef>
#include <cstdint>
#include <vector>

#include "wire_format.hh"

template <typename Unpack, typename Pack, typename Same>
void check_repack(const uint8_t *data, size_t len, Unpack unpack, Pack pack, size_t size, Same same)
{
	std::vector<uint8_t> msg(data, data + len);
	auto value = unpack(msg.data(), msg.size());
	if (!value)
		return;

	std::vector<uint8_t> room(rpma_fio::MSG_ROOM);
	size_t n = pack(*value, room.data(), room.size());
	if (n != size)
		__builtin_trap();
	if (pack(*value, room.data(), n - 1) != 0)
		__builtin_trap(); // must refuse a room too small
	std::vector<uint8_t> packed(room.begin(), room.begin() + n);
	auto again = unpack(packed.data(), packed.size());
	if (!again || !same(*again, *value))
		__builtin_trap();
}

#endif
