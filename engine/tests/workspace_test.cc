// SPDX-License-Identifier: BSD-3-Clause
// workspace_test.cc -- the private data of a connection (engine/
// workspace.hh): the old engines' workspace and the append-only log's,
// both ways, and what each side makes of the other's. No fio, no RDMA.
#include "workspace.hh"

#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>

#include <vector>

using rpma_fio::AofMode;
using rpma_fio::decode_aof_request;
using rpma_fio::decode_workspace;

namespace {

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
