// SPDX-License-Identifier: BSD-3-Clause
// wire.hh -- every byte the library itself puts on the wire: the
// descriptors an application carries to its peer (in private data or its
// own messages) and the peer reads back. Both are upstream's, so that our
// library and upstream's read each other's (docs/compatibility.md,
// "Memory-region descriptor"): their layouts may never change. The engines'
// own bytes are in engine/wire_format.hh. tests/unit/descriptor.hh writes
// the memory descriptor out byte by byte, independently of this file, and
// mr_test, mw_test and peer_cfg_test compare the two.
#ifndef RPMA_WIRE_HH
#define RPMA_WIRE_HH

#include <endian.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace rpma::wire {

// The memory descriptor of a region or a window (rpma_mr_get_descriptor(),
// rpma_mw_get_descriptor()): raddr u64 | length u64 | rkey u32 | usage u8,
// all little-endian, 21 bytes.
inline constexpr size_t MR_ADDRESS_AT = 0;
inline constexpr size_t MR_SIZE_AT = 8;
inline constexpr size_t MR_RKEY_AT = 16;
inline constexpr size_t MR_USAGE_AT = 20;
inline constexpr size_t MR_DESCRIPTOR_SIZE = 21;

struct MrDescriptor {
	uint64_t address;
	uint64_t size;
	uint32_t rkey;
	uint8_t usage; // RPMA_MR_USAGE_* bits; 0 is no descriptor
};

namespace detail {

template <typename T> void store_le(uint8_t *to, T value) noexcept
{
	if constexpr (sizeof(T) == 8)
		value = htole64(value);
	else
		value = htole32(value);
	std::memcpy(to, &value, sizeof(value));
}

template <typename T> T load_le(const uint8_t *from) noexcept
{
	T value;
	std::memcpy(&value, from, sizeof(value));
	if constexpr (sizeof(T) == 8)
		return le64toh(value);
	else
		return le32toh(value);
}

} // namespace detail

// Writes MR_DESCRIPTOR_SIZE bytes at `desc` (the caller checked the room).
inline void write_mr(void *desc, const MrDescriptor &mr) noexcept
{
	auto *bytes = static_cast<uint8_t *>(desc);
	detail::store_le<uint64_t>(bytes + MR_ADDRESS_AT, mr.address);
	detail::store_le<uint64_t>(bytes + MR_SIZE_AT, mr.size);
	detail::store_le<uint32_t>(bytes + MR_RKEY_AT, mr.rkey);
	bytes[MR_USAGE_AT] = mr.usage;
}

// Reads MR_DESCRIPTOR_SIZE bytes at `desc` (the caller checked that many
// arrived); the usage byte decides whether it is a descriptor at all.
inline MrDescriptor read_mr(const void *desc) noexcept
{
	const auto *bytes = static_cast<const uint8_t *>(desc);
	return {detail::load_le<uint64_t>(bytes + MR_ADDRESS_AT),
		detail::load_le<uint64_t>(bytes + MR_SIZE_AT),
		detail::load_le<uint32_t>(bytes + MR_RKEY_AT), bytes[MR_USAGE_AT]};
}

// The peer configuration descriptor (rpma_peer_cfg_get_descriptor()): one
// byte, 1 where the peer supports direct write to PMem; any byte but 0
// reads as supported, as upstream decodes it.
inline constexpr size_t PEER_CFG_DESCRIPTOR_SIZE = 1;

inline void write_peer_cfg(void *desc, bool direct_write_to_pmem) noexcept
{
	*static_cast<uint8_t *>(desc) = direct_write_to_pmem ? 1 : 0;
}

inline bool read_peer_cfg(const void *desc) noexcept
{
	return *static_cast<const uint8_t *>(desc) != 0;
}

} // namespace rpma::wire

#endif
