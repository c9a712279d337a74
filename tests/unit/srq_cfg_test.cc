// SPDX-License-Identifier: BSD-3-Clause
// rpma_srq_cfg_*: defaults (20/20, upstream's code), getters and setters.
#include "fixture.hh"
#include "out_of_memory.hh"

namespace unit {

namespace {

struct SizeField {
	const char *name;
	int (*set)(rpma_srq_cfg *, uint32_t);
	int (*get)(const rpma_srq_cfg *, uint32_t *);
};

const SizeField size_fields[] = {
	{"rq_size", rpma_srq_cfg_set_rq_size, rpma_srq_cfg_get_rq_size},
	{"rcq_size", rpma_srq_cfg_set_rcq_size, rpma_srq_cfg_get_rcq_size},
};

} // namespace

class SrqCfgTest : public Fixture {
	CPPUNIT_TEST_SUITE(SrqCfgTest);
	CPPUNIT_TEST(new_rejects_null);
	CPPUNIT_TEST(new_has_defaults);
	CPPUNIT_TEST(new_out_of_memory_leaves_pointer);
	CPPUNIT_TEST(delete_rules);
	CPPUNIT_TEST(sizes_round_trip);
	CPPUNIT_TEST(sizes_reject_null);
	CPPUNIT_TEST_SUITE_END();

public:
	void new_rejects_null() { CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_srq_cfg_new(nullptr)); }

	void new_has_defaults()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_new(&srq_cfg));
		for (const SizeField &field : size_fields) {
			uint32_t value = 0;
			CPPUNIT_ASSERT_EQUAL(0, field.get(srq_cfg, &value));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(field.name, uint32_t{20}, value);
		}
	}

	void new_out_of_memory_leaves_pointer()
	{
		// our deviation: upstream stores malloc's NULL
		auto *const sentinel = reinterpret_cast<rpma_srq_cfg *>(0x1234);
		rpma_srq_cfg *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOMEM, out_of_memory([&] { return rpma_srq_cfg_new(&out); }));
		CPPUNIT_ASSERT(out == sentinel);
	}

	void delete_rules()
	{
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_srq_cfg_delete(nullptr));
		rpma_srq_cfg *none = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_delete(&none));
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_new(&srq_cfg));
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_delete(&srq_cfg));
		CPPUNIT_ASSERT(!srq_cfg);
	}

	void sizes_round_trip()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_new(&srq_cfg));
		for (const SizeField &field : size_fields) {
			for (uint32_t value : {0u, 1u, 100u, UINT32_MAX}) {
				CPPUNIT_ASSERT_EQUAL(0, field.set(srq_cfg, value));
				uint32_t got = value + 1;
				CPPUNIT_ASSERT_EQUAL(0, field.get(srq_cfg, &got));
				CPPUNIT_ASSERT_EQUAL_MESSAGE(field.name, value, got);
			}
		}
	}

	void sizes_reject_null()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_new(&srq_cfg));
		for (const SizeField &field : size_fields) {
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, field.set(nullptr, 5));
			uint32_t value = 99;
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, field.get(nullptr, &value));
			CPPUNIT_ASSERT_EQUAL(uint32_t{99}, value);
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, field.get(srq_cfg, nullptr));
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(SrqCfgTest);

} // namespace unit
