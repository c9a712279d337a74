// SPDX-License-Identifier: BSD-3-Clause
// The LIBRPMA_EXT_1.0 memory windows: rpma_utils_ibv_context_is_mw_type2_capable,
// rpma_mr_reg_for_windows, rpma_mw_*, rpma_conn_req_bind_mw (the queue pair
// readied, the window bound and waited for before rdma_accept), and what
// ends a binding.
#include <cerrno>
#include <cstring>
#include <vector>

#include "descriptor.hh"
#include "fixture.hh"

namespace unit {

class MwTest : public Fixture {
	CPPUNIT_TEST_SUITE(MwTest);
	CPPUNIT_TEST(capable_reads_type_2_bits);
	CPPUNIT_TEST(capable_rejects_null_and_reports_query_failure);
	CPPUNIT_TEST(reg_for_windows_rejects_bad_arguments);
	CPPUNIT_TEST(reg_for_windows_without_windows_is_nosupp);
	CPPUNIT_TEST(reg_for_windows_grants_no_remote_right);
	CPPUNIT_TEST(new_rejects_null_and_incapable_devices);
	CPPUNIT_TEST(new_reports_allocation_failures);
	CPPUNIT_TEST(delete_rules);
	CPPUNIT_TEST(descriptor_rules);
	CPPUNIT_TEST(conn_req_bind_rejects_bad_arguments);
	CPPUNIT_TEST(conn_req_bind_rejects_outgoing_request);
	CPPUNIT_TEST(conn_req_bind_readies_qp_binds_then_accepts);
	CPPUNIT_TEST(conn_req_bind_of_two_windows);
	CPPUNIT_TEST(conn_req_failed_bind_rejects_request);
	CPPUNIT_TEST(conn_req_bind_timeout_rejects_request);
	CPPUNIT_TEST(conn_req_modify_failure_rejects_request);
	CPPUNIT_TEST(conn_req_delete_releases_reservation);
	CPPUNIT_TEST(bind_rejects_bad_arguments);
	CPPUNIT_TEST(bind_posts_on_connection);
	CPPUNIT_TEST(bind_again_replaces_the_window);
	CPPUNIT_TEST(bind_post_failure_leaves_window_unbound);
	CPPUNIT_TEST(conn_delete_invalidates_its_windows);
	CPPUNIT_TEST(dereg_invalidates_windows_over_region);
	CPPUNIT_TEST(delete_of_bound_window);
	CPPUNIT_TEST_SUITE_END();

	static constexpr int WINDOW_USAGE = RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST;
	static constexpr size_t SIZE = 4096;
	alignas(64) char buffer[SIZE] = {};

	static void make_capable()
	{
		fake::device_attr().orig_attr.device_cap_flags |= IBV_DEVICE_MEM_WINDOW_TYPE_2B;
		fake::device_attr().orig_attr.max_qp_rd_atom = 4;
		fake::device_attr().orig_attr.max_qp_init_rd_atom = 3;
		fake::set_mw_supported(true);
	}

	rpma_mr_local *windows_mr(int usage = WINDOW_USAGE)
	{
		if (!peer)
			make_peer();
		rpma_mr_local *mr = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_reg_for_windows(peer, buffer, SIZE, usage, &mr));
		mrs.push_back(mr);
		return mr;
	}

	rpma_mw *new_mw()
	{
		if (!peer)
			make_peer();
		rpma_mw *mw = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mw_new(peer, &mw));
		mws.push_back(mw);
		return mw;
	}

	static std::vector<uint8_t> descriptor_of(const rpma_mw *mw)
	{
		std::vector<uint8_t> desc(MR_DESCRIPTOR_SIZE);
		CPPUNIT_ASSERT_EQUAL(0, rpma_mw_get_descriptor(mw, desc.data()));
		return desc;
	}

	static uint32_t rkey_in(const std::vector<uint8_t> &desc)
	{
		uint32_t rkey = 0;
		for (int i = 0; i < 4; ++i)
			rkey |= static_cast<uint32_t>(desc[16 + i]) << (8 * i);
		return rkey;
	}

	static std::vector<fake::SendWr> binds()
	{
		std::vector<fake::SendWr> found;
		for (const fake::SendWr &wr : fake::sends())
			if (wr.opcode == IBV_WR_BIND_MW)
				found.push_back(wr);
		return found;
	}

	static void complete_bind(ibv_cq *cq, ibv_wc_status status = IBV_WC_SUCCESS)
	{
		ibv_wc wc{};
		wc.status = status;
		wc.opcode = IBV_WC_BIND_MW;
		fake::queue_wc(cq, wc);
	}

	static ibv_cq *send_cq_of_last_qp() { return last_qp()->send_cq; }

	// An established connection of the passive side, its QP in RTS.
	rpma_conn *passive_conn()
	{
		make_incoming_req();
		return connect_req();
	}

	void capable_reads_type_2_bits()
	{
		int capable = -1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_utils_ibv_context_is_mw_type2_capable(fake::context(),
										   &capable));
		CPPUNIT_ASSERT_EQUAL(0, capable);
		fake::device_attr().orig_attr.device_cap_flags = IBV_DEVICE_MEM_WINDOW;
		CPPUNIT_ASSERT_EQUAL(0, rpma_utils_ibv_context_is_mw_type2_capable(fake::context(),
										   &capable));
		CPPUNIT_ASSERT_EQUAL(0, capable); // type 1 only
		fake::device_attr().orig_attr.device_cap_flags = IBV_DEVICE_MEM_WINDOW_TYPE_2A;
		CPPUNIT_ASSERT_EQUAL(0, rpma_utils_ibv_context_is_mw_type2_capable(fake::context(),
										   &capable));
		CPPUNIT_ASSERT_EQUAL(1, capable);
		fake::device_attr().orig_attr.device_cap_flags = IBV_DEVICE_MEM_WINDOW_TYPE_2B;
		capable = 0;
		CPPUNIT_ASSERT_EQUAL(0, rpma_utils_ibv_context_is_mw_type2_capable(fake::context(),
										   &capable));
		CPPUNIT_ASSERT_EQUAL(1, capable);
	}

	void capable_rejects_null_and_reports_query_failure()
	{
		int capable = 7;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_utils_ibv_context_is_mw_type2_capable(nullptr, &capable));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_utils_ibv_context_is_mw_type2_capable(fake::context(),
										nullptr));
		CPPUNIT_ASSERT_EQUAL(7, capable);
		fake::fail(fake::Call::ibv_query_device_ex, EIO);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER,
				     rpma_utils_ibv_context_is_mw_type2_capable(fake::context(),
										&capable));
		CPPUNIT_ASSERT_EQUAL(EIO, errno);
		CPPUNIT_ASSERT_EQUAL(7, capable);
	}

	void reg_for_windows_rejects_bad_arguments()
	{
		make_capable();
		make_peer();
		rpma_mr_local *mr = nullptr;
		auto reg = [&](rpma_peer *p, void *ptr, size_t size, int usage,
			       rpma_mr_local **out) {
			return rpma_mr_reg_for_windows(p, ptr, size, usage, out);
		};
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, reg(nullptr, buffer, SIZE, WINDOW_USAGE, &mr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, reg(peer, nullptr, SIZE, WINDOW_USAGE, &mr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, reg(peer, buffer, 0, WINDOW_USAGE, &mr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, reg(peer, buffer, SIZE, WINDOW_USAGE, nullptr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, reg(peer, buffer, SIZE, 0, &mr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, reg(peer, buffer, SIZE, 0x100, &mr));
		// local usages alone: nothing a window could grant
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     reg(peer, buffer, SIZE, RPMA_MR_USAGE_WRITE_SRC, &mr));
		CPPUNIT_ASSERT(mr == nullptr);
		CPPUNIT_ASSERT(fake::registrations().empty());
		fake::fail(fake::Call::ibv_reg_mr, EFAULT);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, reg(peer, buffer, SIZE, WINDOW_USAGE, &mr));
		CPPUNIT_ASSERT_EQUAL(EFAULT, errno);
	}

	void reg_for_windows_without_windows_is_nosupp()
	{
		make_peer();
		rpma_mr_local *mr = nullptr;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOSUPP, rpma_mr_reg_for_windows(peer, buffer, SIZE,
									    WINDOW_USAGE, &mr));
		CPPUNIT_ASSERT(mr == nullptr);
	}

	void reg_for_windows_grants_no_remote_right()
	{
		make_capable();
		rpma_mr_local *mr = windows_mr(WINDOW_USAGE | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
		const unsigned access = registration_of(mr).access;
		CPPUNIT_ASSERT_EQUAL(0u,
				     access & (IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
					       IBV_ACCESS_REMOTE_ATOMIC));
		CPPUNIT_ASSERT(access & IBV_ACCESS_MW_BIND);
		// a writable window needs the region's local write (C10-74)
		CPPUNIT_ASSERT(access & IBV_ACCESS_LOCAL_WRITE);
		rpma_mr_local *read_only = nullptr;
		CPPUNIT_ASSERT_EQUAL(0,
				     rpma_mr_reg_for_windows(peer, buffer, SIZE / 2,
							     RPMA_MR_USAGE_READ_SRC, &read_only));
		mrs.push_back(read_only);
		CPPUNIT_ASSERT_EQUAL(unsigned{IBV_ACCESS_MW_BIND},
				     registration_of(read_only).access);
	}

	void new_rejects_null_and_incapable_devices()
	{
		make_peer();
		rpma_mw *mw = nullptr;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mw_new(nullptr, &mw));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mw_new(peer, nullptr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOSUPP, rpma_mw_new(peer, &mw));
		CPPUNIT_ASSERT(mw == nullptr);
	}

	void new_reports_allocation_failures()
	{
		make_capable();
		make_peer();
		rpma_mw *mw = nullptr;
		fake::fail(fake::Call::ibv_alloc_mw, EINVAL);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_mw_new(peer, &mw));
		CPPUNIT_ASSERT_EQUAL(EINVAL, errno);
		fake::fail(fake::Call::ibv_alloc_mw, ENOMEM);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOMEM, rpma_mw_new(peer, &mw));
		CPPUNIT_ASSERT(mw == nullptr);
	}

	void delete_rules()
	{
		make_capable();
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mw_delete(nullptr));
		rpma_mw *none = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mw_delete(&none));
		make_peer();
		rpma_mw *mw = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mw_new(peer, &mw));
		fake::fail(fake::Call::ibv_dealloc_mw, EIO);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_mw_delete(&mw));
		CPPUNIT_ASSERT_EQUAL(EIO, errno);
		CPPUNIT_ASSERT(mw == nullptr);
	}

	void descriptor_rules()
	{
		make_capable();
		rpma_mw *mw = new_mw();
		size_t size = 0;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mw_get_descriptor_size(nullptr, &size));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mw_get_descriptor_size(mw, nullptr));
		CPPUNIT_ASSERT_EQUAL(0, rpma_mw_get_descriptor_size(mw, &size));
		CPPUNIT_ASSERT_EQUAL(MR_DESCRIPTOR_SIZE, size);
		std::vector<uint8_t> desc(MR_DESCRIPTOR_SIZE, 0xee);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mw_get_descriptor(nullptr, desc.data()));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mw_get_descriptor(mw, nullptr));
		// an unbound window has no descriptor
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mw_get_descriptor(mw, desc.data()));
		CPPUNIT_ASSERT(desc == std::vector<uint8_t>(MR_DESCRIPTOR_SIZE, 0xee));
	}

	void conn_req_bind_rejects_bad_arguments()
	{
		make_capable();
		rpma_mr_local *mr = windows_mr(RPMA_MR_USAGE_READ_SRC);
		rpma_mw *mw = new_mw();
		make_incoming_req();
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_bind_mw(nullptr, mw, mr, 0, 64,
									 RPMA_MR_USAGE_READ_SRC));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_bind_mw(req, nullptr, mr, 0, 64,
									 RPMA_MR_USAGE_READ_SRC));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_bind_mw(req, mw, nullptr, 0, 64,
									 RPMA_MR_USAGE_READ_SRC));
		// empty, outside the region, wrapping around
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_bind_mw(req, mw, mr, 0, 0,
									 RPMA_MR_USAGE_READ_SRC));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_bind_mw(req, mw, mr, SIZE - 8, 16,
									 RPMA_MR_USAGE_READ_SRC));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_bind_mw(req, mw, mr, SIZE_MAX, 2,
									 RPMA_MR_USAGE_READ_SRC));
		// no usage, beyond the region's, a local one
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_bind_mw(req, mw, mr, 0, 64, 0));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_bind_mw(req, mw, mr, 0, 64,
									 RPMA_MR_USAGE_WRITE_DST));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_conn_req_bind_mw(req, mw, mr, 0, 64, RPMA_MR_USAGE_RECV));
		// a region registered by rpma_mr_reg
		rpma_mr_local *plain = register_mr(buffer, SIZE, RPMA_MR_USAGE_READ_SRC);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_bind_mw(req, mw, plain, 0, 64,
									 RPMA_MR_USAGE_READ_SRC));
		std::vector<uint8_t> desc(MR_DESCRIPTOR_SIZE);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mw_get_descriptor(mw, desc.data()));
		// reserved once, not twice
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_bind_mw(req, mw, mr, 0, 64,
							      RPMA_MR_USAGE_READ_SRC));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_conn_req_bind_mw(req, mw, mr, 64, 64,
									 RPMA_MR_USAGE_READ_SRC));
		CPPUNIT_ASSERT(binds().empty());
	}

	void conn_req_bind_rejects_outgoing_request()
	{
		make_capable();
		rpma_mr_local *mr = windows_mr();
		rpma_mw *mw = new_mw();
		make_outgoing_req();
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_conn_req_bind_mw(req, mw, mr, 0, 64, WINDOW_USAGE));
	}

	void conn_req_bind_readies_qp_binds_then_accepts()
	{
		make_capable();
		fake::init_qp_attr().max_dest_rd_atomic = 16;
		fake::init_qp_attr().max_rd_atomic = 2;
		fake::init_qp_attr().extra_mask = 1 << 21;
		rpma_mr_local *mr = windows_mr();
		rpma_mw *mw = new_mw();
		make_incoming_req();
		ibv_qp *qp = last_qp();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_bind_mw(req, mw, mr, 256, 512, WINDOW_USAGE));
		// the descriptor is the one the client will use, before any bind
		const std::vector<uint8_t> desc = descriptor_of(mw);
		const uint32_t rkey = rkey_in(desc);
		const auto expected = mr_descriptor(reinterpret_cast<uintptr_t>(buffer) + 256, 512,
						    rkey, WINDOW_USAGE);
		CPPUNIT_ASSERT(std::equal(expected.begin(), expected.end(), desc.begin()));
		CPPUNIT_ASSERT(binds().empty());
		CPPUNIT_ASSERT_EQUAL(IBV_QPS_INIT, fake::qp_state(qp));

		complete_bind(qp->send_cq);
		uint8_t pdata_bytes[MR_DESCRIPTOR_SIZE];
		std::memcpy(pdata_bytes, desc.data(), desc.size());
		rpma_conn_private_data pdata{pdata_bytes, MR_DESCRIPTOR_SIZE};
		connect_req(&pdata);

		// INIT refreshed, RTR, RTS, then one bind, then the accept
		const auto &modifies = fake::qp_modifies();
		CPPUNIT_ASSERT_EQUAL(size_t{3}, modifies.size());
		CPPUNIT_ASSERT_EQUAL(IBV_QPS_INIT, modifies[0].attr.qp_state);
		CPPUNIT_ASSERT_EQUAL(IBV_QPS_RTR, modifies[1].attr.qp_state);
		CPPUNIT_ASSERT_EQUAL(0, modifies[1].mask & (1 << 21));
		CPPUNIT_ASSERT_EQUAL(uint8_t{4}, modifies[1].attr.max_dest_rd_atomic); // device max
		CPPUNIT_ASSERT_EQUAL(IBV_QPS_RTS, modifies[2].attr.qp_state);
		CPPUNIT_ASSERT_EQUAL(uint8_t{2}, modifies[2].attr.max_rd_atomic); // peer's ask
		CPPUNIT_ASSERT(fake::first_index(fake::Call::ibv_modify_qp) <
			       fake::first_index(fake::Call::ibv_post_send));
		CPPUNIT_ASSERT(fake::first_index(fake::Call::ibv_poll_cq) <
			       fake::first_index(fake::Call::rdma_accept));
		const auto posted = binds();
		CPPUNIT_ASSERT_EQUAL(size_t{1}, posted.size());
		CPPUNIT_ASSERT_EQUAL(rkey, posted[0].bind_rkey);
		CPPUNIT_ASSERT_EQUAL(reinterpret_cast<uintptr_t>(buffer) + 256,
				     posted[0].bind_info.addr);
		CPPUNIT_ASSERT_EQUAL(uint64_t{512}, posted[0].bind_info.length);
		CPPUNIT_ASSERT_EQUAL(unsigned{IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE},
				     posted[0].bind_info.mw_access_flags);
		CPPUNIT_ASSERT(posted[0].send_flags & IBV_SEND_SIGNALED);
		// accepted without the QP on the id, naming it in the parameters
		const fake::ConnParam &accept = fake::conn_params().back();
		CPPUNIT_ASSERT_EQUAL(fake::Call::rdma_accept, accept.call);
		CPPUNIT_ASSERT(!accept.had_qp);
		CPPUNIT_ASSERT_EQUAL(qp->qp_num, accept.param.qp_num);
		CPPUNIT_ASSERT(std::equal(desc.begin(), desc.end(), accept.private_data.begin()));
		CPPUNIT_ASSERT_EQUAL(qp, accept.id->qp); // given back
		CPPUNIT_ASSERT(descriptor_of(mw) == desc);
	}

	void conn_req_bind_of_two_windows()
	{
		make_capable();
		rpma_mr_local *mr = windows_mr();
		rpma_mw *first = new_mw();
		rpma_mw *second = new_mw();
		make_incoming_req();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_bind_mw(req, first, mr, 0, 64, WINDOW_USAGE));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_bind_mw(req, second, mr, 64, 64,
							      RPMA_MR_USAGE_READ_SRC));
		complete_bind(send_cq_of_last_qp());
		complete_bind(send_cq_of_last_qp());
		connect_req();
		const auto posted = binds();
		CPPUNIT_ASSERT_EQUAL(size_t{2}, posted.size());
		CPPUNIT_ASSERT_EQUAL(rkey_in(descriptor_of(first)), posted[0].bind_rkey);
		CPPUNIT_ASSERT_EQUAL(rkey_in(descriptor_of(second)), posted[1].bind_rkey);
		CPPUNIT_ASSERT_EQUAL(unsigned{IBV_ACCESS_REMOTE_READ},
				     posted[1].bind_info.mw_access_flags);
	}

	void conn_req_failed_bind_rejects_request()
	{
		make_capable();
		rpma_mr_local *mr = windows_mr();
		rpma_mw *mw = new_mw();
		make_incoming_req();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_bind_mw(req, mw, mr, 0, 64, WINDOW_USAGE));
		complete_bind(send_cq_of_last_qp(), IBV_WC_MW_BIND_ERR);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_conn_req_connect(&req, nullptr, &conn));
		CPPUNIT_ASSERT_EQUAL(EIO, errno);
		CPPUNIT_ASSERT(req == nullptr && conn == nullptr);
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::rdma_accept));
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::rdma_reject));
		// the binding ended with the request: no descriptor, bindable again
		std::vector<uint8_t> desc(MR_DESCRIPTOR_SIZE);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mw_get_descriptor(mw, desc.data()));
		make_incoming_req();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_bind_mw(req, mw, mr, 0, 64, WINDOW_USAGE));
	}

	void conn_req_bind_timeout_rejects_request()
	{
		make_capable();
		rpma_mr_local *mr = windows_mr();
		rpma_mw *mw = new_mw();
		make_conn_cfg();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_cfg_set_timeout(conn_cfg, 20));
		make_incoming_req(conn_cfg);
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_bind_mw(req, mw, mr, 0, 64, WINDOW_USAGE));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_conn_req_connect(&req, nullptr, &conn));
		CPPUNIT_ASSERT_EQUAL(ETIMEDOUT, errno);
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::rdma_accept));
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::rdma_reject));
	}

	void conn_req_modify_failure_rejects_request()
	{
		make_capable();
		rpma_mr_local *mr = windows_mr();
		rpma_mw *mw = new_mw();
		for (fake::Call call : {fake::Call::rdma_init_qp_attr, fake::Call::ibv_modify_qp}) {
			make_incoming_req();
			CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_bind_mw(req, mw, mr, 0, 64,
								      WINDOW_USAGE));
			fake::fail(call, EINVAL, 2);
			CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER,
					     rpma_conn_req_connect(&req, nullptr, &conn));
			CPPUNIT_ASSERT_EQUAL(EINVAL, errno);
			CPPUNIT_ASSERT(binds().empty());
		}
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::rdma_accept));
	}

	void conn_req_delete_releases_reservation()
	{
		make_capable();
		rpma_mr_local *mr = windows_mr();
		rpma_mw *mw = new_mw();
		make_incoming_req();
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_bind_mw(req, mw, mr, 0, 64, WINDOW_USAGE));
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_req_delete(&req));
		std::vector<uint8_t> desc(MR_DESCRIPTOR_SIZE);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mw_get_descriptor(mw, desc.data()));
		// never bound: the device's window was kept
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::ibv_dealloc_mw));
		// and the region deregisters
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_dereg(&mrs[0]));
	}

	void bind_rejects_bad_arguments()
	{
		make_capable();
		rpma_mr_local *mr = windows_mr();
		rpma_mw *mw = new_mw();
		passive_conn();
		auto bind = [&](rpma_conn *c, rpma_mw *w, const rpma_mr_local *m, size_t off,
				size_t len, int usage, int flags) {
			return rpma_mw_bind(c, w, m, off, len, usage, flags, nullptr);
		};
		const int always = RPMA_F_COMPLETION_ALWAYS;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     bind(nullptr, mw, mr, 0, 64, WINDOW_USAGE, always));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     bind(conn, nullptr, mr, 0, 64, WINDOW_USAGE, always));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     bind(conn, mw, nullptr, 0, 64, WINDOW_USAGE, always));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, bind(conn, mw, mr, 0, 64, WINDOW_USAGE, 4));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, bind(conn, mw, mr, 0, 0, WINDOW_USAGE, always));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     bind(conn, mw, mr, SIZE, 1, WINDOW_USAGE, always));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, bind(conn, mw, mr, 0, 64, 0, always));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     bind(conn, mw, mr, 0, 64, RPMA_MR_USAGE_SEND, always));
		CPPUNIT_ASSERT(binds().empty());
	}

	void bind_posts_on_connection()
	{
		make_capable();
		rpma_mr_local *mr = windows_mr();
		rpma_mw *mw = new_mw();
		passive_conn();
		int op_context = 0;
		CPPUNIT_ASSERT_EQUAL(0,
				     rpma_mw_bind(conn, mw, mr, 128, 256, RPMA_MR_USAGE_WRITE_DST,
						  RPMA_F_COMPLETION_ALWAYS, &op_context));
		const auto posted = binds();
		CPPUNIT_ASSERT_EQUAL(size_t{1}, posted.size());
		CPPUNIT_ASSERT_EQUAL(reinterpret_cast<uint64_t>(&op_context), posted[0].wr_id);
		CPPUNIT_ASSERT(posted[0].send_flags & IBV_SEND_SIGNALED);
		CPPUNIT_ASSERT_EQUAL(unsigned{IBV_ACCESS_REMOTE_WRITE},
				     posted[0].bind_info.mw_access_flags);
		const std::vector<uint8_t> desc = descriptor_of(mw);
		CPPUNIT_ASSERT_EQUAL(posted[0].bind_rkey, rkey_in(desc));
		// an unchanged client takes the descriptor as a region's
		rpma_mr_remote *remote = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_remote_from_descriptor(desc.data(), desc.size(),
								       &remote));
		remote_mrs.push_back(remote);
		size_t size = 0;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_remote_get_size(remote, &size));
		CPPUNIT_ASSERT_EQUAL(size_t{256}, size);
		// completion on error only: not signalled
		rpma_mw *quiet = new_mw();
		CPPUNIT_ASSERT_EQUAL(0, rpma_mw_bind(conn, quiet, mr, 0, 64, RPMA_MR_USAGE_READ_SRC,
						     RPMA_F_COMPLETION_ON_ERROR, nullptr));
		CPPUNIT_ASSERT_EQUAL(0u, binds().back().send_flags & IBV_SEND_SIGNALED);
	}

	void bind_again_replaces_the_window()
	{
		make_capable();
		rpma_mr_local *mr = windows_mr();
		rpma_mw *mw = new_mw();
		passive_conn();
		CPPUNIT_ASSERT_EQUAL(0, rpma_mw_bind(conn, mw, mr, 0, 64, WINDOW_USAGE,
						     RPMA_F_COMPLETION_ALWAYS, nullptr));
		const uint32_t first_key = rkey_in(descriptor_of(mw));
		CPPUNIT_ASSERT_EQUAL(0, rpma_mw_bind(conn, mw, mr, 64, 64, WINDOW_USAGE,
						     RPMA_F_COMPLETION_ALWAYS, nullptr));
		// a type 2 window is bound only while free: the old one went
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::ibv_dealloc_mw));
		CPPUNIT_ASSERT_EQUAL(2u, fake::count(fake::Call::ibv_alloc_mw));
		const auto posted = binds();
		CPPUNIT_ASSERT_EQUAL(size_t{2}, posted.size());
		CPPUNIT_ASSERT(first_key != rkey_in(descriptor_of(mw)));
	}

	void bind_post_failure_leaves_window_unbound()
	{
		make_capable();
		rpma_mr_local *mr = windows_mr();
		rpma_mw *mw = new_mw();
		passive_conn();
		fake::fail(fake::Call::ibv_post_send, ENOMEM);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER,
				     rpma_mw_bind(conn, mw, mr, 0, 64, WINDOW_USAGE,
						  RPMA_F_COMPLETION_ALWAYS, nullptr));
		CPPUNIT_ASSERT_EQUAL(ENOMEM, errno);
		std::vector<uint8_t> desc(MR_DESCRIPTOR_SIZE);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mw_get_descriptor(mw, desc.data()));
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::ibv_dealloc_mw));
	}

	void conn_delete_invalidates_its_windows()
	{
		make_capable();
		rpma_mr_local *mr = windows_mr();
		rpma_mw *mw = new_mw();
		passive_conn();
		CPPUNIT_ASSERT_EQUAL(0, rpma_mw_bind(conn, mw, mr, 0, 64, WINDOW_USAGE,
						     RPMA_F_COMPLETION_ALWAYS, nullptr));
		// the fake notes a QP destroyed under a bound window as a misuse
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_delete(&conn));
		CPPUNIT_ASSERT(fake::first_index(fake::Call::ibv_dealloc_mw) <
			       fake::first_index(fake::Call::rdma_destroy_qp));
		std::vector<uint8_t> desc(MR_DESCRIPTOR_SIZE);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mw_get_descriptor(mw, desc.data()));
		// the window outlives its connection and binds on another
		passive_conn();
		CPPUNIT_ASSERT_EQUAL(0, rpma_mw_bind(conn, mw, mr, 0, 64, WINDOW_USAGE,
						     RPMA_F_COMPLETION_ALWAYS, nullptr));
		CPPUNIT_ASSERT_EQUAL(2u, fake::count(fake::Call::ibv_alloc_mw));
	}

	void dereg_invalidates_windows_over_region()
	{
		make_capable();
		rpma_mr_local *mr = windows_mr();
		rpma_mw *mw = new_mw();
		passive_conn();
		CPPUNIT_ASSERT_EQUAL(0, rpma_mw_bind(conn, mw, mr, 0, 64, WINDOW_USAGE,
						     RPMA_F_COMPLETION_ALWAYS, nullptr));
		// the fake refuses to deregister a region under a bound window
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_dereg(&mrs[0]));
		std::vector<uint8_t> desc(MR_DESCRIPTOR_SIZE);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mw_get_descriptor(mw, desc.data()));
	}

	void delete_of_bound_window()
	{
		make_capable();
		rpma_mr_local *mr = windows_mr();
		passive_conn();
		rpma_mw *mw = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mw_new(peer, &mw));
		CPPUNIT_ASSERT_EQUAL(0, rpma_mw_bind(conn, mw, mr, 0, 64, WINDOW_USAGE,
						     RPMA_F_COMPLETION_ALWAYS, nullptr));
		CPPUNIT_ASSERT_EQUAL(0, rpma_mw_delete(&mw));
		CPPUNIT_ASSERT(mw == nullptr);
		// the connection and the region go after it without complaint
		CPPUNIT_ASSERT_EQUAL(0, rpma_conn_delete(&conn));
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_dereg(&mrs[0]));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(MwTest);

} // namespace unit
