// SPDX-License-Identifier: BSD-3-Clause
// rpma_peer_cfg_*: the direct-write-to-PMem flag and its 1-byte descriptor.
#include "fixture.hh"
#include "out_of_memory.hh"

namespace unit {

class PeerCfgTest : public Fixture {
	CPPUNIT_TEST_SUITE(PeerCfgTest);
	CPPUNIT_TEST(new_rejects_null);
	CPPUNIT_TEST(new_defaults_to_unsupported);
	CPPUNIT_TEST(new_out_of_memory);
	CPPUNIT_TEST(delete_rejects_null);
	CPPUNIT_TEST(delete_of_null_is_noop);
	CPPUNIT_TEST(delete_clears_pointer);
	CPPUNIT_TEST(set_rejects_null);
	CPPUNIT_TEST(get_rejects_null_and_leaves_output);
	CPPUNIT_TEST(set_then_get);
	CPPUNIT_TEST(descriptor_size_is_one);
	CPPUNIT_TEST(descriptor_size_rejects_null);
	CPPUNIT_TEST(descriptor_rejects_null_and_writes_nothing);
	CPPUNIT_TEST(descriptor_encodes_flag);
	CPPUNIT_TEST(from_descriptor_rejects_bad_input);
	CPPUNIT_TEST(from_descriptor_decodes_any_nonzero_as_supported);
	CPPUNIT_TEST(from_descriptor_ignores_extra_bytes);
	CPPUNIT_TEST(from_descriptor_logs_result);
	CPPUNIT_TEST(from_descriptor_out_of_memory);
	CPPUNIT_TEST_SUITE_END();

	rpma_peer_cfg *const sentinel = reinterpret_cast<rpma_peer_cfg *>(0x1234);

public:
	void new_rejects_null() { CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_peer_cfg_new(nullptr)); }

	void new_defaults_to_unsupported()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_new(&peer_cfg));
		CPPUNIT_ASSERT(peer_cfg);
		bool supported = true;
		CPPUNIT_ASSERT_EQUAL(0,
				     rpma_peer_cfg_get_direct_write_to_pmem(peer_cfg, &supported));
		CPPUNIT_ASSERT(!supported);
	}

	void new_out_of_memory()
	{
		rpma_peer_cfg *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOMEM,
				     out_of_memory([&] { return rpma_peer_cfg_new(&out); }));
		CPPUNIT_ASSERT(out == sentinel);
	}

	void delete_rejects_null()
	{
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_peer_cfg_delete(nullptr));
	}

	void delete_of_null_is_noop()
	{
		rpma_peer_cfg *none = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_delete(&none));
		CPPUNIT_ASSERT(!none);
	}

	void delete_clears_pointer()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_new(&peer_cfg));
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_delete(&peer_cfg));
		CPPUNIT_ASSERT(!peer_cfg);
	}

	void set_rejects_null()
	{
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_peer_cfg_set_direct_write_to_pmem(nullptr, true));
	}

	void get_rejects_null_and_leaves_output()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_new(&peer_cfg));
		bool supported = true;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_peer_cfg_get_direct_write_to_pmem(nullptr, &supported));
		CPPUNIT_ASSERT(supported);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_peer_cfg_get_direct_write_to_pmem(peer_cfg, nullptr));
	}

	void set_then_get()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_new(&peer_cfg));
		for (bool value : {true, false, true}) {
			CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_set_direct_write_to_pmem(peer_cfg,
										       value));
			bool supported = !value;
			CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_get_direct_write_to_pmem(peer_cfg,
										       &supported));
			CPPUNIT_ASSERT_EQUAL(value, supported);
		}
	}

	void descriptor_size_is_one()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_new(&peer_cfg));
		size_t size = 0;
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_get_descriptor_size(peer_cfg, &size));
		CPPUNIT_ASSERT_EQUAL(size_t{1}, size);
	}

	void descriptor_size_rejects_null()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_new(&peer_cfg));
		size_t size = 77;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_peer_cfg_get_descriptor_size(nullptr, &size));
		CPPUNIT_ASSERT_EQUAL(size_t{77}, size);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_peer_cfg_get_descriptor_size(peer_cfg, nullptr));
	}

	void descriptor_rejects_null_and_writes_nothing()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_new(&peer_cfg));
		uint8_t desc = 0x5a;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_peer_cfg_get_descriptor(nullptr, &desc));
		CPPUNIT_ASSERT_EQUAL(uint8_t{0x5a}, desc);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_peer_cfg_get_descriptor(peer_cfg, nullptr));
	}

	void descriptor_encodes_flag()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_new(&peer_cfg));
		uint8_t desc = 0x5a;
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_get_descriptor(peer_cfg, &desc));
		CPPUNIT_ASSERT_EQUAL(uint8_t{0}, desc);
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_set_direct_write_to_pmem(peer_cfg, true));
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_get_descriptor(peer_cfg, &desc));
		CPPUNIT_ASSERT_EQUAL(uint8_t{1}, desc);
	}

	void from_descriptor_rejects_bad_input()
	{
		const uint8_t desc = 1;
		rpma_peer_cfg *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_peer_cfg_from_descriptor(nullptr, 1, &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_peer_cfg_from_descriptor(&desc, 0, &out));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_peer_cfg_from_descriptor(&desc, 1, nullptr));
	}

	void from_descriptor_decodes_any_nonzero_as_supported()
	{
		for (uint8_t byte : {0x00, 0x01, 0x80, 0xff}) {
			CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_from_descriptor(&byte, 1, &peer_cfg));
			bool supported = byte == 0;
			CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_get_direct_write_to_pmem(peer_cfg,
										       &supported));
			CPPUNIT_ASSERT_EQUAL(byte != 0, supported);
			CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_delete(&peer_cfg));
		}
	}

	void from_descriptor_ignores_extra_bytes()
	{
		const uint8_t desc[] = {1, 0, 0};
		CPPUNIT_ASSERT_EQUAL(0,
				     rpma_peer_cfg_from_descriptor(desc, sizeof(desc), &peer_cfg));
		bool supported = false;
		CPPUNIT_ASSERT_EQUAL(0,
				     rpma_peer_cfg_get_direct_write_to_pmem(peer_cfg, &supported));
		CPPUNIT_ASSERT(supported);
	}

	void from_descriptor_out_of_memory()
	{
		const uint8_t desc = 1;
		rpma_peer_cfg *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOMEM, out_of_memory([&] {
					     return rpma_peer_cfg_from_descriptor(&desc, 1, &out);
				     }));
		CPPUNIT_ASSERT(out == sentinel);
	}

	void from_descriptor_logs_result()
	{
		const uint8_t yes = 1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_from_descriptor(&yes, 1, &peer_cfg));
		CPPUNIT_ASSERT(LogCapture::contains(RPMA_LOG_LEVEL_INFO, "supported"));
		CPPUNIT_ASSERT(!LogCapture::contains(RPMA_LOG_LEVEL_INFO, "unsupported"));
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_delete(&peer_cfg));
		const uint8_t no = 0;
		CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_from_descriptor(&no, 1, &peer_cfg));
		CPPUNIT_ASSERT(LogCapture::contains(RPMA_LOG_LEVEL_INFO, "unsupported"));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PeerCfgTest);

} // namespace unit
