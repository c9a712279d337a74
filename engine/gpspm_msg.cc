// SPDX-License-Identifier: BSD-3-Clause
#include "gpspm_msg.hh"
#include "gpspm_flush.pb-c.h"

namespace rpma_fio {

size_t pack_request(const FlushRequest &req, void *buf, size_t room)
{
	GPSPMFlushRequest msg = GPSPM_FLUSH_REQUEST__INIT;
	msg.offset = req.offset;
	msg.length = req.length;
	msg.op_context = req.op_context;
	if (gpspm_flush_request__get_packed_size(&msg) > room)
		return 0;
	return gpspm_flush_request__pack(&msg, static_cast<uint8_t *>(buf));
}

size_t pack_response(uint64_t op_context, void *buf, size_t room)
{
	GPSPMFlushResponse msg = GPSPM_FLUSH_RESPONSE__INIT;
	msg.op_context = op_context;
	if (gpspm_flush_response__get_packed_size(&msg) > room)
		return 0;
	return gpspm_flush_response__pack(&msg, static_cast<uint8_t *>(buf));
}

std::optional<FlushRequest> unpack_request(const void *buf, size_t len)
{
	GPSPMFlushRequest *msg = gpspm_flush_request__unpack(nullptr, len,
		static_cast<const uint8_t *>(buf));
	if (!msg)
		return std::nullopt;
	FlushRequest req{msg->offset, msg->length, msg->op_context};
	gpspm_flush_request__free_unpacked(msg, nullptr);
	return req;
}

std::optional<uint64_t> unpack_response(const void *buf, size_t len)
{
	GPSPMFlushResponse *msg = gpspm_flush_response__unpack(nullptr, len,
		static_cast<const uint8_t *>(buf));
	if (!msg)
		return std::nullopt;
	uint64_t op_context = msg->op_context;
	gpspm_flush_response__free_unpacked(msg, nullptr);
	return op_context;
}

}
