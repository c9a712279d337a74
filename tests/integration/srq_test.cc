// SPDX-License-Identifier: BSD-3-Clause
// A shared receive queue serving several connections at once.

#include <cstdio>
#include <cstring>
#include <map>

#include "check.hh"
#include "pair.hh"
#include "wait.hh"

using namespace it;

namespace {

constexpr int CONNS = 3;
constexpr size_t MSG = 32;

Srq new_srq(rpma_peer *peer, uint32_t rcq_size)
{
	rpma_srq_cfg *cfg = nullptr;
	RPMA_OK(rpma_srq_cfg_new(&cfg));
	SrqCfg own(cfg);
	RPMA_OK(rpma_srq_cfg_set_rq_size(cfg, 2 * CONNS));
	RPMA_OK(rpma_srq_cfg_set_rcq_size(cfg, rcq_size));
	rpma_srq *srq = nullptr;
	RPMA_OK(rpma_srq_new(peer, cfg, &srq));
	return Srq(srq);
}

ConnCfg cfg_with_srq(rpma_srq *srq)
{
	rpma_conn_cfg *cfg = nullptr;
	RPMA_OK(rpma_conn_cfg_new(&cfg));
	ConnCfg own(cfg);
	RPMA_OK(rpma_conn_cfg_set_srq(cfg, srq));
	rpma_srq *got = nullptr;
	RPMA_OK(rpma_conn_cfg_get_srq(cfg, &got));
	CPPUNIT_ASSERT(got == srq);
	return own;
}

// the client of pair i sends a message naming i
void send_name(Pair &p, int i, std::vector<unsigned char> &buf, MrLocal &mr)
{
	buf.assign(MSG, 0);
	std::snprintf((char *)buf.data(), MSG, "client %d", i);
	mr = reg(p.client_peer.get(), buf.data(), MSG, RPMA_MR_USAGE_SEND);
	RPMA_OK(rpma_send(p.client.get(), mr.get(), 0, MSG, RPMA_F_COMPLETION_ALWAYS, nullptr));
	expect_wc(cq_of(p.client.get()), IBV_WC_SEND);
}

} // namespace

class SrqTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(SrqTest);
	CPPUNIT_TEST(receives_on_the_srq_cq);
	CPPUNIT_TEST(receives_on_each_connection_cq);
	CPPUNIT_TEST_SUITE_END();

	// Each client sends a message naming itself; every receive comes
	// from the SRQ's slots and must be attributed to the right QP.
	// rcq_size 0: completions land on each connection's main CQ.
	void run(uint32_t rcq_size)
	{
		Peer speer = new_peer(RPMA_UTIL_IBV_CONTEXT_LOCAL);
		Srq srq = new_srq(speer.get(), rcq_size);
		rpma_cq *srq_rcq = nullptr;
		RPMA_OK(rpma_srq_get_rcq(srq.get(), &srq_rcq));
		CPPUNIT_ASSERT_EQUAL(rcq_size > 0, srq_rcq != nullptr);
		ConnCfg cfg = cfg_with_srq(srq.get());

		std::vector<unsigned char> slots(CONNS * MSG, 0);
		MrLocal slots_mr = reg(speer.get(), slots.data(), slots.size(), RPMA_MR_USAGE_RECV);
		for (int i = 0; i < CONNS; i++)
			RPMA_OK(rpma_srq_recv(srq.get(), slots_mr.get(), i * MSG, MSG,
					      (void *)(uintptr_t)i));

		PairOptions opts;
		opts.server_peer = speer.get();
		opts.server_cfg = cfg.get();
		Pair pairs[CONNS];
		std::vector<unsigned char> bufs[CONNS];
		MrLocal mrs[CONNS];
		std::map<uint32_t, int> conn_of_qp;
		for (int i = 0; i < CONNS; i++) {
			pairs[i] = connect_pair(opts);
			// the SRQ's RCQ replaces the connection's own
			CPPUNIT_ASSERT(rcq_of(pairs[i].server.get()) == nullptr);
			uint32_t qp = 0;
			RPMA_OK(rpma_conn_get_qp_num(pairs[i].server.get(), &qp));
			conn_of_qp[qp] = i;
		}
		for (int i = CONNS - 1; i >= 0; i--)
			send_name(pairs[i], i, bufs[i], mrs[i]);

		std::vector<bool> heard(CONNS, false);
		for (int n = 0; n < CONNS; n++) {
			ibv_wc wc;
			if (srq_rcq) {
				wc = expect_wc(srq_rcq, IBV_WC_RECV);
			} else {
				// each connection's CQ holds its own receive
				wc = expect_wc(cq_of(pairs[CONNS - 1 - n].server.get()),
					       IBV_WC_RECV);
			}
			CPPUNIT_ASSERT(conn_of_qp.count(wc.qp_num));
			int who = conn_of_qp[wc.qp_num];
			CPPUNIT_ASSERT(wc.wr_id < (uint64_t)CONNS);
			char expected[MSG] = {0};
			std::snprintf(expected, MSG, "client %d", who);
			CPPUNIT_ASSERT_EQUAL(std::string(expected),
					     std::string((char *)slots.data() + wc.wr_id * MSG));
			CPPUNIT_ASSERT(!heard[who]);
			heard[who] = true;
		}
		for (auto &p : pairs)
			close_pair(p);
	}

public:
	void receives_on_the_srq_cq() { run(2 * CONNS); }
	void receives_on_each_connection_cq() { run(0); }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SrqTest);
