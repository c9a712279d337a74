// SPDX-License-Identifier: BSD-3-Clause
// gpspm_msg_test.cc -- the GPSPM messages (engine/wire_format.hh) against
// protobuf-c's code generated from the same gpspm_flush.proto: the same
// bytes out, the same verdict and values on any bytes in, and no
// allocation on the data path. No fio, no RDMA.
#include "msg_memory.hh"
#include "wire_format.hh"
#include "gpspm_flush.pb-c.h"

#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using rpma_fio::FlushRequest;

// Every malloc of the process is counted (this definition interposes on
// the C library's, protobuf-c's calls included).
namespace {
unsigned long mallocs;
}
extern "C" void *__libc_malloc(size_t);
extern "C" void *malloc(size_t size)
{
	mallocs++;
	return __libc_malloc(size);
}

namespace {

using Bytes = std::vector<uint8_t>;

// protobuf-c's verdict on bytes as a request, and the values
bool oracle_request(const Bytes &b, FlushRequest *out)
{
	GPSPMFlushRequest *m = gpspm_flush_request__unpack(nullptr, b.size(), b.data());
	if (!m)
		return false;
	*out = {m->offset, m->length, m->op_context};
	gpspm_flush_request__free_unpacked(m, nullptr);
	return true;
}

bool oracle_response(const Bytes &b, uint64_t *out)
{
	GPSPMFlushResponse *m = gpspm_flush_response__unpack(nullptr, b.size(), b.data());
	if (!m)
		return false;
	*out = m->op_context;
	gpspm_flush_response__free_unpacked(m, nullptr);
	return true;
}

Bytes oracle_pack(const FlushRequest &r)
{
	GPSPMFlushRequest m = GPSPM_FLUSH_REQUEST__INIT;
	m.offset = r.offset;
	m.length = r.length;
	m.op_context = r.op_context;
	Bytes b(gpspm_flush_request__get_packed_size(&m));
	gpspm_flush_request__pack(&m, b.data());
	return b;
}

Bytes oracle_pack(uint64_t op_context)
{
	GPSPMFlushResponse m = GPSPM_FLUSH_RESPONSE__INIT;
	m.op_context = op_context;
	Bytes b(gpspm_flush_response__get_packed_size(&m));
	gpspm_flush_response__pack(&m, b.data());
	return b;
}

void put_varint(Bytes &b, uint64_t v)
{
	do {
		uint8_t byte = v & 0x7f;
		v >>= 7;
		b.push_back(v ? byte | 0x80 : byte);
	} while (v);
}

void put_fixed64(Bytes &b, unsigned field, uint64_t v)
{
	put_varint(b, uint64_t(field) << 3 | 1);
	for (int i = 0; i < 8; i++)
		b.push_back(uint8_t(v >> (8 * i)));
}

class GpspmMsgTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(GpspmMsgTest);
	CPPUNIT_TEST(packs_what_protobuf_c_packs);
	CPPUNIT_TEST(unpacking_allocates_nothing);
	CPPUNIT_TEST(odd_but_valid_encodings_read_alike);
	CPPUNIT_TEST(any_bytes_get_protobuf_c_verdict);
	CPPUNIT_TEST(too_little_room_packs_nothing);
	CPPUNIT_TEST(client_rooms_stay_within_a_page);
	CPPUNIT_TEST_SUITE_END();

	std::mt19937_64 rng{20261130};

	uint64_t value()
	{
		// small, large and edge values alike
		switch (rng() % 4) {
		case 0:
			return rng() % 300;
		case 1:
			return ~uint64_t(0) - rng() % 3;
		default:
			return rng();
		}
	}

	// our verdict equals protobuf-c's, and so do the values
	void same_verdict(const Bytes &b)
	{
		FlushRequest want{};
		bool ok = oracle_request(b, &want);
		std::optional<FlushRequest> got = rpma_fio::unpack_request(b.data(), b.size());
		CPPUNIT_ASSERT_EQUAL(ok, got.has_value());
		if (ok) {
			CPPUNIT_ASSERT_EQUAL(want.offset, got->offset);
			CPPUNIT_ASSERT_EQUAL(want.length, got->length);
			CPPUNIT_ASSERT_EQUAL(want.op_context, got->op_context);
		}
		uint64_t want_ctx = 0;
		ok = oracle_response(b, &want_ctx);
		std::optional<uint64_t> got_ctx = rpma_fio::unpack_response(b.data(), b.size());
		CPPUNIT_ASSERT_EQUAL(ok, got_ctx.has_value());
		if (ok)
			CPPUNIT_ASSERT_EQUAL(want_ctx, *got_ctx);
	}

public:
	void packs_what_protobuf_c_packs()
	{
		for (int i = 0; i < 1000; i++) {
			FlushRequest r{value(), value(), value()};
			uint8_t buf[rpma_fio::MSG_ROOM];
			size_t n = rpma_fio::pack_request(r, buf, sizeof(buf));
			CPPUNIT_ASSERT(Bytes(buf, buf + n) == oracle_pack(r));
			CPPUNIT_ASSERT_EQUAL(rpma_fio::FLUSH_REQUEST_SIZE, n);
			n = rpma_fio::pack_response(r.op_context, buf, sizeof(buf));
			CPPUNIT_ASSERT(Bytes(buf, buf + n) == oracle_pack(r.op_context));
			CPPUNIT_ASSERT_EQUAL(rpma_fio::FLUSH_RESPONSE_SIZE, n);
			same_verdict(oracle_pack(r));
			same_verdict(oracle_pack(r.op_context));
		}
	}

	// the server unpacks a request per flush, the client a response: the
	// data path allocates nothing
	void unpacking_allocates_nothing()
	{
		Bytes req = oracle_pack(FlushRequest{4096, 8192, 7});
		Bytes resp = oracle_pack(uint64_t(7));
		unsigned long before = mallocs;
		std::optional<FlushRequest> r = rpma_fio::unpack_request(req.data(), req.size());
		std::optional<uint64_t> c = rpma_fio::unpack_response(resp.data(), resp.size());
		unsigned long during = mallocs - before;
		CPPUNIT_ASSERT(r && c);
		CPPUNIT_ASSERT_EQUAL(0UL, during);
	}

	// what another protobuf encoder may send: fields in any order,
	// repeated (the last counts), unknown fields of every wire type,
	// over-long varints
	void odd_but_valid_encodings_read_alike()
	{
		for (int i = 0; i < 2000; i++) {
			Bytes b;
			int fields = 1 + rng() % 6;
			for (int f = 0; f < fields; f++) {
				unsigned field = 1 + rng() % 5;
				switch (rng() % 6) {
				case 0: // an unknown varint, padded or not
					put_varint(b, uint64_t(field + 3) << 3 | 0);
					put_varint(b, value());
					break;
				case 1: // an unknown length-delimited field
				{
					put_varint(b, uint64_t(field + 3) << 3 | 2);
					size_t len = rng() % 5;
					put_varint(b, len);
					for (size_t k = 0; k < len; k++)
						b.push_back(uint8_t(rng()));
					break;
				}
				case 2: // an unknown fixed32
					put_varint(b, uint64_t(field + 3) << 3 | 5);
					for (int k = 0; k < 4; k++)
						b.push_back(uint8_t(rng()));
					break;
				case 3: // a tag in a padded varint
					b.push_back(uint8_t((field << 3 | 1) | 0x80));
					b.push_back(0x00);
					for (int k = 0; k < 8; k++)
						b.push_back(uint8_t(rng()));
					break;
				default:
					put_fixed64(b, field, value());
				}
			}
			same_verdict(b);
		}
	}

	// garbage, truncations and single-byte changes of good messages, big
	// field numbers and lengths
	void any_bytes_get_protobuf_c_verdict()
	{
		for (int i = 0; i < 20000; i++) {
			Bytes b;
			switch (i % 4) {
			case 0:
				b.resize(rng() % 40);
				for (uint8_t &x : b)
					x = uint8_t(rng());
				break;
			case 1:
				b = oracle_pack(FlushRequest{value(), value(), value()});
				b.resize(rng() % (b.size() + 1));
				break;
			case 2:
				b = i % 8 == 2
					    ? oracle_pack(FlushRequest{value(), value(), value()})
					    : oracle_pack(value());
				b[rng() % b.size()] = uint8_t(rng());
				if (rng() % 2)
					b[rng() % b.size()] = uint8_t(rng() % 2 ? 0xff : 0x80);
				break;
			default:
				// a tag of any field number and wire type, then a few bytes
				put_varint(b, rng() % 2 ? rng() : rng() % 64);
				if (rng() % 2)
					put_varint(b, rng() % 2 ? rng() : rng() % 16);
				for (int k = rng() % 10; k > 0; k--)
					b.push_back(uint8_t(rng()));
				if (rng() % 2) {
					Bytes good = oracle_pack(
						FlushRequest{value(), value(), value()});
					b.insert(rng() % 2 ? b.end() : b.begin(), good.begin(),
						 good.end());
				}
			}
			same_verdict(b);
		}
	}

	void too_little_room_packs_nothing()
	{
		uint8_t buf[rpma_fio::FLUSH_REQUEST_SIZE];
		CPPUNIT_ASSERT_EQUAL(size_t(0),
				     rpma_fio::pack_request(FlushRequest{1, 2, 3}, buf,
							    rpma_fio::FLUSH_REQUEST_SIZE - 1));
		CPPUNIT_ASSERT_EQUAL(size_t(0),
				     rpma_fio::pack_response(3, buf,
							     rpma_fio::FLUSH_RESPONSE_SIZE - 1));
	}

	// A client sends its requests from the rooms of a ClientMsgLayout in
	// one MsgMemory: page-aligned, no room crosses a page boundary, which
	// siw would send with wrong bytes.
	void client_rooms_stay_within_a_page()
	{
		const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
		for (size_t slots : {1, 3, 16, 33}) {
			const rpma_fio::ClientMsgLayout l(slots);
			rpma_fio::MsgMemory m;
			CPPUNIT_ASSERT(m.allocate(l.bytes()));
			CPPUNIT_ASSERT_EQUAL(l.bytes(), m.size());
			const auto base = reinterpret_cast<uintptr_t>(m.data());
			auto within_a_page = [&](size_t off, size_t len) {
				CPPUNIT_ASSERT_EQUAL((base + off) / page,
						     (base + off + len - 1) / page);
			};
			for (size_t k = 0; k < slots; k++) {
				within_a_page(l.recv_off(k), rpma_fio::MSG_ROOM);
				within_a_page(l.send_off(k), l.send_room());
			}
			for (size_t i = 0; i < m.size(); i++)
				CPPUNIT_ASSERT_EQUAL('\0', m[i]);
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(GpspmMsgTest);

}
