// SPDX-License-Identifier: BSD-3-Clause
// rpma_srq_cfg_*: defaults (20/20, upstream's code), getters and setters.
#include <atomic>
#include <chrono>
#include <string>
#include <thread>

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
	CPPUNIT_TEST(srq_is_made_from_one_state_of_a_changing_cfg);
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
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOMEM,
				     out_of_memory([&] { return rpma_srq_cfg_new(&out); }));
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

	// docs/thread-safety.md: a shared RQ made while another thread changes
	// its configuration gets the sizes as they were at one moment. The other
	// thread sets rq, then rcq, to k for k = 2, 3, ...: every state has
	// rq == rcq or rq == rcq + 1. Only this thread calls into the fake.
	void srq_is_made_from_one_state_of_a_changing_cfg()
	{
		make_peer();
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_new(&srq_cfg));
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_set_rq_size(srq_cfg, 1));
		CPPUNIT_ASSERT_EQUAL(0, rpma_srq_cfg_set_rcq_size(srq_cfg, 1));
		std::atomic<bool> stop{false};
		std::thread writer([cfg = srq_cfg, &stop] {
			for (uint32_t k = 2; !stop.load(); k = k % 1000000 + 1) {
				rpma_srq_cfg_set_rq_size(cfg, k);
				rpma_srq_cfg_set_rcq_size(cfg, k);
			}
		});
		std::string torn;
		int made = 0;
		const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
		for (; torn.empty() && std::chrono::steady_clock::now() < deadline; made++) {
			if (rpma_srq_new(peer, srq_cfg, &srq) != 0) {
				torn = "(rpma_srq_new failed)";
				break;
			}
			const uint32_t rq = fake::srqs().back().attr.attr.max_wr;
			const uint32_t rcq = static_cast<uint32_t>(fake::cqs().back().cqe);
			if (rq != rcq && rq != rcq + 1 && !(rq == 1 && rcq == 1000000))
				torn = std::to_string(rq) + " " + std::to_string(rcq);
			CPPUNIT_ASSERT_EQUAL(0, rpma_srq_delete(&srq));
		}
		stop = true;
		writer.join();
		CPPUNIT_ASSERT_MESSAGE("shared RQ " + std::to_string(made) +
					       " made from rq, rcq = " + torn,
				       torn.empty());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(SrqCfgTest);

} // namespace unit
