// SPDX-License-Identifier: BSD-3-Clause
// rpma_mr_*: local registration (usage to access flags, the ODP retry),
// the 21-byte descriptor, remote regions decoded from it, and advice.
#include <array>
#include <cstring>

#include "config.h"
#include "descriptor.hh"
#include "fixture.hh"
#include "out_of_memory.hh"

namespace unit {

namespace {

// docs/compatibility.md, "Memory-region descriptor": 100 MiB at
// 0x7f1234560000, rkey 0x1a2b, usage 0x2f
const std::array<uint8_t, 21> golden = {
	0x00, 0x00, 0x56, 0x34, 0x12, 0x7f, 0x00, 0x00, // raddr
	0x00, 0x00, 0x40, 0x06, 0x00, 0x00, 0x00, 0x00, // length
	0x2b, 0x1a, 0x00, 0x00,                         // rkey
	0x2f,                                           // usage
};
void *const golden_addr = reinterpret_cast<void *>(0x7f1234560000);
constexpr size_t GOLDEN_SIZE = 100 << 20;
constexpr int GOLDEN_USAGE = 0x2f;

constexpr int ALL_USAGES = 0xff;

} // namespace

class MrTest : public Fixture {
	CPPUNIT_TEST_SUITE(MrTest);
	CPPUNIT_TEST(reg_rejects_bad_arguments);
	CPPUNIT_TEST(reg_registers_range_on_peer_pd);
	CPPUNIT_TEST(reg_maps_each_usage_to_access);
	CPPUNIT_TEST(reg_adds_remote_write_for_iwarp_read_dst);
	CPPUNIT_TEST(reg_combines_usages);
	CPPUNIT_TEST(reg_failure_is_provider_error);
	CPPUNIT_TEST(reg_without_odp_does_not_retry);
	CPPUNIT_TEST(reg_retries_with_odp_when_capable);
	CPPUNIT_TEST(reg_odp_retry_failure_is_provider_error);
	CPPUNIT_TEST(reg_odp_on_soft_roce_warns);
	CPPUNIT_TEST(reg_odp_elsewhere_does_not_warn);
#if HAVE_DECL_IBV_WR_FLUSH
	CPPUNIT_TEST(reg_grants_flush_where_device_executes_it);
	CPPUNIT_TEST(reg_persistent_flush_only_on_pmem);
#endif
	CPPUNIT_TEST(dereg_rejects_null);
	CPPUNIT_TEST(dereg_of_null_is_noop);
	CPPUNIT_TEST(dereg_deregisters_and_clears);
	CPPUNIT_TEST(dereg_failure_still_clears);
	CPPUNIT_TEST(getters_reject_null_and_leave_output);
	CPPUNIT_TEST(getters_report_registration);
	CPPUNIT_TEST(descriptor_size_is_21);
	CPPUNIT_TEST(descriptor_matches_golden_bytes);
	CPPUNIT_TEST(descriptor_rejects_null_and_writes_nothing);
	CPPUNIT_TEST(remote_decodes_golden_bytes);
	CPPUNIT_TEST(remote_accepts_longer_descriptor);
	CPPUNIT_TEST(remote_rejects_bad_descriptor);
	CPPUNIT_TEST(remote_out_of_memory);
	CPPUNIT_TEST(remote_flush_type_masks_usage);
	CPPUNIT_TEST(remote_getters_reject_null);
	CPPUNIT_TEST(remote_delete_rules);
	CPPUNIT_TEST(local_to_remote_round_trip);
	CPPUNIT_TEST(advise_rejects_null_mr);
	CPPUNIT_TEST(advise_refuses_region_not_on_demand);
	CPPUNIT_TEST(advise_passes_one_sge);
	CPPUNIT_TEST(advise_maps_errors);
	CPPUNIT_TEST(advise_unsupported_by_device);
	CPPUNIT_TEST(advise_refuses_what_an_sge_cannot_hold);
	CPPUNIT_TEST(reg_out_of_memory);
	CPPUNIT_TEST_SUITE_END();

	rpma_mr_local *const sentinel = reinterpret_cast<rpma_mr_local *>(0x1234);
	rpma_mr_remote *const remote_sentinel = reinterpret_cast<rpma_mr_remote *>(0x1234);
	char buffer[256] = {};

	unsigned access_of(int usage)
	{
		register_mr(buffer, sizeof(buffer), usage);
		return fake::registrations().back().access;
	}

	rpma_mr_remote *decode(const void *desc, size_t size)
	{
		rpma_mr_remote *mr = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_remote_from_descriptor(desc, size, &mr));
		remote_mrs.push_back(mr);
		return mr;
	}

public:
	void reg_rejects_bad_arguments()
	{
		make_peer();
		rpma_mr_local *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_reg(nullptr, buffer, 8, 1, &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_reg(peer, nullptr, 8, 1, &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_reg(peer, buffer, 0, 1, &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_reg(peer, buffer, 8, 0, &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_reg(peer, buffer, 8, 0x100, &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_reg(peer, buffer, 8, -1, &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_reg(peer, buffer, 8, 1, nullptr));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT_EQUAL(0u, fake::count(fake::Call::ibv_reg_mr));
	}

	void reg_registers_range_on_peer_pd()
	{
		rpma_mr_local *mr = register_mr(buffer + 8, 100, RPMA_MR_USAGE_READ_SRC);
		CPPUNIT_ASSERT(mr);
		const fake::MrReg &reg = fake::registrations().back();
		CPPUNIT_ASSERT(reg.addr == buffer + 8);
		CPPUNIT_ASSERT_EQUAL(size_t{100}, reg.length);
		CPPUNIT_ASSERT(reg.pd && reg.pd->context == fake::context());
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::ibv_reg_mr));
	}

	void reg_maps_each_usage_to_access()
	{
		// docs/compatibility.md, "Access flags per usage", on an
		// InfiniBand/RoCE device without native flush
		const struct {
			int usage;
			unsigned access;
		} cases[] = {
			{RPMA_MR_USAGE_READ_SRC, IBV_ACCESS_REMOTE_READ},
			{RPMA_MR_USAGE_READ_DST, IBV_ACCESS_LOCAL_WRITE},
			{RPMA_MR_USAGE_WRITE_SRC, IBV_ACCESS_LOCAL_WRITE},
			{RPMA_MR_USAGE_WRITE_DST, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE},
			{RPMA_MR_USAGE_RECV, IBV_ACCESS_LOCAL_WRITE},
			{RPMA_MR_USAGE_SEND, 0},
			{RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, IBV_ACCESS_REMOTE_READ},
			{RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, IBV_ACCESS_REMOTE_READ},
		};
		for (const auto &c : cases)
			CPPUNIT_ASSERT_EQUAL_MESSAGE("usage " + std::to_string(c.usage), c.access,
						     access_of(c.usage));
	}

	void reg_adds_remote_write_for_iwarp_read_dst()
	{
		fake::set_transport(IBV_TRANSPORT_IWARP);
		CPPUNIT_ASSERT_EQUAL(unsigned{IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE},
				     access_of(RPMA_MR_USAGE_READ_DST));
	}

	void reg_combines_usages()
	{
		CPPUNIT_ASSERT_EQUAL(unsigned{IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE},
				     access_of(RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_RECV));
		CPPUNIT_ASSERT_EQUAL(unsigned{IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
					      IBV_ACCESS_LOCAL_WRITE},
				     access_of(ALL_USAGES));
	}

	void reg_failure_is_provider_error()
	{
		make_peer();
		fake::fail(fake::Call::ibv_reg_mr, EPERM);
		rpma_mr_local *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_mr_reg(peer, buffer, 8, 1, &out));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::ibv_reg_mr));
	}

	void reg_without_odp_does_not_retry()
	{
		make_peer();
		fake::fail(fake::Call::ibv_reg_mr, EOPNOTSUPP);
		rpma_mr_local *out = sentinel;
		errno = 0;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_mr_reg(peer, buffer, 8, 1, &out));
		CPPUNIT_ASSERT_EQUAL(EOPNOTSUPP, errno);
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::ibv_reg_mr));
	}

	void make_odp_peer()
	{
		ibv_device_attr_ex &attr = fake::device_attr();
		attr.odp_caps.general_caps = IBV_ODP_SUPPORT;
		attr.odp_caps.per_transport_caps.rc_odp_caps = IBV_ODP_SUPPORT_READ |
							       IBV_ODP_SUPPORT_WRITE;
		make_peer();
	}

	void reg_retries_with_odp_when_capable()
	{
		make_odp_peer();
		fake::fail(fake::Call::ibv_reg_mr, EOPNOTSUPP);
		register_mr(buffer, 8, RPMA_MR_USAGE_WRITE_DST);
		const auto &regs = fake::registrations();
		CPPUNIT_ASSERT_EQUAL(size_t{2}, regs.size());
		CPPUNIT_ASSERT_EQUAL(regs[0].access | IBV_ACCESS_ON_DEMAND, regs[1].access);
		CPPUNIT_ASSERT(!(regs[0].access & IBV_ACCESS_ON_DEMAND));
		CPPUNIT_ASSERT(regs[1].mr);
	}

	void reg_odp_retry_failure_is_provider_error()
	{
		make_odp_peer();
		fake::fail(fake::Call::ibv_reg_mr, EOPNOTSUPP);
		fake::fail(fake::Call::ibv_reg_mr, EFAULT, 2);
		rpma_mr_local *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_mr_reg(peer, buffer, 8, 1, &out));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT_EQUAL(2u, fake::count(fake::Call::ibv_reg_mr));
	}

	// rxe's ODP misplaces data within a page (docs/platforms.md, "rxe: ODP
	// loses the offset within a page"): a region registered on demand
	// there gets a warning naming the risk.
	void reg_odp_on_soft_roce_warns()
	{
		fake::device_attr().orig_attr.vendor_id = 0xffffff;
		make_odp_peer();
		fake::fail(fake::Call::ibv_reg_mr, EOPNOTSUPP);
		register_mr(buffer, 8, RPMA_MR_USAGE_WRITE_DST);
		CPPUNIT_ASSERT(LogCapture::contains(RPMA_LOG_LEVEL_WARNING, "Soft-RoCE"));
	}

	void reg_odp_elsewhere_does_not_warn()
	{
		fake::device_attr().orig_attr.vendor_id = 0x02c9;
		make_odp_peer();
		fake::fail(fake::Call::ibv_reg_mr, EOPNOTSUPP);
		register_mr(buffer, 8, RPMA_MR_USAGE_WRITE_DST);
		fake::device_attr().orig_attr.vendor_id = 0xffffff;
		register_mr(buffer, 8, RPMA_MR_USAGE_WRITE_DST); // not on demand
		CPPUNIT_ASSERT(!LogCapture::contains(RPMA_LOG_LEVEL_WARNING, "Soft-RoCE"));
	}

#if HAVE_DECL_IBV_WR_FLUSH
	// Emulating initiators read; native ones need the flush access.
	void reg_grants_flush_where_device_executes_it()
	{
		fake::device_attr().device_cap_flags_ex |= fake::DEVICE_CAP_FLUSH;
		make_peer();
		CPPUNIT_ASSERT_EQUAL(unsigned{IBV_ACCESS_REMOTE_READ | IBV_ACCESS_FLUSH_GLOBAL},
				     access_of(RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY));
		CPPUNIT_ASSERT_EQUAL(unsigned{IBV_ACCESS_REMOTE_READ | IBV_ACCESS_FLUSH_PERSISTENT},
				     access_of(RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT));
	}

	// The device refuses the persistent flush access on DRAM (EINVAL): the
	// region is registered without it.
	void reg_persistent_flush_only_on_pmem()
	{
		fake::device_attr().device_cap_flags_ex |= fake::DEVICE_CAP_FLUSH;
		make_peer();
		fake::fail(fake::Call::ibv_reg_mr, EINVAL);
		register_mr(buffer, 8,
			    RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
		const auto &regs = fake::registrations();
		CPPUNIT_ASSERT_EQUAL(size_t{2}, regs.size());
		CPPUNIT_ASSERT(regs[0].access & IBV_ACCESS_FLUSH_PERSISTENT);
		CPPUNIT_ASSERT_EQUAL(regs[0].access & ~unsigned{IBV_ACCESS_FLUSH_PERSISTENT},
				     regs[1].access);
		CPPUNIT_ASSERT(regs[1].mr);
	}
#endif

	void dereg_rejects_null()
	{
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_dereg(nullptr));
	}

	void dereg_of_null_is_noop()
	{
		rpma_mr_local *none = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_dereg(&none));
		CPPUNIT_ASSERT(fake::calls().empty());
	}

	void dereg_deregisters_and_clears()
	{
		rpma_mr_local *&mr = mrs.emplace_back(nullptr);
		make_peer();
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_reg(peer, buffer, 8, 1, &mr));
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_dereg(&mr));
		CPPUNIT_ASSERT(!mr);
		CPPUNIT_ASSERT_EQUAL(1u, fake::count(fake::Call::ibv_dereg_mr));
	}

	void dereg_failure_still_clears()
	{
		rpma_mr_local *&mr = mrs.emplace_back(nullptr);
		make_peer();
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_reg(peer, buffer, 8, 1, &mr));
		fake::fail(fake::Call::ibv_dereg_mr, EIO);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_PROVIDER, rpma_mr_dereg(&mr));
		CPPUNIT_ASSERT(!mr);
	}

	void getters_reject_null_and_leave_output()
	{
		rpma_mr_local *mr = register_mr(buffer, 8, 1);
		void *ptr = buffer + 1;
		size_t size = 3;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_get_ptr(nullptr, &ptr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_get_ptr(mr, nullptr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_get_size(nullptr, &size));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_get_size(mr, nullptr));
		CPPUNIT_ASSERT(ptr == buffer + 1);
		CPPUNIT_ASSERT_EQUAL(size_t{3}, size);
	}

	void getters_report_registration()
	{
		rpma_mr_local *mr = register_mr(buffer + 16, 200, RPMA_MR_USAGE_SEND);
		void *ptr = nullptr;
		size_t size = 0;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_get_ptr(mr, &ptr));
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_get_size(mr, &size));
		CPPUNIT_ASSERT(ptr == buffer + 16);
		CPPUNIT_ASSERT_EQUAL(size_t{200}, size);
	}

	void descriptor_size_is_21()
	{
		rpma_mr_local *mr = register_mr(buffer, 8, 1);
		size_t size = 0;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_get_descriptor_size(mr, &size));
		CPPUNIT_ASSERT_EQUAL(size_t{21}, size);
		size = 5;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_get_descriptor_size(nullptr, &size));
		CPPUNIT_ASSERT_EQUAL(size_t{5}, size);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_get_descriptor_size(mr, nullptr));
	}

	void descriptor_matches_golden_bytes()
	{
		make_peer();
		fake::next_mr_keys(0x77, 0x1a2b);
		rpma_mr_local *mr = register_mr(golden_addr, GOLDEN_SIZE, GOLDEN_USAGE);
		std::array<uint8_t, 21> desc;
		desc.fill(0xcc);
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_get_descriptor(mr, desc.data()));
		CPPUNIT_ASSERT(desc == golden);
		CPPUNIT_ASSERT(mr_descriptor(0x7f1234560000, GOLDEN_SIZE, 0x1a2b, GOLDEN_USAGE) ==
			       golden);
	}

	void descriptor_rejects_null_and_writes_nothing()
	{
		rpma_mr_local *mr = register_mr(buffer, 8, 1);
		std::array<uint8_t, 21> desc;
		desc.fill(0xcc);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_get_descriptor(nullptr, desc.data()));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_get_descriptor(mr, nullptr));
		for (uint8_t byte : desc)
			CPPUNIT_ASSERT_EQUAL(uint8_t{0xcc}, byte);
	}

	void remote_decodes_golden_bytes()
	{
		rpma_mr_remote *mr = decode(golden.data(), golden.size());
		size_t size = 0;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_remote_get_size(mr, &size));
		CPPUNIT_ASSERT_EQUAL(GOLDEN_SIZE, size);
		int flush_type = -1;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_remote_get_flush_type(mr, &flush_type));
		CPPUNIT_ASSERT_EQUAL(RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, flush_type);
	}

	void remote_accepts_longer_descriptor()
	{
		std::array<uint8_t, 32> longer{};
		std::memcpy(longer.data(), golden.data(), golden.size());
		std::memset(longer.data() + golden.size(), 0xff, longer.size() - golden.size());
		rpma_mr_remote *mr = decode(longer.data(), longer.size());
		size_t size = 0;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_remote_get_size(mr, &size));
		CPPUNIT_ASSERT_EQUAL(GOLDEN_SIZE, size);
	}

	void remote_rejects_bad_descriptor()
	{
		rpma_mr_remote *out = remote_sentinel;
		const auto no_usage = mr_descriptor(0x1000, 64, 5, 0);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_mr_remote_from_descriptor(nullptr, 21, &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_mr_remote_from_descriptor(golden.data(), 21, nullptr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_mr_remote_from_descriptor(golden.data(), 20, &out));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_mr_remote_from_descriptor(no_usage.data(), 21, &out));
		CPPUNIT_ASSERT(out == remote_sentinel);
	}

	void remote_out_of_memory()
	{
		rpma_mr_remote *out = remote_sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOMEM, out_of_memory([&] {
					     return rpma_mr_remote_from_descriptor(golden.data(),
										   golden.size(),
										   &out);
				     }));
		CPPUNIT_ASSERT(out == remote_sentinel);
	}

	void remote_flush_type_masks_usage()
	{
		const struct {
			int usage;
			int flush_type;
		} cases[] = {
			{RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
			 RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY},
			{0x30 | RPMA_MR_USAGE_SEND, 0x30},
			{0x0f, 0},
			{0xff, 0x30},
		};
		for (const auto &c : cases) {
			rpma_mr_remote *mr = remote_mr(0x1000, 64, 5, c.usage);
			int flush_type = -1;
			CPPUNIT_ASSERT_EQUAL(0, rpma_mr_remote_get_flush_type(mr, &flush_type));
			CPPUNIT_ASSERT_EQUAL(c.flush_type, flush_type);
		}
	}

	void remote_getters_reject_null()
	{
		rpma_mr_remote *mr = remote_mr(0x1000, 64, 5, 1);
		size_t size = 9;
		int flush_type = 9;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_remote_get_size(nullptr, &size));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_remote_get_size(mr, nullptr));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_mr_remote_get_flush_type(nullptr, &flush_type));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_remote_get_flush_type(mr, nullptr));
		CPPUNIT_ASSERT_EQUAL(size_t{9}, size);
		CPPUNIT_ASSERT_EQUAL(9, flush_type);
	}

	void remote_delete_rules()
	{
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_remote_delete(nullptr));
		rpma_mr_remote *none = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_remote_delete(&none));
		rpma_mr_remote *mr = nullptr;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_remote_from_descriptor(golden.data(), 21, &mr));
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_remote_delete(&mr));
		CPPUNIT_ASSERT(!mr);
	}

	void local_to_remote_round_trip()
	{
		rpma_mr_local *local = register_mr(buffer, 128, ALL_USAGES);
		std::array<uint8_t, 21> desc{};
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_get_descriptor(local, desc.data()));
		const fake::MrReg &reg = fake::registrations().back();
		CPPUNIT_ASSERT(desc == mr_descriptor(reinterpret_cast<uintptr_t>(buffer), 128,
						     reg.mr->rkey, ALL_USAGES));
		rpma_mr_remote *remote = decode(desc.data(), desc.size());
		size_t size = 0;
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_remote_get_size(remote, &size));
		CPPUNIT_ASSERT_EQUAL(size_t{128}, size);
	}

	void advise_rejects_null_mr()
	{
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_advise(nullptr, 0, 8, 0, 0));
	}

	// A region the device pages on demand, as FS DAX through the retry.
	rpma_mr_local *register_on_demand(void *ptr, size_t size)
	{
		if (!peer)
			make_odp_peer();
		fake::fail(fake::Call::ibv_reg_mr, EOPNOTSUPP);
		return register_mr(ptr, size, RPMA_MR_USAGE_WRITE_DST);
	}

	// Only an ODP region has pages to prefetch; rxe faults on any other
	// (docs/platforms.md, "rxe: advising a pinned region faults the
	// kernel"): the device is not asked.
	void advise_refuses_region_not_on_demand()
	{
		rpma_mr_local *mr = register_mr(buffer, sizeof(buffer), RPMA_MR_USAGE_WRITE_DST);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_mr_advise(mr, 0, 8, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
						    IBV_ADVISE_MR_FLAG_FLUSH));
		CPPUNIT_ASSERT(fake::advices().empty());
	}

	void advise_passes_one_sge()
	{
		rpma_mr_local *mr = register_on_demand(buffer, sizeof(buffer));
		CPPUNIT_ASSERT_EQUAL(0,
				     rpma_mr_advise(mr, 16, 64, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
						    IBV_ADVISE_MR_FLAG_FLUSH));
		CPPUNIT_ASSERT_EQUAL(size_t{1}, fake::advices().size());
		const fake::Advice &advice = fake::advices().back();
		const fake::MrReg &reg = registration_of(mr);
		CPPUNIT_ASSERT(advice.pd == reg.pd);
		CPPUNIT_ASSERT_EQUAL(int{IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE}, advice.advice);
		CPPUNIT_ASSERT_EQUAL(uint32_t{IBV_ADVISE_MR_FLAG_FLUSH}, advice.flags);
		CPPUNIT_ASSERT_EQUAL(size_t{1}, advice.sges.size());
		CPPUNIT_ASSERT_EQUAL(reinterpret_cast<uintptr_t>(buffer + 16), advice.sges[0].addr);
		CPPUNIT_ASSERT_EQUAL(uint32_t{64}, advice.sges[0].length);
		CPPUNIT_ASSERT_EQUAL(reg.mr->lkey, advice.sges[0].lkey);
	}

	void advise_unsupported_by_device()
	{
		rpma_mr_local *mr = register_on_demand(buffer, sizeof(buffer));
		fake::set_advise_mr_supported(false);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOSUPP, rpma_mr_advise(mr, 0, 8, 0, 0));
		CPPUNIT_ASSERT(fake::advices().empty());
	}

	// ibv_advise_mr takes one SGE: 4 GiB would advise 0 bytes and succeed.
	void advise_refuses_what_an_sge_cannot_hold()
	{
		const size_t four_gib = size_t{1} << 32;
		rpma_mr_local *big = register_on_demand(buffer, 2 * four_gib);
		rpma_mr_local *mr = register_on_demand(buffer, sizeof(buffer));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_advise(big, 0, four_gib, 0, 0));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_advise(mr, sizeof(buffer) - 4, 8, 0, 0));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, rpma_mr_advise(mr, SIZE_MAX - 3, 8, 0, 0));
		CPPUNIT_ASSERT(fake::advices().empty());
		CPPUNIT_ASSERT_EQUAL(0, rpma_mr_advise(mr, sizeof(buffer) - 8, 8, 0, 0));
	}

	void advise_maps_errors()
	{
		rpma_mr_local *mr = register_on_demand(buffer, sizeof(buffer));
		const struct {
			int err;
			int expected;
		} cases[] = {
			{EINVAL, RPMA_E_INVAL},      {EFAULT, RPMA_E_INVAL},
			{EOPNOTSUPP, RPMA_E_NOSUPP}, {ENOTSUP, RPMA_E_NOSUPP},
			{EIO, RPMA_E_PROVIDER},      {ENOMEM, RPMA_E_PROVIDER},
		};
		for (const auto &c : cases) {
			fake::fail(fake::Call::ibv_advise_mr, c.err);
			CPPUNIT_ASSERT_EQUAL(c.expected, rpma_mr_advise(mr, 0, 8, 0, 0));
		}
	}

	void reg_out_of_memory()
	{
		make_peer();
		char buffer[64];
		rpma_mr_local *out = sentinel;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_NOMEM, out_of_memory([&] {
					     return rpma_mr_reg(peer, buffer, sizeof(buffer),
								RPMA_MR_USAGE_READ_SRC, &out);
				     }));
		CPPUNIT_ASSERT(out == sentinel);
		CPPUNIT_ASSERT_EQUAL(std::string("1 ibv_pd"), fake::live_objects());
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(MrTest);

} // namespace unit
