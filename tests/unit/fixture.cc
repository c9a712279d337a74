// SPDX-License-Identifier: BSD-3-Clause
#include "fixture.hh"

#include <regex>
#include <string>

#include "descriptor.hh"

namespace unit {

namespace {

std::string joined(const std::vector<std::string> &lines)
{
	std::string out;
	for (const std::string &line : lines)
		out += "\n  " + line;
	return out;
}

// Messages whose function name is not an identifier, as a lambda's
// "operator()" is: users cannot tell where they come from.
std::vector<std::string> anonymous_log_origins()
{
	static const std::regex identifier(R"(^[A-Za-z_]\w*$)");
	std::vector<std::string> found;
	for (const LogRecord &record : LogCapture::records())
		if (!std::regex_match(record.function, identifier))
			found.push_back(record.file + ":" + std::to_string(record.line) + ": " +
					record.function);
	return found;
}

} // namespace

void Fixture::setUp()
{
	fake::reset();
	LogCapture::install();
	rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG);
	rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED);
}

void Fixture::tearDown()
{
	// Every delete runs even if an earlier one fails; the first failure is
	// reported after all of them.
	std::vector<std::string> failures;
	auto check = [&failures](const char *what, int ret) {
		if (ret != 0)
			failures.push_back(std::string(what) + " returned " + std::to_string(ret));
	};
	check("rpma_conn_delete", rpma_conn_delete(&conn));
	check("rpma_conn_req_delete", rpma_conn_req_delete(&req));
	check("rpma_ep_shutdown", rpma_ep_shutdown(&ep));
	check("rpma_srq_delete", rpma_srq_delete(&srq));
	for (rpma_mw *&mw : mws)
		check("rpma_mw_delete", rpma_mw_delete(&mw));
	for (rpma_mr_local *&mr : mrs)
		check("rpma_mr_dereg", rpma_mr_dereg(&mr));
	for (rpma_mr_remote *&mr : remote_mrs)
		check("rpma_mr_remote_delete", rpma_mr_remote_delete(&mr));
	check("rpma_conn_cfg_delete", rpma_conn_cfg_delete(&conn_cfg));
	check("rpma_srq_cfg_delete", rpma_srq_cfg_delete(&srq_cfg));
	check("rpma_peer_cfg_delete", rpma_peer_cfg_delete(&peer_cfg));
	check("rpma_peer_delete", rpma_peer_delete(&peer));

	const std::string leaked = leaks_expected_ ? "" : fake::live_objects();
	const std::vector<std::string> misuses = fake::misuses();
	const std::vector<std::string> anonymous = anonymous_log_origins();
	rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);
	rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING);
	fake::reset();

	if (!failures.empty())
		CPPUNIT_FAIL("clean-up failed:" + joined(failures));
	if (!misuses.empty())
		CPPUNIT_FAIL("rdma-core misused:" + joined(misuses));
	if (!leaked.empty())
		CPPUNIT_FAIL("left alive in rdma-core: " + leaked);
	if (!anonymous.empty())
		CPPUNIT_FAIL("logged without a function name:" + joined(anonymous));
}

rpma_peer *Fixture::make_peer()
{
	CPPUNIT_ASSERT_MESSAGE("the test has a peer already", !peer);
	CPPUNIT_ASSERT_EQUAL(0, rpma_peer_new(fake::context(), &peer));
	return peer;
}

rpma_conn_cfg *Fixture::make_conn_cfg()
{
	CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_new(&conn_cfg));
	return conn_cfg;
}

rpma_srq *Fixture::make_srq(rpma_srq_cfg *cfg)
{
	if (!peer)
		make_peer();
	CPPUNIT_ASSERT_EQUAL(0, rpma_srq_new(peer, cfg, &srq));
	return srq;
}

rpma_mr_local *Fixture::register_mr(void *ptr, size_t size, int usage)
{
	if (!peer)
		make_peer();
	rpma_mr_local *mr = nullptr;
	CPPUNIT_ASSERT_EQUAL(0, rpma_mr_reg(peer, ptr, size, usage, &mr));
	mrs.push_back(mr);
	return mr;
}

rpma_mr_remote *Fixture::remote_mr(uint64_t raddr, uint64_t size, uint32_t rkey, int usage)
{
	const auto desc = mr_descriptor(raddr, size, rkey, static_cast<uint8_t>(usage));
	rpma_mr_remote *mr = nullptr;
	CPPUNIT_ASSERT_EQUAL(0, rpma_mr_remote_from_descriptor(desc.data(), desc.size(), &mr));
	remote_mrs.push_back(mr);
	return mr;
}

rpma_conn_req *Fixture::make_outgoing_req(const rpma_conn_cfg *cfg)
{
	if (!peer)
		make_peer();
	CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_new(peer, address, service, cfg, &req));
	return req;
}

rpma_conn_req *Fixture::make_incoming_req(const rpma_conn_cfg *cfg, std::vector<uint8_t> pdata)
{
	if (!peer)
		make_peer();
	if (!ep)
		CPPUNIT_ASSERT_EQUAL(0, rpma_ep_listen(peer, address, service, &ep));
	fake::queue_cm_event(RDMA_CM_EVENT_CONNECT_REQUEST, std::move(pdata));
	CPPUNIT_ASSERT_EQUAL(0, rpma_ep_next_conn_req(ep, cfg, &req));
	return req;
}

rpma_conn *Fixture::connect_req(const rpma_conn_private_data *pdata)
{
	CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_connect(&req, pdata, &conn));
	return conn;
}

rpma_conn *Fixture::make_conn(const rpma_conn_cfg *cfg)
{
	make_outgoing_req(cfg);
	return connect_req();
}

ibv_qp *Fixture::last_qp()
{
	CPPUNIT_ASSERT(!fake::qps().empty());
	return fake::qps().back().qp;
}

const fake::MrReg &registration_of(const rpma_mr_local *mr)
{
	void *ptr = nullptr;
	size_t size = 0;
	CPPUNIT_ASSERT_EQUAL(0, rpma_mr_get_ptr(mr, &ptr));
	CPPUNIT_ASSERT_EQUAL(0, rpma_mr_get_size(mr, &size));
	const fake::MrReg *found = nullptr;
	for (const fake::MrReg &reg : fake::registrations())
		if (reg.mr && reg.addr == ptr && reg.length == size)
			found = &reg;
	CPPUNIT_ASSERT_MESSAGE("no registration behind the MR", found);
	return *found;
}

} // namespace unit
