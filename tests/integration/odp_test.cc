// SPDX-License-Identifier: BSD-3-Clause
// On-Demand Paging over real verbs: what a device with ODP (rxe from
// kernel 6.15) makes possible, above all registering FS DAX memory (a file
// on ext4 -o dax), and rpma_mr_advise prefetching such a region. Each case
// skips, saying why, where the device reports no ODP for RC, no FS DAX
// mount is set aside for tests, or the provider has no ibv_advise_mr. The
// cases that move data through an ODP region skip, naming the defect, where
// the ODP probe (odp_probe.hh) finds the kernel misplacing data within a
// page (docs/platforms.md, "rxe: ODP loses the offset within a page");
// they run, and can fail, wherever it does not.

#include <algorithm>
#include <cstring>
#include <sys/resource.h>
#include <unistd.h>

#include "check.hh"
#include "env.hh"
#include "odp_probe.hh"
#include "pair.hh"
#include "pattern.hh"
#include "platform.hh"
#include "wait.hh"

using namespace it;

namespace {

void need_odp()
{
	if (!platform().rc_odp)
		skip("the device reports no On-Demand Paging for RC (kernel " + platform().kernel +
		     (platform().iwarp ? "; iWARP: siw has none)" : "; rxe has it from 6.15)"));
}

// the probe, once per run of the suite
const OdpProbe &odp_probe()
{
	static const OdpProbe probe = probe_odp_offsets(platform().context, test_ip());
	return probe;
}

// A data case over ODP cannot pass where the kernel misplaces every access:
// it skips, naming the defect. A probe that could not tell lets it run.
void need_odp_offsets_kept()
{
	if (odp_probe().verdict == OdpProbe::LOST)
		skip(odp_offset_defect(odp_probe()));
}

// Whether the provider and the kernel prefetch an ODP region, asked of
// rdma-core directly on a region of our own (EOPNOTSUPP: they do not).
int raw_advise_errno()
{
	ibv_pd *pd = ibv_alloc_pd(platform().context);
	CPPUNIT_ASSERT_MESSAGE("ibv_alloc_pd", pd != nullptr);
	std::vector<unsigned char> buf(1 << 16);
	ibv_mr *mr = ibv_reg_mr(pd, buf.data(), buf.size(),
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	int err = mr ? 0 : errno;
	if (mr) {
		ibv_sge sge = {(uintptr_t)buf.data(), (uint32_t)buf.size(), mr->lkey};
		err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
		ibv_dereg_mr(mr);
	}
	ibv_dealloc_pd(pd);
	CPPUNIT_ASSERT_EQUAL_MESSAGE("an ODP registration of DRAM", 0, mr ? 0 : err);
	return err;
}

// the calling thread's minor page faults while writing one byte per page
long faults_touching(unsigned char *mem, size_t size)
{
	rusage before{}, after{};
	getrusage(RUSAGE_THREAD, &before);
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	for (size_t off = 0; off < size; off += page)
		((volatile unsigned char *)mem)[off] = 1;
	getrusage(RUSAGE_THREAD, &after);
	return after.ru_minflt - before.ru_minflt;
}

// LEN where a and b agree throughout
size_t first_difference(const unsigned char *a, const unsigned char *b, size_t len)
{
	return (size_t)(std::mismatch(a, a + len, b).first - a);
}

} // namespace

class OdpTest : public CppUnit::TestFixture {
	CPPUNIT_TEST_SUITE(OdpTest);
	CPPUNIT_TEST(odp_capable);
	CPPUNIT_TEST(dram_odp_region_keeps_page_offsets);
	CPPUNIT_TEST(fsdax_region_carries_reads_and_writes);
	CPPUNIT_TEST(mr_advise_prefetches_fsdax);
	CPPUNIT_TEST_SUITE_END();

public:
	void odp_capable()
	{
		need_odp();
		int is_odp = 0;
		RPMA_OK(rpma_utils_ibv_context_is_odp_capable(platform().context, &is_odp));
		CPPUNIT_ASSERT_EQUAL(1, is_odp);
	}

	// The probe itself, on DRAM registered with ODP through rdma-core:
	// passes only where both its accesses landed where asked.
	void dram_odp_region_keeps_page_offsets()
	{
		need_odp();
		const OdpProbe &probe = odp_probe();
		need_odp_offsets_kept();
		CPPUNIT_ASSERT_MESSAGE("the ODP probe: " + probe.detail,
				       probe.verdict == OdpProbe::KEPT);
	}

	void fsdax_region_carries_reads_and_writes()
	{
		need_odp();
		need_odp_offsets_kept();
		// many packets, the first starting inside a page
		constexpr size_t SIZE = 1 << 20, LEN = 64 << 10, AT = 4096 + 64;
		PmemMapping pmem = PmemMapping::fsdax_file(SIZE);
		Pair pair = connect_pair();
		// the ODP path: a plain registration of FS DAX fails
		MrLocal mr = reg(pair.server_peer.get(), pmem.data(), SIZE,
				 RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC);
		MrRemote remote = remote_of(mr.get());
		std::vector<unsigned char> out = pattern(LEN, 7), in(LEN, 0);
		MrLocal src = reg(pair.client_peer.get(), out.data(), LEN, RPMA_MR_USAGE_WRITE_SRC);
		MrLocal dst = reg(pair.client_peer.get(), in.data(), LEN, RPMA_MR_USAGE_READ_DST);
		rpma_conn *client = pair.client.get();
		RPMA_OK(rpma_write(client, remote.get(), AT, src.get(), 0, LEN,
				   RPMA_F_COMPLETION_ALWAYS, nullptr));
		expect_wc(cq_of(client), IBV_WC_RDMA_WRITE);
		CPPUNIT_ASSERT_EQUAL_MESSAGE("the write's first wrong byte", LEN,
					     first_difference(pmem.data() + AT, out.data(), LEN));
		// read back what another writer put there meanwhile
		std::vector<unsigned char> later = pattern(LEN, 8);
		std::memcpy(pmem.data() + AT, later.data(), LEN);
		RPMA_OK(rpma_read(client, dst.get(), 0, remote.get(), AT, LEN,
				  RPMA_F_COMPLETION_ALWAYS, nullptr));
		expect_wc(cq_of(client), IBV_WC_RDMA_READ);
		CPPUNIT_ASSERT_EQUAL_MESSAGE("the read's first wrong byte", LEN,
					     first_difference(in.data(), later.data(), LEN));
		close_pair(pair);
	}

	// The prefetch maps the pages: touching them afterwards takes fewer
	// page faults than touching pages of a region nobody advised.
	void mr_advise_prefetches_fsdax()
	{
		need_odp();
		constexpr size_t HALF = 2 << 20;
		PmemMapping pmem = PmemMapping::fsdax_file(2 * HALF);
		int err = raw_advise_errno();
		if (err == EOPNOTSUPP || err == ENOTSUP || err == ENOSYS)
			skip("the verbs provider or the kernel cannot prefetch "
			     "(ibv_advise_mr: " +
			     std::string(strerror(err)) +
			     "; rxe has it from kernel 6.17 with a provider "
			     "that implements it)");
		CPPUNIT_ASSERT_EQUAL_MESSAGE("ibv_advise_mr", 0, err);
		Peer peer = new_peer(RPMA_UTIL_IBV_CONTEXT_LOCAL);
		MrLocal advised = reg(peer.get(), pmem.data(), HALF,
				      RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC);
		MrLocal plain = reg(peer.get(), pmem.data() + HALF, HALF,
				    RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC);
		RPMA_OK(rpma_mr_advise(advised.get(), 0, HALF, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				       IBV_ADVISE_MR_FLAG_FLUSH));
		long plain_faults = faults_touching(pmem.data() + HALF, HALF);
		long advised_faults = faults_touching(pmem.data(), HALF);
		CPPUNIT_ASSERT_MESSAGE("faults after the prefetch: " +
					       std::to_string(advised_faults) +
					       ", without: " + std::to_string(plain_faults),
				       advised_faults < plain_faults);
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(OdpTest);
