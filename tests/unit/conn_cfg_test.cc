// SPDX-License-Identifier: BSD-3-Clause
// rpma_conn_cfg_*: defaults, getters and setters.
#include <atomic>
#include <chrono>
#include <climits>
#include <functional>
#include <string>
#include <thread>

#include "conn_cfg.hh"
#include "fixture.hh"
#include "out_of_memory.hh"

namespace unit {

namespace {

struct SizeField {
	const char *name;
	int (*set)(rpma_conn_cfg *, uint32_t);
	int (*get)(const rpma_conn_cfg *, uint32_t *);
	uint32_t default_value;
};

const SizeField size_fields[] = {
	{"cq_size", rpma_conn_cfg_set_cq_size, rpma_conn_cfg_get_cq_size, 10},
	{"rcq_size", rpma_conn_cfg_set_rcq_size, rpma_conn_cfg_get_rcq_size, 0},
	{"sq_size", rpma_conn_cfg_set_sq_size, rpma_conn_cfg_get_sq_size, 10},
	{"rq_size", rpma_conn_cfg_set_rq_size, rpma_conn_cfg_get_rq_size, 10},
};

} // namespace

class ConnCfgTest : public Fixture {
	CPPUNIT_TEST_SUITE(ConnCfgTest);
	CPPUNIT_TEST(new_rejects_null);
	CPPUNIT_TEST(new_has_defaults);
	CPPUNIT_TEST(new_out_of_memory_leaves_pointer);
	CPPUNIT_TEST(delete_rules);
	CPPUNIT_TEST(sizes_round_trip);
	CPPUNIT_TEST(sizes_reject_null);
	CPPUNIT_TEST(timeout_round_trip);
	CPPUNIT_TEST(timeout_rejects_negative_and_null);
	CPPUNIT_TEST(compl_channel_round_trip);
	CPPUNIT_TEST(compl_channel_rejects_null);
	CPPUNIT_TEST(srq_round_trip);
	CPPUNIT_TEST(srq_rejects_null);
	CPPUNIT_TEST(copy_is_one_state_of_a_changing_cfg);
	CPPUNIT_TEST(request_is_made_from_one_state_of_a_changing_cfg);
	CPPUNIT_TEST_SUITE_END();

public:
	void new_rejects_null() { CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_cfg_new(nullptr)); }

	void new_has_defaults()
	{
		make_conn_cfg();
		int timeout = -1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_get_timeout(conn_cfg, &timeout));
		CPPUNIT_ASSERT_EQUAL(RPMA_DEFAULT_TIMEOUT_MS, timeout);
		CPPUNIT_ASSERT_EQUAL(1000, timeout);
		for (const SizeField &field : size_fields) {
			uint32_t value = 12345;
			CPPUNIT_ASSERT_EQUAL(0, field.get(conn_cfg, &value));
			CPPUNIT_ASSERT_EQUAL_MESSAGE(field.name, field.default_value, value);
		}
		bool shared = true;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_get_compl_channel(conn_cfg, &shared));
		CPPUNIT_ASSERT(!shared);
		rpma_srq *srq_out = reinterpret_cast<rpma_srq *>(0x1234);
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_get_srq(conn_cfg, &srq_out));
		CPPUNIT_ASSERT(!srq_out);
	}

	void new_out_of_memory_leaves_pointer()
	{
		// our deviation: upstream stores malloc's NULL
		auto *const sentinel = reinterpret_cast<rpma_conn_cfg *>(0x1234);
		rpma_conn_cfg *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOMEM,
				     out_of_memory([&] { return rpma_conn_cfg_new(&out); }));
		CPPUNIT_ASSERT(out == sentinel);
	}

	void delete_rules()
	{
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_cfg_delete(nullptr));
		rpma_conn_cfg *none = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_delete(&none));
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_delete(&conn_cfg));
		CPPUNIT_ASSERT(!conn_cfg);
	}

	void sizes_round_trip()
	{
		make_conn_cfg();
		for (const SizeField &field : size_fields) {
			for (uint32_t value : {0u, 1u, 77u, uint32_t{INT_MAX} + 1, UINT32_MAX}) {
				CPPUNIT_ASSERT_EQUAL(0, field.set(conn_cfg, value));
				uint32_t got = value + 1;
				CPPUNIT_ASSERT_EQUAL(0, field.get(conn_cfg, &got));
				CPPUNIT_ASSERT_EQUAL_MESSAGE(field.name, value, got);
			}
		}
	}

	void sizes_reject_null()
	{
		make_conn_cfg();
		for (const SizeField &field : size_fields) {
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, field.set(nullptr, 5));
			uint32_t value = 99;
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, field.get(nullptr, &value));
			CPPUNIT_ASSERT_EQUAL(uint32_t{99}, value);
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, field.get(conn_cfg, nullptr));
		}
	}

	void timeout_round_trip()
	{
		make_conn_cfg();
		for (int value : {0, 1, 5000, INT_MAX}) {
			CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_timeout(conn_cfg, value));
			int got = -1;
			CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_get_timeout(conn_cfg, &got));
			CPPUNIT_ASSERT_EQUAL(value, got);
		}
	}

	void timeout_rejects_negative_and_null()
	{
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_timeout(conn_cfg, 300));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_cfg_set_timeout(conn_cfg, -1));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_cfg_set_timeout(nullptr, 5));
		int got = -1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_get_timeout(conn_cfg, &got));
		CPPUNIT_ASSERT_EQUAL(300, got);
		got = 42;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_cfg_get_timeout(nullptr, &got));
		CPPUNIT_ASSERT_EQUAL(42, got);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_cfg_get_timeout(conn_cfg, nullptr));
	}

	void compl_channel_round_trip()
	{
		make_conn_cfg();
		for (bool value : {true, false}) {
			CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_compl_channel(conn_cfg, value));
			bool got = !value;
			CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_get_compl_channel(conn_cfg, &got));
			CPPUNIT_ASSERT_EQUAL(value, got);
		}
	}

	void compl_channel_rejects_null()
	{
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_cfg_set_compl_channel(nullptr, true));
		bool got = true;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_cfg_get_compl_channel(nullptr, &got));
		CPPUNIT_ASSERT(got);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_conn_cfg_get_compl_channel(conn_cfg, nullptr));
	}

	void srq_round_trip()
	{
		make_conn_cfg();
		make_srq();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_srq(conn_cfg, srq));
		rpma_srq *got = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_get_srq(conn_cfg, &got));
		CPPUNIT_ASSERT(got == srq);
	}

	void srq_rejects_null()
	{
		make_conn_cfg();
		make_srq();
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_cfg_set_srq(nullptr, srq));
		// an SRQ cannot be detached again (upstream's code)
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_srq(conn_cfg, srq));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_cfg_set_srq(conn_cfg, nullptr));
		rpma_srq *got = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_get_srq(conn_cfg, &got));
		CPPUNIT_ASSERT(got == srq);
		rpma_srq *untouched = reinterpret_cast<rpma_srq *>(0x1234);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_cfg_get_srq(nullptr, &untouched));
		CPPUNIT_ASSERT(untouched == reinterpret_cast<rpma_srq *>(0x1234));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_cfg_get_srq(conn_cfg, nullptr));
	}

	// Sets timeout, cq, rcq, sq and rq to k, one after another, for
	// k = 2, 3, ... until `stop`: every state the configuration passes through
	// reads, in that order, k..k followed by k-1..k-1.
	static void change_in_steps(rpma_conn_cfg *cfg, const std::atomic<bool> &stop)
	{
		for (uint32_t k = 2; !stop.load(); k = k % 1000000 + 1) {
			rpma_conn_cfg_set_timeout(cfg, static_cast<int>(k));
			rpma_conn_cfg_set_cq_size(cfg, k);
			rpma_conn_cfg_set_rcq_size(cfg, k);
			rpma_conn_cfg_set_sq_size(cfg, k);
			rpma_conn_cfg_set_rq_size(cfg, k);
		}
	}

	// Whether the fields, in the order change_in_steps() sets them, are a
	// state it passes through ("" if so, else the values).
	static std::string torn_state(const uint32_t (&got)[5])
	{
		bool existed = got[0] - got[4] <= 1 || (got[0] == 1 && got[4] == 1000000);
		for (int f = 1; f < 5; f++)
			existed = existed &&
				  (got[f] <= got[f - 1] || (got[f - 1] == 1 && got[f] == 1000000));
		std::string values;
		if (!existed)
			for (uint32_t v : got)
				values += std::to_string(v) + " ";
		return values;
	}

	void start_at_one()
	{
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_timeout(conn_cfg, 1));
		for (const SizeField &field : size_fields)
			CPPUNIT_ASSERT_EQUAL(0, field.set(conn_cfg, 1));
	}

	// rpma/conn_cfg.hh: the copy connections are made from (ConnCfg::values)
	// is the configuration at one moment, whatever other threads change.
	void copy_is_one_state_of_a_changing_cfg()
	{
		start_at_one();
		std::atomic<bool> stop{false};
		std::thread writer(change_in_steps, conn_cfg, std::cref(stop));
		const auto &object = *reinterpret_cast<const rpma::ConnCfg *>(conn_cfg);
		std::string torn;
		long copies = 0;
		const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
		while (torn.empty() && std::chrono::steady_clock::now() < deadline)
			for (int i = 0; i < 1000 && torn.empty(); i++, copies++) {
				const rpma::ConnCfg::Values v = object.values();
				torn = torn_state({static_cast<uint32_t>(v.timeout_ms), v.cq_size,
						   v.rcq_size, v.sq_size, v.rq_size});
			}
		stop = true;
		writer.join();
		CPPUNIT_ASSERT_MESSAGE("copy " + std::to_string(copies) +
					       " has timeout, cq, rcq, sq, rq = " + torn,
				       torn.empty());
	}

	// docs/thread-safety.md: a connection request made while another
	// thread changes the configuration gets the fields as they were at one
	// moment. The other thread sets timeout, cq, rcq, sq and rq to k, one
	// after another, for k = 1, 2, ...: every state the configuration passes
	// through reads, in that order, k..k followed by k-1..k-1. A copy made
	// of loads at different moments shows a later value after an earlier
	// one. The fake records what the request was made with; only this thread
	// calls into it.
	void request_is_made_from_one_state_of_a_changing_cfg()
	{
		make_peer();
		start_at_one();
		std::atomic<bool> stop{false};
		std::thread writer(change_in_steps, conn_cfg, std::cref(stop));
		std::string torn;
		int made = 0;
		const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
		for (; torn.empty() && std::chrono::steady_clock::now() < deadline; made++) {
			if (rpma_conn_req_new(peer, address, service, conn_cfg, &req) != 0) {
				torn = "(rpma_conn_req_new failed)";
				break;
			}
			const auto &ids = fake::id_calls();
			auto resolve = ids.rbegin();
			while (resolve->call != fake::Call::rdma_resolve_addr)
				++resolve;
			const auto &cqs = fake::cqs();
			const fake::QpCreation &qp = fake::qps().back();
			// the main CQ is made first, then the receive CQ
			torn = torn_state({static_cast<uint32_t>(resolve->value),
					   static_cast<uint32_t>(cqs[cqs.size() - 2].cqe),
					   static_cast<uint32_t>(cqs[cqs.size() - 1].cqe),
					   qp.attr.cap.max_send_wr, qp.attr.cap.max_recv_wr});
			CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_delete(&req));
		}
		stop = true;
		writer.join();
		CPPUNIT_ASSERT_MESSAGE("request " + std::to_string(made) +
					       " made from timeout, cq, rcq, sq, rq = " + torn,
				       torn.empty());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConnCfgTest);

} // namespace unit
