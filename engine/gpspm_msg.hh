// SPDX-License-Identifier: BSD-3-Clause
// gpspm_msg.hh -- the GPSPM flush request and response (gpspm_flush.proto).
#ifndef RPMA_ENGINE_GPSPM_MSG_HH
#define RPMA_ENGINE_GPSPM_MSG_HH

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

namespace rpma_fio {

constexpr size_t FLUSH_REQUEST_SIZE = 27;
constexpr size_t FLUSH_RESPONSE_SIZE = 9;
// Room for one message: what the old engines posted their receives with.
constexpr size_t MSG_ROOM = 512;

// The server's message memory for `slots` requests outstanding: slot k has
// a receive of MSG_ROOM bytes (any request an old client may send fits)
// and a send for its answer; the answer to the request in receive k goes
// out of send k. An answer is FLUSH_RESPONSE_SIZE bytes, so the sends
// follow all the receives in rooms of their own size (8-byte aligned):
// registered memory is resident, so a send takes 16 bytes, not 512.
class ServerMsgLayout {
public:
	static constexpr size_t SEND_ROOM = (FLUSH_RESPONSE_SIZE + 7) / 8 * 8;

	explicit ServerMsgLayout(size_t slots) : slots_(slots) {}

	size_t recv_off(size_t k) const { return k * MSG_ROOM; }
	size_t send_off(size_t k) const { return slots_ * MSG_ROOM + k * SEND_ROOM; }
	size_t send_room() const { return SEND_ROOM; }
	size_t bytes() const { return slots_ * (MSG_ROOM + SEND_ROOM); }

private:
	size_t slots_;
};

// Whether a successful completion of a message receive holds a message: a
// send (IBV_WC_RECV) that fit its MSG_ROOM buffer. A peer that holds the key
// of a writable region takes a receive just as well with an RDMA write with
// immediate data, which completes with the write's length: the receive
// buffer then holds only what earlier messages left there.
inline bool holds_message(const ibv_wc &wc)
{
	return wc.opcode == IBV_WC_RECV && wc.byte_len <= MSG_ROOM;
}

// For the peer's name in a message: what it did instead (!holds_message).
std::string why_no_message(const ibv_wc &wc);

// The memory a client sends its messages from: zeroed and page-aligned, so
// that no room of MSG_ROOM bytes (a divisor of the page size) crosses a
// page boundary. siw (Soft-iWARP) sends a message of up to 32 bytes that
// crosses one with wrong bytes when its transmit thread sends it (the send
// queue was busy when it was posted): docs/platforms.md, "What differs on
// iWARP".
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

struct FlushRequest {
	uint64_t offset, length, op_context;

	bool ends_run() const { return offset == 0 && length == 0; }
};

// Each returns the packed size, or 0 if room is too small.
size_t pack_request(const FlushRequest &req, void *buf, size_t room);
size_t pack_response(uint64_t op_context, void *buf, size_t room);

// nullopt for bytes that are not such a message
std::optional<FlushRequest> unpack_request(const void *buf, size_t len);
std::optional<uint64_t> unpack_response(const void *buf, size_t len);

}

#endif
