// SPDX-License-Identifier: BSD-3-Clause

#include "platform.hh"

#include <cstdlib>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cppunit/Exception.h>
#include <cppunit/Message.h>

#include "check.hh"
#include "config.h"
#include "env.hh"

namespace it {

namespace {

// IB_UVERBS_DEVICE_* (rdma/ib_user_verbs.h); no IBV_DEVICE_* alias exists
constexpr uint64_t DEVICE_FLUSH_GLOBAL = 1ULL << 38;
constexpr uint64_t DEVICE_FLUSH_PERSISTENT = 1ULL << 39;
constexpr uint64_t DEVICE_ATOMIC_WRITE = 1ULL << 40;

Platform probe()
{
	Platform p;
	utsname u{};
	if (uname(&u) == 0)
		p.kernel = u.release;
	RPMA_OK(rpma_utils_get_ibv_context(test_ip(), RPMA_UTIL_IBV_CONTEXT_LOCAL, &p.context));
	ibv_device_attr_ex attr{};
	int ret = ibv_query_device_ex(p.context, nullptr, &attr);
	CPPUNIT_ASSERT_EQUAL_MESSAGE("ibv_query_device_ex", 0, ret);
	p.cap_flags_ex = attr.device_cap_flags_ex;
	p.iwarp = p.context->device->transport_type == IBV_TRANSPORT_IWARP;
	const uint32_t rc = attr.odp_caps.per_transport_caps.rc_odp_caps;
	p.rc_odp = (attr.odp_caps.general_caps & IBV_ODP_SUPPORT) && (rc & IBV_ODP_SUPPORT_READ) &&
		   (rc & IBV_ODP_SUPPORT_WRITE);
	return p;
}

} // namespace

void skip(const std::string &reason)
{
	// the reason alone as the message: CppUnit appends its details
	throw CppUnit::Exception(CppUnit::Message(SKIP_PREFIX + reason));
}

const Platform &platform()
{
	static const Platform p = probe();
	return p;
}

bool has_native_atomic_write()
{
#if HAVE_DECL_IBV_WR_ATOMIC_WRITE
	return platform().cap_flags_ex & DEVICE_ATOMIC_WRITE;
#else
	return false;
#endif
}

bool has_native_flush()
{
#if HAVE_DECL_IBV_WR_FLUSH
	constexpr uint64_t both = DEVICE_FLUSH_GLOBAL | DEVICE_FLUSH_PERSISTENT;
	return (platform().cap_flags_ex & both) == both;
#else
	return false;
#endif
}

std::string devdax_path()
{
	const char *p = std::getenv("RPMA_TEST_DEVDAX");
	return p ? p : "";
}

std::string fsdax_dir()
{
	const char *p = std::getenv("RPMA_TEST_FSDAX");
	return p ? p : "";
}

PmemMapping PmemMapping::devdax(size_t size)
{
	const std::string path = devdax_path();
	if (path.empty())
		skip("no Device DAX (RPMA_TEST_DEVDAX; the VM's --nvdimm)");
	int fd = open(path.c_str(), O_RDWR);
	CPPUNIT_ASSERT_MESSAGE("open " + path, fd >= 0);
	void *addr = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	CPPUNIT_ASSERT_MESSAGE("mmap " + path, addr != MAP_FAILED);
	return PmemMapping(addr, size, "");
}

PmemMapping PmemMapping::fsdax_file(size_t size)
{
	const std::string dir = fsdax_dir();
	if (dir.empty())
		skip("no FS DAX mount (RPMA_TEST_FSDAX; the VM's --nvdimm)");
	std::string path = dir + "/rpma-it.XXXXXX";
	int fd = mkstemp(path.data());
	CPPUNIT_ASSERT_MESSAGE("mkstemp in " + dir, fd >= 0);
	// allocated up front: a DAX fault on a hole would allocate blocks
	int ret = posix_fallocate(fd, 0, (off_t)size);
	void *addr = ret == 0 ? mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
			      : MAP_FAILED;
	close(fd);
	if (addr == MAP_FAILED)
		unlink(path.c_str());
	CPPUNIT_ASSERT_EQUAL_MESSAGE("posix_fallocate " + path, 0, ret);
	CPPUNIT_ASSERT_MESSAGE("mmap " + path, addr != MAP_FAILED);
	return PmemMapping(addr, size, path);
}

PmemMapping::PmemMapping(PmemMapping &&other) noexcept
	: addr_(other.addr_), size_(other.size_), file_(std::move(other.file_))
{
	other.addr_ = nullptr;
	other.file_.clear();
}

PmemMapping::~PmemMapping()
{
	if (addr_)
		munmap(addr_, size_);
	if (!file_.empty())
		unlink(file_.c_str());
}

} // namespace it
