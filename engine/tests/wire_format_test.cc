// SPDX-License-Identifier: BSD-3-Clause
// wire_format_test.cc -- every layout of engine/wire_format.hh decoded
// from bytes written out here, and encoded back to them, so that any
// change to a layout fails; then the workspaces and the connection
// requests both ways, and what each side makes of the other's. No fio, no
// RDMA.
#include "wire_format.hh"

#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

#include <cstring>
#include <vector>

using rpma_fio::AofMode;
using rpma_fio::decode_aof_request;
using rpma_fio::decode_workspace;
using rpma_fio::FlushRequest;

namespace {

using Bytes = std::vector<uint8_t>;

template <size_t N> Bytes bytes_of(const std::array<uint8_t, N> &a)
{
	return {a.begin(), a.end()};
}

Bytes padded(Bytes b, size_t len)
{
	b.resize(len, 0);
	return b;
}

// docs/compatibility.md's example: 100 MiB at 0x7f1234560000, rkey 0x1a2b,
// usage 0x2f
const Bytes MR_DESC = {0x00, 0x00, 0x56, 0x34, 0x12, 0x7f, 0x00, 0x00, 0x00, 0x00, 0x40,
		       0x06, 0x00, 0x00, 0x00, 0x00, 0x2b, 0x1a, 0x00, 0x00, 0x2f};

Bytes concat(std::initializer_list<Bytes> parts)
{
	Bytes all;
	for (const Bytes &p : parts)
		all.insert(all.end(), p.begin(), p.end());
	return all;
}

// The bytes of each layout, as wire_format.hh draws them.
class WireLayoutTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(WireLayoutTest);
	CPPUNIT_TEST(transport_rooms);
	CPPUNIT_TEST(workspace);
	CPPUNIT_TEST(aof_workspace);
	CPPUNIT_TEST(aof_request);
	CPPUNIT_TEST(apm_request);
	CPPUNIT_TEST(flush_request);
	CPPUNIT_TEST(flush_response);
	CPPUNIT_TEST(end_of_run_notice);
	CPPUNIT_TEST(aof_notices);
	CPPUNIT_TEST(log_tail_pointer);
	CPPUNIT_TEST(msg_slots);
	CPPUNIT_TEST(msg_slots_are_tight);
	CPPUNIT_TEST_SUITE_END();

public:
	void transport_rooms()
	{
		CPPUNIT_ASSERT_EQUAL(size_t(56), rpma_fio::CONN_REQUEST_ROOM);
		CPPUNIT_ASSERT_EQUAL(size_t(196), rpma_fio::ACCEPT_ROOM);
		CPPUNIT_ASSERT_EQUAL(size_t(512), rpma_fio::MSG_ROOM);
	}

	void workspace()
	{
		// max_msg_num 300, direct_write_to_pmem, the descriptor's size
		const Bytes wire = concat({{0x2c, 0x01, 0x01, 0x15}, MR_DESC, {0, 0, 0}});
		CPPUNIT_ASSERT(bytes_of(*rpma_fio::encode_workspace(300, true, MR_DESC)) == wire);
		// as it arrives over RoCE
		const Bytes got = padded(wire, rpma_fio::ACCEPT_ROOM);
		auto ws = decode_workspace(got.data(), got.size());
		CPPUNIT_ASSERT(ws);
		CPPUNIT_ASSERT_EQUAL(uint16_t(300), ws->max_msg_num);
		CPPUNIT_ASSERT(ws->direct_write_to_pmem);
		CPPUNIT_ASSERT(ws->aof == AofMode::NONE);
		CPPUNIT_ASSERT(Bytes(ws->descriptor.begin(), ws->descriptor.end()) == MR_DESC);
		CPPUNIT_ASSERT(ws->descriptor.data() == got.data() + 4);
	}

	void aof_workspace()
	{
		// "AOF\0", version 1, gpspm, no direct write, the descriptor's
		// size; max_msg_num 300, 0, log offset 4096; the descriptor
		const Bytes wire = concat({{'A', 'O', 'F', 0, 0x01, 0x02, 0x00, 0x15},
					   {0x2c, 0x01, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00},
					   MR_DESC,
					   {0, 0, 0}});
		CPPUNIT_ASSERT(bytes_of(*rpma_fio::encode_aof_workspace(AofMode::GPSPM, 300, false,
									4096, MR_DESC)) == wire);
		const Bytes got = padded(wire, rpma_fio::ACCEPT_ROOM);
		auto ws = decode_workspace(got.data(), got.size());
		CPPUNIT_ASSERT(ws);
		CPPUNIT_ASSERT(ws->aof == AofMode::GPSPM);
		CPPUNIT_ASSERT_EQUAL(uint16_t(300), ws->max_msg_num);
		CPPUNIT_ASSERT(!ws->direct_write_to_pmem);
		CPPUNIT_ASSERT_EQUAL(uint32_t(4096), ws->log_offset);
		CPPUNIT_ASSERT(ws->descriptor.data() == got.data() + 16);
		CPPUNIT_ASSERT(Bytes(ws->descriptor.begin(), ws->descriptor.end()) == MR_DESC);
	}

	void aof_request()
	{
		// "AOF\0", version 1, apm, appends
		const Bytes wire = {'A', 'O', 'F', 0, 0x01, 0x01, 0x01, 0x00};
		CPPUNIT_ASSERT(bytes_of(rpma_fio::encode_aof_request({AofMode::APM, true})) ==
			       wire);
		const Bytes got = padded(wire, rpma_fio::CONN_REQUEST_ROOM);
		CPPUNIT_ASSERT(decode_aof_request(got.data(), got.size()) ==
			       rpma_fio::AofRequest({AofMode::APM, true}));
		const Bytes reads = {'A', 'O', 'F', 0, 0x01, 0x02, 0x00, 0x00};
		CPPUNIT_ASSERT(decode_aof_request(reads.data(), reads.size()) ==
			       rpma_fio::AofRequest({AofMode::GPSPM, false}));
	}

	void apm_request()
	{
		// "APM\0", version 1, it sends the end-of-run notice
		const Bytes wire = {'A', 'P', 'M', 0, 0x01, 0x01, 0x00, 0x00};
		CPPUNIT_ASSERT(bytes_of(rpma_fio::encode_end_notice_request()) == wire);
		const Bytes got = padded(wire, rpma_fio::CONN_REQUEST_ROOM);
		CPPUNIT_ASSERT(rpma_fio::promises_end_notice(got.data(), got.size()));
	}

	// the tag of field N, fixed64: N << 3 | 1
	void flush_request()
	{
		const Bytes wire = {0x09, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
				    0x11, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
				    0x19, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
		CPPUNIT_ASSERT_EQUAL(wire.size(), rpma_fio::FLUSH_REQUEST_SIZE);
		const FlushRequest req{0x1000, 0x200, 0x0102030405060708};
		CPPUNIT_ASSERT(packed(req) == wire);
		auto got = rpma_fio::unpack_request(wire.data(), wire.size());
		CPPUNIT_ASSERT(got && same(*got, req));
		CPPUNIT_ASSERT(!got->ends_run());
	}

	void flush_response()
	{
		const Bytes wire = {0x09, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
		CPPUNIT_ASSERT_EQUAL(wire.size(), rpma_fio::FLUSH_RESPONSE_SIZE);
		Bytes buf(rpma_fio::MSG_ROOM);
		buf.resize(rpma_fio::pack_response(0x0102030405060708, buf.data(), buf.size()));
		CPPUNIT_ASSERT(buf == wire);
		auto got = rpma_fio::unpack_response(wire.data(), wire.size());
		CPPUNIT_ASSERT(got && *got == 0x0102030405060708);
	}

	// the old GPSPM client's last request: every field 0
	void end_of_run_notice()
	{
		const Bytes wire = concat({{0x09}, Bytes(8), {0x11}, Bytes(8), {0x19}, Bytes(8)});
		CPPUNIT_ASSERT(packed(rpma_fio::END_OF_RUN_NOTICE) == wire);
		auto got = rpma_fio::unpack_request(wire.data(), wire.size());
		CPPUNIT_ASSERT(got && got->ends_run());
	}

	void aof_notices()
	{
		// offset: appended 0x3000; length 0; op_context "AOF END"
		const Bytes end = concat({{0x09, 0x00, 0x30, 0, 0, 0, 0, 0, 0},
					  {0x11},
					  Bytes(8),
					  {0x19, 'D', 'N', 'E', ' ', 'F', 'O', 'A', 0}});
		CPPUNIT_ASSERT(packed(rpma_fio::aof_end_notice(0x3000)) == end);
		auto got = rpma_fio::unpack_request(end.data(), end.size());
		CPPUNIT_ASSERT(got && rpma_fio::is_aof_end_notice(*got));
		CPPUNIT_ASSERT_EQUAL(uint64_t(0x3000), got->offset);
		CPPUNIT_ASSERT(!rpma_fio::is_aof_start_request(*got));
		// nothing appended: offset all ones
		const Bytes nothing = concat({{0x09},
					      Bytes(8, 0xff),
					      {0x11},
					      Bytes(8),
					      {0x19, 'D', 'N', 'E', ' ', 'F', 'O', 'A', 0}});
		got = rpma_fio::unpack_request(nothing.data(), nothing.size());
		CPPUNIT_ASSERT(got && rpma_fio::is_aof_end_notice(*got));
		CPPUNIT_ASSERT_EQUAL(rpma_fio::AOF_NOTHING_APPENDED, got->offset);
		// the tail pointer's range, 0 and 8; op_context "AOF NEW"
		const Bytes start = concat({{0x09},
					    Bytes(8),
					    {0x11, 0x08, 0, 0, 0, 0, 0, 0, 0},
					    {0x19, 'W', 'E', 'N', ' ', 'F', 'O', 'A', 0}});
		CPPUNIT_ASSERT(packed(rpma_fio::aof_start_request()) == start);
		got = rpma_fio::unpack_request(start.data(), start.size());
		CPPUNIT_ASSERT(got && rpma_fio::is_aof_start_request(*got));
		CPPUNIT_ASSERT(!rpma_fio::is_aof_end_notice(*got));
	}

	// the region's first 8 bytes, little-endian; the records a page on
	void log_tail_pointer()
	{
		CPPUNIT_ASSERT_EQUAL(uint64_t(0), rpma_fio::LOG_TAIL_OFFSET);
		CPPUNIT_ASSERT_EQUAL(uint32_t(4096), rpma_fio::LOG_OFFSET);
		const uint64_t word = rpma_fio::log_tail_bytes(0x0102030405060708);
		Bytes got(sizeof(word));
		std::memcpy(got.data(), &word, sizeof(word));
		CPPUNIT_ASSERT(got == Bytes({0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01}));
	}

	// three slots: the receives, then the sends in rooms of 16 (a
	// server's answers) or 32 bytes (a client's requests)
	void msg_slots()
	{
		const rpma_fio::ServerMsgLayout server(3);
		const rpma_fio::ClientMsgLayout client(3);
		for (size_t k = 0; k < 3; k++) {
			CPPUNIT_ASSERT_EQUAL(512 * k, server.recv_off(k));
			CPPUNIT_ASSERT_EQUAL(512 * k, client.recv_off(k));
			CPPUNIT_ASSERT_EQUAL(1536 + 16 * k, server.send_off(k));
			CPPUNIT_ASSERT_EQUAL(1536 + 32 * k, client.send_off(k));
		}
		CPPUNIT_ASSERT_EQUAL(size_t(16), server.send_room());
		CPPUNIT_ASSERT_EQUAL(size_t(32), client.send_room());
		CPPUNIT_ASSERT_EQUAL(size_t(1584), server.bytes());
		CPPUNIT_ASSERT_EQUAL(size_t(1632), client.bytes());
	}

	// Each side registers this memory for every connection: a receive
	// of MSG_ROOM and a send that holds its message, no more, each apart.
	void msg_slots_are_tight()
	{
		check_tight(rpma_fio::ServerMsgLayout(0), rpma_fio::FLUSH_RESPONSE_SIZE, 0);
		check_tight(rpma_fio::ClientMsgLayout(0), rpma_fio::FLUSH_REQUEST_SIZE, 0);
		for (size_t slots : {1, 2, 16, 33, 1000}) {
			check_tight(rpma_fio::ServerMsgLayout(slots), rpma_fio::FLUSH_RESPONSE_SIZE,
				    slots);
			check_tight(rpma_fio::ClientMsgLayout(slots), rpma_fio::FLUSH_REQUEST_SIZE,
				    slots);
		}
	}

private:
	static Bytes packed(const FlushRequest &req)
	{
		Bytes buf(rpma_fio::MSG_ROOM);
		buf.resize(rpma_fio::pack_request(req, buf.data(), buf.size()));
		return buf;
	}

	static bool same(const FlushRequest &a, const FlushRequest &b)
	{
		return a.offset == b.offset && a.length == b.length && a.op_context == b.op_context;
	}

	template <typename Layout>
	static void check_tight(const Layout &l, size_t msg, size_t slots)
	{
		using rpma_fio::MSG_ROOM;
		CPPUNIT_ASSERT(l.send_room() >= msg && l.send_room() < msg + 8);
		CPPUNIT_ASSERT_EQUAL(slots * (MSG_ROOM + l.send_room()), l.bytes());
		std::vector<int> owner(l.bytes(), -1);
		auto claim = [&](size_t off, size_t len, int who) {
			CPPUNIT_ASSERT(off + len <= l.bytes());
			for (size_t i = off; i < off + len; i++) {
				CPPUNIT_ASSERT_EQUAL(-1, owner[i]);
				owner[i] = who;
			}
		};
		for (size_t k = 0; k < slots; k++) {
			claim(l.recv_off(k), MSG_ROOM, int(2 * k));
			claim(l.send_off(k), l.send_room(), int(2 * k + 1));
			CPPUNIT_ASSERT_EQUAL(size_t(0), l.send_off(k) % 8);
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(WireLayoutTest);

const std::vector<uint8_t> DESC = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
				   12, 13, 14, 15, 16, 17, 18, 19, 20, 21};

class WorkspaceTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(WorkspaceTest);
	CPPUNIT_TEST(old_layout_round_trip);
	CPPUNIT_TEST(aof_layout_round_trip);
	CPPUNIT_TEST(aof_layout_has_no_descriptor_for_old_clients);
	CPPUNIT_TEST(old_layout_is_never_taken_for_aof);
	CPPUNIT_TEST(aof_layout_of_unknown_version_or_mode_is_refused);
	CPPUNIT_TEST(aof_request_round_trip);
	CPPUNIT_TEST(no_request_is_none);
	CPPUNIT_TEST(request_of_unknown_version_or_mode_is_refused);
	CPPUNIT_TEST(end_notice_request_is_told_from_the_others);
	CPPUNIT_TEST_SUITE_END();

public:
	void old_layout_round_trip()
	{
		auto ws = rpma_fio::encode_workspace(300, true, DESC);
		CPPUNIT_ASSERT(ws);
		// RoCE pads the accept's private data
		std::vector<uint8_t> padded(ws->begin(), ws->end());
		padded.resize(196, 0);
		auto d = decode_workspace(padded.data(), padded.size());
		CPPUNIT_ASSERT(d);
		CPPUNIT_ASSERT_EQUAL(uint16_t(300), d->max_msg_num);
		CPPUNIT_ASSERT(d->direct_write_to_pmem);
		CPPUNIT_ASSERT(d->aof == AofMode::NONE);
		CPPUNIT_ASSERT_EQUAL(uint32_t(0), d->log_offset);
		CPPUNIT_ASSERT(std::vector<uint8_t>(d->descriptor.begin(), d->descriptor.end()) ==
			       DESC);
	}

	void aof_layout_round_trip()
	{
		for (AofMode m : {AofMode::APM, AofMode::GPSPM}) {
			auto ws = rpma_fio::encode_aof_workspace(m, 17, false, 4096, DESC);
			CPPUNIT_ASSERT(ws);
			auto d = decode_workspace(ws->data(), ws->size());
			CPPUNIT_ASSERT(d);
			CPPUNIT_ASSERT(d->aof == m);
			CPPUNIT_ASSERT_EQUAL(uint16_t(17), d->max_msg_num);
			CPPUNIT_ASSERT(!d->direct_write_to_pmem);
			CPPUNIT_ASSERT_EQUAL(uint32_t(4096), d->log_offset);
			CPPUNIT_ASSERT(std::vector<uint8_t>(d->descriptor.begin(),
							    d->descriptor.end()) == DESC);
		}
		// cut short: no workspace
		auto ws = rpma_fio::encode_aof_workspace(AofMode::APM, 1, false, 4096, DESC);
		CPPUNIT_ASSERT(!decode_workspace(ws->data(), 16 + DESC.size() - 1));
	}

	// Byte 3 is where the old layout keeps its descriptor's size: 0 there
	// makes an old APM or GPSPM client find none and refuse the server.
	void aof_layout_has_no_descriptor_for_old_clients()
	{
		auto ws = rpma_fio::encode_aof_workspace(AofMode::GPSPM, 4, true, 4096, DESC);
		CPPUNIT_ASSERT_EQUAL(uint8_t(0), (*ws)[3]);
	}

	void old_layout_is_never_taken_for_aof()
	{
		for (unsigned slots = 0; slots <= 0xffff; slots += 0x101)
			for (bool dwtp : {false, true}) {
				auto ws = rpma_fio::encode_workspace(static_cast<uint16_t>(slots),
								     dwtp, DESC);
				auto d = decode_workspace(ws->data(), ws->size());
				CPPUNIT_ASSERT(d);
				CPPUNIT_ASSERT(d->aof == AofMode::NONE);
			}
		// "AO" as max_msg_num, and a dwtp byte of 'F' no server sends
		auto ws = rpma_fio::encode_workspace(0x4f41, true, DESC);
		CPPUNIT_ASSERT(decode_workspace(ws->data(), ws->size())->aof == AofMode::NONE);
	}

	void aof_layout_of_unknown_version_or_mode_is_refused()
	{
		auto ws = rpma_fio::encode_aof_workspace(AofMode::APM, 1, false, 4096, DESC);
		auto bad = *ws;
		bad[4] = 2; // version
		CPPUNIT_ASSERT(!decode_workspace(bad.data(), bad.size()));
		bad = *ws;
		bad[5] = 3; // mode
		CPPUNIT_ASSERT(!decode_workspace(bad.data(), bad.size()));
		bad = *ws;
		bad[5] = 0; // no mode
		CPPUNIT_ASSERT(!decode_workspace(bad.data(), bad.size()));
	}

	void aof_request_round_trip()
	{
		for (AofMode m : {AofMode::APM, AofMode::GPSPM}) {
			for (bool appends : {false, true}) {
				auto req = rpma_fio::encode_aof_request({m, appends});
				// RoCE pads a connection request's private data to 56 bytes
				std::vector<uint8_t> padded(req.begin(), req.end());
				padded.resize(56, 0);
				auto d = decode_aof_request(padded.data(), padded.size());
				CPPUNIT_ASSERT(d && d->mode == m && d->appends == appends);
			}
		}
	}

	// an APM or GPSPM client sends none, which arrives as zeros
	void no_request_is_none()
	{
		CPPUNIT_ASSERT(decode_aof_request(nullptr, 0) == rpma_fio::AofRequest{});
		std::vector<uint8_t> zeros(56, 0);
		CPPUNIT_ASSERT(decode_aof_request(zeros.data(), zeros.size()) ==
			       rpma_fio::AofRequest{});
	}

	void request_of_unknown_version_or_mode_is_refused()
	{
		auto req = rpma_fio::encode_aof_request({AofMode::APM, true});
		auto bad = req;
		bad[4] = 9;
		CPPUNIT_ASSERT(!decode_aof_request(bad.data(), bad.size()));
		bad = req;
		bad[5] = 0;
		CPPUNIT_ASSERT(!decode_aof_request(bad.data(), bad.size()));
		CPPUNIT_ASSERT(!decode_aof_request(req.data(), 5)); // cut short
	}

	// Only the APM client's request promises the notice: the server of an
	// old client, or of an AOF one, must not wait for one.
	void end_notice_request_is_told_from_the_others()
	{
		auto req = rpma_fio::encode_end_notice_request();
		std::vector<uint8_t> padded(req.begin(), req.end());
		padded.resize(56, 0);
		CPPUNIT_ASSERT(rpma_fio::promises_end_notice(padded.data(), padded.size()));
		// not an append-only-log request either
		CPPUNIT_ASSERT(decode_aof_request(padded.data(), padded.size()) ==
			       rpma_fio::AofRequest{});
		CPPUNIT_ASSERT(!rpma_fio::promises_end_notice(nullptr, 0));
		std::vector<uint8_t> zeros(56, 0);
		CPPUNIT_ASSERT(!rpma_fio::promises_end_notice(zeros.data(), zeros.size()));
		auto aof = rpma_fio::encode_aof_request({AofMode::APM, true});
		CPPUNIT_ASSERT(!rpma_fio::promises_end_notice(aof.data(), aof.size()));
		auto bad = req;
		bad[4] = 2; // a later version promises nothing this side knows
		CPPUNIT_ASSERT(!rpma_fio::promises_end_notice(bad.data(), bad.size()));
		bad = req;
		bad[5] = 0; // no flag
		CPPUNIT_ASSERT(!rpma_fio::promises_end_notice(bad.data(), bad.size()));
		CPPUNIT_ASSERT(!rpma_fio::promises_end_notice(req.data(), 5)); // cut short
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(WorkspaceTest);

}
