// SPDX-License-Identifier: BSD-3-Clause

#include "odp_probe.hh"

#include <arpa/inet.h>
#include <chrono>
#include <cstring>
#include <memory>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace it {

namespace {

// where in a page the probe writes and reads, and how much
constexpr size_t WRITE_AT = 256, READ_AT = 512, LEN = 64;

struct ProbeFailed {
	std::string what;
};

[[noreturn]] void fail(const std::string &what, int err = 0)
{
	throw ProbeFailed{err ? what + ": " + strerror(err) : what};
}

template <typename T, int (*Destroy)(T *)> struct Deleter {
	void operator()(T *p) const { Destroy(p); }
};
using Pd = std::unique_ptr<ibv_pd, Deleter<ibv_pd, ibv_dealloc_pd>>;
using Cq = std::unique_ptr<ibv_cq, Deleter<ibv_cq, ibv_destroy_cq>>;
using Qp = std::unique_ptr<ibv_qp, Deleter<ibv_qp, ibv_destroy_qp>>;
using Mr = std::unique_ptr<ibv_mr, Deleter<ibv_mr, ibv_dereg_mr>>;

class Anonymous {
public:
	explicit Anonymous(size_t size) : size_(size)
	{
		addr_ = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			     0);
		if (addr_ == MAP_FAILED)
			fail("mmap", errno);
	}
	~Anonymous() { munmap(addr_, size_); }
	Anonymous(const Anonymous &) = delete;
	Anonymous &operator=(const Anonymous &) = delete;
	unsigned char *data() const { return static_cast<unsigned char *>(addr_); }

private:
	void *addr_;
	size_t size_;
};

// how the two queue pairs reach port 1: a RoCE GID (the one of `ip`) or,
// on InfiniBand, the port's LID
struct Address {
	ibv_port_attr port{};
	bool global = false;
	int gid_index = 0;
	ibv_gid gid{};
};

Address address_of(ibv_context *context, const char *ip)
{
	Address a;
	if (ibv_query_port(context, 1, &a.port))
		fail("ibv_query_port", errno);
	if (a.port.state != IBV_PORT_ACTIVE)
		fail("port 1 is not active");
	if (a.port.link_layer != IBV_LINK_LAYER_ETHERNET)
		return a;
	in_addr v4{};
	if (inet_pton(AF_INET, ip, &v4) != 1)
		fail(std::string("not an IPv4 address: ") + ip);
	ibv_gid mapped{};
	mapped.raw[10] = mapped.raw[11] = 0xff;
	std::memcpy(&mapped.raw[12], &v4, sizeof(v4));
	a.global = true;
	a.gid_index = -1;
	for (int i = 0; i < a.port.gid_tbl_len; i++) {
		ibv_gid_entry e{};
		if (ibv_query_gid_ex(context, 1, (uint32_t)i, &e, 0) ||
		    std::memcmp(e.gid.raw, mapped.raw, sizeof(mapped.raw)))
			continue;
		if (a.gid_index < 0 || e.gid_type == IBV_GID_TYPE_ROCE_V2)
			a.gid_index = i;
	}
	if (a.gid_index < 0)
		fail(std::string("no GID of ") + ip + " on port 1");
	a.gid = mapped;
	return a;
}

Qp new_qp(ibv_pd *pd, ibv_cq *cq)
{
	ibv_qp_init_attr init{};
	init.send_cq = init.recv_cq = cq;
	init.cap.max_send_wr = init.cap.max_recv_wr = 2;
	init.cap.max_send_sge = init.cap.max_recv_sge = 1;
	init.qp_type = IBV_QPT_RC;
	Qp qp(ibv_create_qp(pd, &init));
	if (!qp)
		fail("ibv_create_qp", errno);
	return qp;
}

void connect(ibv_qp *qp, uint32_t remote_qpn, const Address &a)
{
	ibv_qp_attr attr{};
	attr.qp_state = IBV_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ;
	int ret = ibv_modify_qp(qp, &attr,
				IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					IBV_QP_ACCESS_FLAGS);
	if (ret)
		fail("ibv_modify_qp(INIT)", ret);

	attr = {};
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = a.port.active_mtu;
	attr.dest_qp_num = remote_qpn;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.port_num = 1;
	attr.ah_attr.dlid = a.port.lid;
	attr.ah_attr.is_global = a.global;
	attr.ah_attr.grh.dgid = a.gid;
	attr.ah_attr.grh.sgid_index = (uint8_t)a.gid_index;
	attr.ah_attr.grh.hop_limit = 1;
	ret = ibv_modify_qp(qp, &attr,
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
	if (ret)
		fail("ibv_modify_qp(RTR)", ret);

	attr = {};
	attr.qp_state = IBV_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 1;
	ret = ibv_modify_qp(qp, &attr,
			    IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		fail("ibv_modify_qp(RTS)", ret);
}

// posts one signaled RDMA operation of LEN bytes and waits for it
void transfer(ibv_qp *qp, ibv_cq *cq, ibv_wr_opcode opcode, const ibv_mr *local, uint64_t remote,
	      uint32_t rkey)
{
	ibv_sge sge{(uintptr_t)local->addr, (uint32_t)LEN, local->lkey};
	ibv_send_wr wr{}, *bad = nullptr;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = opcode;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = remote;
	wr.wr.rdma.rkey = rkey;
	int ret = ibv_post_send(qp, &wr, &bad);
	if (ret)
		fail("ibv_post_send", ret);
	// generous: an emulated CPU under load, and the first access faults
	const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
	ibv_wc wc{};
	while ((ret = ibv_poll_cq(cq, 1, &wc)) == 0) {
		if (std::chrono::steady_clock::now() > deadline)
			fail("no completion within 30 s");
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	if (ret < 0)
		fail("ibv_poll_cq", -ret);
	if (wc.status != IBV_WC_SUCCESS)
		fail(std::string("completion: ") + ibv_wc_status_str(wc.status));
}

void fill(unsigned char *p, unsigned char seed)
{
	for (size_t i = 0; i < LEN; i++)
		p[i] = (unsigned char)(seed + 7 * i) | 1;
}

enum Placement { WHERE_ASKED, PAGE_START, ELSEWHERE };

const char *describe(Placement p)
{
	return p == WHERE_ASKED  ? "where asked"
	       : p == PAGE_START ? "at the start of the page"
				 : "nowhere expected";
}

OdpProbe run(ibv_context *context, const char *ip)
{
	ibv_device_attr_ex dev{};
	int ret = ibv_query_device_ex(context, nullptr, &dev);
	if (ret)
		fail("ibv_query_device_ex", ret);
	const uint32_t rc = dev.odp_caps.per_transport_caps.rc_odp_caps;
	if (!(dev.odp_caps.general_caps & IBV_ODP_SUPPORT) || !(rc & IBV_ODP_SUPPORT_WRITE) ||
	    !(rc & IBV_ODP_SUPPORT_READ))
		return {OdpProbe::NO_ODP, "the device reports no ODP for RC reads and writes"};

	const Address address = address_of(context, ip);
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	Pd pd(ibv_alloc_pd(context));
	if (!pd)
		fail("ibv_alloc_pd", errno);
	Cq cq(ibv_create_cq(context, 4, nullptr, nullptr, 0));
	if (!cq)
		fail("ibv_create_cq", errno);
	Qp requester = new_qp(pd.get(), cq.get()), responder = new_qp(pd.get(), cq.get());
	connect(requester.get(), responder->qp_num, address);
	connect(responder.get(), requester->qp_num, address);

	// the region: two pages of anonymous DRAM, paged on demand
	Anonymous region(2 * page);
	Mr odp(ibv_reg_mr(pd.get(), region.data(), 2 * page,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ON_DEMAND));
	if (!odp)
		fail("ibv_reg_mr(IBV_ACCESS_ON_DEMAND) of anonymous DRAM", errno);
	// the initiator's side: registered plainly
	std::vector<unsigned char> local(LEN);
	Mr plain(ibv_reg_mr(pd.get(), local.data(), LEN, IBV_ACCESS_LOCAL_WRITE));
	if (!plain)
		fail("ibv_reg_mr", errno);
	const uint64_t base = (uintptr_t)region.data();

	// page 0: a write into the middle of an empty page
	fill(local.data(), 0x10);
	transfer(requester.get(), cq.get(), IBV_WR_RDMA_WRITE, plain.get(), base + WRITE_AT,
		 odp->rkey);
	const unsigned char *p0 = region.data();
	const Placement write = !std::memcmp(p0 + WRITE_AT, local.data(), LEN) ? WHERE_ASKED
				: !std::memcmp(p0, local.data(), LEN)          ? PAGE_START
									       : ELSEWHERE;

	// page 1: a read from its middle, the page's start holding other bytes
	unsigned char *p1 = region.data() + page;
	fill(p1, 0x40);
	fill(p1 + READ_AT, 0x80);
	std::fill(local.begin(), local.end(), 0);
	transfer(requester.get(), cq.get(), IBV_WR_RDMA_READ, plain.get(), base + page + READ_AT,
		 odp->rkey);
	const Placement read = !std::memcmp(local.data(), p1 + READ_AT, LEN) ? WHERE_ASKED
			       : !std::memcmp(local.data(), p1, LEN)         ? PAGE_START
									     : ELSEWHERE;

	const std::string detail = "an RDMA write of " + std::to_string(LEN) + " bytes to offset " +
				   std::to_string(WRITE_AT) + " of a page landed " +
				   describe(write) + ", a read from offset " +
				   std::to_string(READ_AT) + " returned the bytes " +
				   describe(read);
	if (write == WHERE_ASKED && read == WHERE_ASKED)
		return {OdpProbe::KEPT, detail};
	if (write == ELSEWHERE || read == ELSEWHERE)
		return {OdpProbe::BROKEN, detail};
	return {OdpProbe::LOST, detail};
}

} // namespace

OdpProbe probe_odp_offsets(ibv_context *context, const char *ip)
{
	try {
		return run(context, ip);
	} catch (const ProbeFailed &e) {
		return {OdpProbe::BROKEN, e.what};
	}
}

std::string odp_offset_defect(const OdpProbe &probe)
{
	utsname u{};
	const std::string kernel = uname(&u) == 0 ? u.release : "?";
	return "kernel " + kernel +
	       " loses the offset within a page of every "
	       "RDMA access to an On-Demand Paging region (rxe: "
	       "__rxe_odp_mr_copy() in rxe_odp.c), so data would land misplaced; "
	       "the ODP probe on DRAM: " +
	       probe.detail;
}

} // namespace it
