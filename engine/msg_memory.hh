// SPDX-License-Identifier: BSD-3-Clause
// msg_memory.hh -- the memory a client sends its messages from.
#ifndef RPMA_ENGINE_MSG_MEMORY_HH
#define RPMA_ENGINE_MSG_MEMORY_HH

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace rpma_fio {

// Zeroed and page-aligned, so that no room of a ClientMsgLayout
// (wire_format.hh: rooms of MSG_ROOM and of 32 bytes, divisors of the page
// size) crosses a page boundary. siw (Soft-iWARP) sends a message of up to
// 32 bytes that crosses one with wrong bytes when its transmit thread
// sends it (the send queue was busy when it was posted): docs/platforms.md,
// "What differs on iWARP".
class MsgMemory {
public:
	// false if the memory cannot be had
	bool allocate(size_t bytes);
	char *data() const { return mem_.get(); }
	size_t size() const { return size_; }
	char &operator[](size_t off) { return mem_[off]; }

private:
	struct Free {
		void operator()(char *p) const { std::free(p); }
	};
	std::unique_ptr<char[], Free> mem_;
	size_t size_ = 0;
};

}

#endif
