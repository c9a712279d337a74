// SPDX-License-Identifier: BSD-3-Clause
// wire_format.hh -- every byte the fio engines send each other, and the
// rules for changing them. Each layout below is written out byte by byte
// in engine/tests/wire_format_test.cc, so that changing one fails a test
// (docs/compatibility.md, "The fio engines' workspace", says the same for
// users). The memory-region descriptor inside the workspaces is librpma's
// (docs/compatibility.md, "Memory-region descriptor").
//
// Who talks to whom: our APM and GPSPM engines work with the engines fio
// shipped up to 3.37 ("the old engines") in all four pairings
// (engine/tests/interop.sh); librpma_aof_* talk only to each other. So:
//
// - what the old engines send or read may never change: the workspace,
//   the GPSPM messages, the all-zero end-of-run request. New behaviour goes
//   only to a peer that asked for it, through a connection request the old
//   engines never send (the old servers do not read one; the old clients
//   send none).
// - a layout of our own (the connection requests, the append-only log's
//   workspace) carries a magic and a version byte: a reader refuses (or,
//   for the end-of-run promise, ignores) a version it does not know, so a
//   change of meaning needs a new version, and the side that brings it
//   answers the old version too. Within a version, unknown flag bits and
//   bytes past the known end are ignored: a flag or a trailing field may
//   be added without a new version if an old peer may ignore it.
// - private data has room for 56 bytes in a connection request and 196 in
//   an accept on InfiniBand and RoCE (the smallest transports), and
//   arrives zero-padded to those sizes: a reader never takes the length it
//   gets for the length that was sent.
#ifndef RPMA_ENGINE_WIRE_FORMAT_HH
#define RPMA_ENGINE_WIRE_FORMAT_HH

#include <endian.h>
#include <infiniband/verbs.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace rpma_fio {

// What RDMA CM carries on InfiniBand and RoCE: a request's private data
// and an accept's. Every layout below fits the smaller.
constexpr size_t CONN_REQUEST_ROOM = 56;
constexpr size_t ACCEPT_ROOM = 196;

// ---------------------------------------------------------------------
// The workspace: what a server tells its client in the accept.
//
// The APM and GPSPM servers', 28 bytes, the old engines' layout. An old
// client reads the 28 bytes without looking at the length it got: a
// server always sends them all, and may send nothing else.
//
//   0  u16 LE  max_msg_num: GPSPM: the receives the server posted for
//              flush requests (its iodepth; a client with more requests
//              outstanding refuses it). APM: 0, or 1 when the server
//              posted the receive of the end-of-run notice its client
//              promised (below); the old APM clients ignore it.
//   2  u8      direct_write_to_pmem: 0 or 1
//   3  u8      size of the memory region descriptor (21)
//   4  24 B    the descriptor, zero padded
//
// The append-only-log server's (librpma_aof_server), 40 bytes, version 1.
// Its byte 3 is 0 where the old layout has the descriptor's size, so that
// an APM or GPSPM client, ours or an old one, finds no descriptor and
// refuses it: it must stay 0 in every version.
//
//   0  4 B     "AOF\0"
//   4  u8      layout version (1)
//   5  u8      aof_mode: 1 apm, 2 gpspm
//   6  u8      direct_write_to_pmem
//   7  u8      size of the memory region descriptor
//   8  u16 LE  max_msg_num: receives posted by the server
//  10  u16     0
//  12  u32 LE  log offset: where the records start in the region (the
//              client takes it from here, so it may move without a new
//              version; the tail pointer may not: "The append-only log")
//  16  24 B    the descriptor, zero padded
constexpr size_t WORKSPACE_SIZE = 28;
constexpr size_t AOF_WORKSPACE_SIZE = 40;
constexpr size_t WORKSPACE_DESC_MAX = 24;
static_assert(AOF_WORKSPACE_SIZE <= ACCEPT_ROOM);

// The append-only log's method (aof_mode=), the same on both ends of a
// librpma_aof_* connection; NONE: an APM or GPSPM connection.
enum class AofMode : uint8_t { NONE = 0, APM = 1, GPSPM = 2 };

// "apm", "gpspm", or "none"
const char *aof_mode_name(AofMode mode);

struct Workspace {
	uint16_t max_msg_num = 0;
	bool direct_write_to_pmem = false;
	std::span<const uint8_t> descriptor; // points into the decoded bytes
	AofMode aof = AofMode::NONE;
	uint32_t log_offset = 0;
};

// nullopt if desc is longer than the 24 bytes the layout has room for
std::optional<std::array<uint8_t, WORKSPACE_SIZE>> encode_workspace(uint16_t max_msg_num, bool dwtp,
								    std::span<const uint8_t> desc);
// The append-only-log server's (mode APM or GPSPM); nullopt as above.
std::optional<std::array<uint8_t, AOF_WORKSPACE_SIZE>>
encode_aof_workspace(AofMode mode, uint16_t max_msg_num, bool dwtp, uint32_t log_offset,
		     std::span<const uint8_t> desc);

// Either layout. Any length >= what the header announces is accepted: RoCE
// and IB deliver the accept's private data zero-padded to ACCEPT_ROOM.
std::optional<Workspace> decode_workspace(const void *data, size_t len);

// ---------------------------------------------------------------------
// A client's connection request, 8 bytes; the old clients and ours of
// GPSPM send none, which a server reads as zeros or nothing.
//
// The append-only-log client's, version 1: "AOF\0", the version (1), its
// aof_mode, its flags (bit 0: it appends, so the log starts anew), a zero
// byte. A server refuses a version or a mode it does not know.
//
// The APM client's (librpma_apm_client), version 1: "APM\0", the version
// (1), its flags (bit 0: it sends the end-of-run notice), two zero bytes.
// A request of another version promises nothing: its server treats the
// client as an old one.
constexpr size_t CONN_REQUEST_SIZE = 8;
static_assert(CONN_REQUEST_SIZE <= CONN_REQUEST_ROOM);

// The APM client's request: it will send the end-of-run notice.
std::array<uint8_t, CONN_REQUEST_SIZE> encode_end_notice_request();
// Whether a connection request's private data promises the end-of-run
// notice (a request of an unknown version promises nothing).
bool promises_end_notice(const void *data, size_t len);

// What an append-only-log client asks for when it connects: its method,
// and whether its job appends (a new log from the start) or only reads.
struct AofRequest {
	AofMode mode = AofMode::NONE;
	bool appends = false;
	bool operator==(const AofRequest &) const = default;
};

std::array<uint8_t, CONN_REQUEST_SIZE> encode_aof_request(AofRequest req);
// mode NONE when the request carries no append-only-log request (an APM or
// GPSPM client: none at all); nullopt when it is one of a version or a
// mode this side does not know.
std::optional<AofRequest> decode_aof_request(const void *data, size_t len);

// ---------------------------------------------------------------------
// The GPSPM messages: gpspm_flush.proto's GPSPM_flush_request and
// GPSPM_flush_response, protobuf's encoding, one message per SEND, no
// length prefix (the receive's byte count is the length). Every field is a
// required fixed64: a tag byte and 8 bytes little-endian, so a request
// (offset, length, op_context) is 27 bytes and a response (op_context) 9.
//
// The old engines unpack with protobuf-c, which rejects a message that
// lacks a field, takes the fields in any order and the last of a repeated
// one, and skips fields it does not know: a field may be added only as an
// optional one that an old peer may skip, and a message may never outgrow
// MSG_ROOM, the receive every engine, old or new, posts for one. A field's
// number or type never changes.
//
// A server answers the requests of a connection in the order they came (a
// client matches a response to its oldest request), echoing op_context,
// which it never interprets otherwise. The end of a run and the
// append-only log's requests are requests too (below).
constexpr size_t FIXED64_FIELD_SIZE = 1 + sizeof(uint64_t);
constexpr size_t FLUSH_REQUEST_SIZE = 3 * FIXED64_FIELD_SIZE;
constexpr size_t FLUSH_RESPONSE_SIZE = FIXED64_FIELD_SIZE;
// Room for one message: what the old engines posted their receives with.
constexpr size_t MSG_ROOM = 512;

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

struct FlushRequest {
	uint64_t offset, length, op_context;

	// The end of a run: offset = length = 0, which gets no response
	bool ends_run() const { return offset == 0 && length == 0; }
};

// What a GPSPM client sends after a good run, and an APM client that
// promised it: the old GPSPM client's all-zero request.
constexpr FlushRequest END_OF_RUN_NOTICE{0, 0, 0};

// Each returns the packed size, or 0 if room is too small.
size_t pack_request(const FlushRequest &req, void *buf, size_t room);
size_t pack_response(uint64_t op_context, void *buf, size_t room);

// nullopt for bytes that are not such a message
std::optional<FlushRequest> unpack_request(const void *buf, size_t len);
std::optional<uint64_t> unpack_response(const void *buf, size_t len);

// The memory each side registers for its messages, for `slots` of them
// outstanding: slot k has a receive of MSG_ROOM bytes (any message an old
// peer may send fits) and a send of SEND_SIZE bytes, in a room of its own
// size rounded up to 8 bytes, after all the receives: registered memory is
// resident, so a server's send takes 16 bytes, not 512. Not on the wire,
// but bound to it: a receive holds any message, a send the one message
// its side sends.
template <size_t SEND_SIZE> class MsgSlotLayout {
public:
	static constexpr size_t SEND_ROOM = (SEND_SIZE + 7) / 8 * 8;

	explicit MsgSlotLayout(size_t slots) : slots_(slots) {}

	size_t recv_off(size_t k) const { return k * MSG_ROOM; }
	size_t send_off(size_t k) const { return slots_ * MSG_ROOM + k * SEND_ROOM; }
	size_t send_room() const { return SEND_ROOM; }
	size_t bytes() const { return slots_ * (MSG_ROOM + SEND_ROOM); }

private:
	size_t slots_;
};

// A server's: the answer to the request in receive k goes out of send k.
using ServerMsgLayout = MsgSlotLayout<FLUSH_RESPONSE_SIZE>;
// A client's: receive k and send k are independent; a response lands in
// whichever receive the network takes next.
using ClientMsgLayout = MsgSlotLayout<FLUSH_REQUEST_SIZE>;

// ---------------------------------------------------------------------
// The end of a run. A GPSPM client sends END_OF_RUN_NOTICE, then
// disconnects. The old APM client only disconnects, as a killed one does;
// ours tells the two apart without changing anything for the old
// engines: it promises the notice in its connection request, its server
// then posts one receive (MSG_ROOM) for it before the accept and says so
// with max_msg_num 1, and the client sends END_OF_RUN_NOTICE before it
// disconnects (docs/compatibility.md, "The APM client's end-of-run
// notice"). An append-only-log client sends its own notice (below).

// ---------------------------------------------------------------------
// The append-only log (librpma_aof_*; docs/engines.md, "The append-only
// log"). The server's region is the log: its first 8 bytes are the tail
// pointer, the length in bytes of the log's durable prefix (u64 LE,
// always written whole: an RDMA atomic write, or an aligned 8-byte store);
// the records start at LOG_OFFSET, a page past it, which the workspace
// tells the client. A record, and every record before it, is durable only
// once the pointer covers it, and the pointer is made persistent only
// after the records it covers: it is never ahead of them.
constexpr uint64_t LOG_TAIL_OFFSET = 0;
constexpr uint32_t LOG_OFFSET = 4096;

// The pointer's bytes as they travel and lie in the region.
inline uint64_t log_tail_bytes(uint64_t tail)
{
	return htole64(tail);
}

// The client's end-of-run notice: a GPSPM flush request of no length whose
// offset is the log's length as the client appended it, with this
// op_context ("AOF END").
constexpr uint64_t AOF_END_CONTEXT = 0x414f4620454e44;

// The notice's offset when the run appended nothing (rw=read).
constexpr uint64_t AOF_NOTHING_APPENDED = UINT64_MAX;

inline FlushRequest aof_end_notice(uint64_t appended)
{
	return {appended, 0, AOF_END_CONTEXT};
}

inline bool is_aof_end_notice(const FlushRequest &req)
{
	return req.length == 0 && req.op_context == AOF_END_CONTEXT;
}

// aof_mode=gpspm: an appending client's first request, once it has agreed
// to the server and before it writes a record: the server zeroes and
// persists the tail pointer (the pointer's range, with this op_context,
// "AOF NEW"), then answers. aof_mode=apm: the client zeroes it itself.
constexpr uint64_t AOF_START_CONTEXT = 0x414f46204e4557;

inline FlushRequest aof_start_request()
{
	return {LOG_TAIL_OFFSET, sizeof(uint64_t), AOF_START_CONTEXT};
}

inline bool is_aof_start_request(const FlushRequest &req)
{
	return req.offset == LOG_TAIL_OFFSET && req.length == sizeof(uint64_t) &&
	       req.op_context == AOF_START_CONTEXT;
}

}

#endif
