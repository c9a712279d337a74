// SPDX-License-Identifier: BSD-3-Clause
// What the platform under test offers, found out without librpma (the
// kernel's release, the device's own answer to ibv_query_device_ex, the
// rdma-core this build was configured with), so that a feature test skips
// where the feature is missing and fails where it is there but broken.

#ifndef RPMA_TESTS_INTEGRATION_PLATFORM_HH
#define RPMA_TESTS_INTEGRATION_PLATFORM_HH

#include <cstdint>
#include <string>

#include <infiniband/verbs.h>

namespace it {

inline const std::string SKIP_PREFIX = "SKIP: ";

// ends the running test as skipped, with the reason the runner prints
[[noreturn]] void skip(const std::string &reason);

struct Platform {
	std::string kernel;             // uname -r
	ibv_context *context = nullptr; // the device serving test_ip()
	uint64_t cap_flags_ex = 0;      // IB_UVERBS_DEVICE_* bits
	bool rc_odp = false;            // ODP for RC reads and writes
	bool iwarp = false;             // the device's transport is iWARP
};

const Platform &platform();

// the native verbs: in the device and in the rdma-core this was built with
bool has_native_atomic_write();
bool has_native_flush();

// RPMA_TEST_DEVDAX / RPMA_TEST_FSDAX, or "" (the VM's --nvdimm sets them)
std::string devdax_path();
std::string fsdax_dir();

// A shared mapping of persistent memory set aside for tests, unmapped (and
// its file removed) on destruction.
class PmemMapping {
public:
	// `size` bytes of the Device DAX, or of a new file in the FS DAX
	// directory, which is allocated in full first
	static PmemMapping devdax(size_t size);
	static PmemMapping fsdax_file(size_t size);
	PmemMapping(PmemMapping &&other) noexcept;
	PmemMapping &operator=(PmemMapping &&) = delete;
	~PmemMapping();

	unsigned char *data() const { return static_cast<unsigned char *>(addr_); }
	size_t size() const { return size_; }

private:
	PmemMapping(void *addr, size_t size, std::string file)
		: addr_(addr), size_(size), file_(std::move(file))
	{
	}
	void *addr_;
	size_t size_;
	std::string file_; // removed on destruction if not empty
};

} // namespace it

#endif
