// SPDX-License-Identifier: BSD-3-Clause
// The base of every test: a fresh fake device and a quiet log before each
// test; after it, whatever the test left in the fixture's slots is deleted
// through the API, and the fake must hold no object and have seen no misuse.
#ifndef RPMA_TESTS_UNIT_FIXTURE_HH
#define RPMA_TESTS_UNIT_FIXTURE_HH

#include <cppunit/TestAssert.h>
#include <cppunit/extensions/HelperMacros.h>

#include <cstdint>
#include <vector>

#include "fake/fake.hh"
#include "librpma.h"
#include "log_capture.hh"

namespace unit {

// The address and service every connection in the tests goes to.
inline constexpr const char *address = "192.168.0.7";
inline constexpr const char *service = "7204";

class Fixture : public CppUnit::TestFixture {
public:
	void setUp() override;
	void tearDown() override;

protected:
	// Objects deleted by tearDown(), dependants first, when not NULL.
	rpma_conn *conn = nullptr;
	rpma_conn_req *req = nullptr;
	rpma_ep *ep = nullptr;
	rpma_srq *srq = nullptr;
	std::vector<rpma_mw *> mws;
	std::vector<rpma_mr_local *> mrs;
	std::vector<rpma_mr_remote *> remote_mrs;
	rpma_conn_cfg *conn_cfg = nullptr;
	rpma_srq_cfg *srq_cfg = nullptr;
	rpma_peer_cfg *peer_cfg = nullptr;
	rpma_peer *peer = nullptr;

	// The test leaves objects in the fake on purpose (e.g. a destroy the
	// device refused); tearDown() then skips the leak check.
	void expect_leaks() { leaks_expected_ = true; }

	rpma_peer *make_peer();
	rpma_conn_cfg *make_conn_cfg();
	rpma_srq *make_srq(rpma_srq_cfg *cfg = nullptr);
	rpma_mr_local *register_mr(void *ptr, size_t size, int usage);
	rpma_mr_remote *remote_mr(uint64_t raddr, uint64_t size, uint32_t rkey, int usage);

	// An outgoing request to address:service (makes the peer if needed).
	rpma_conn_req *make_outgoing_req(const rpma_conn_cfg *cfg = nullptr);
	// Listens (if not yet) and takes a CONNECT_REQUEST carrying `pdata`.
	rpma_conn_req *make_incoming_req(const rpma_conn_cfg *cfg = nullptr,
					 std::vector<uint8_t> pdata = {});
	// Connects the request in `req`.
	rpma_conn *connect_req(const rpma_conn_private_data *pdata = nullptr);
	// An established-to-be connection of the active side.
	rpma_conn *make_conn(const rpma_conn_cfg *cfg = nullptr);

	// The QP the library made last, as the fake holds it.
	static ibv_qp *last_qp();

	// post(mr, offset, len) posts a receive into a region over `buffer`: it
	// must refuse 4 GiB (an SGE holds 32 bits) and ranges past the region,
	// posting nothing, and take the region's last 8 bytes.
	template <typename Post>
	void receive_refuses_what_an_sge_cannot_hold(Post post, char *buffer, size_t size)
	{
		const size_t four_gib = size_t{1} << 32;
		rpma_mr_local *big = register_mr(buffer, 2 * four_gib, RPMA_MR_USAGE_RECV);
		rpma_mr_local *mr = register_mr(buffer, size, RPMA_MR_USAGE_RECV);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, post(big, 0, four_gib));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, post(mr, size - 4, 8));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, post(mr, SIZE_MAX - 3, 8));
		CPPUNIT_ASSERT(fake::recvs().empty());
		CPPUNIT_ASSERT_EQUAL(0, post(mr, size - 8, 8));
	}

private:
	bool leaks_expected_ = false;
};

// The fake's record of the registration behind a local MR.
const fake::MrReg &registration_of(const rpma_mr_local *mr);

} // namespace unit

#endif
