// SPDX-License-Identifier: BSD-3-Clause
// probe.hh -- the liveness probe of a server's client.
#ifndef RPMA_ENGINE_PROBE_HH
#define RPMA_ENGINE_PROBE_HH

#include "conn_events.hh"

#include <cstdint>
#include <string>

namespace rpma_fio {

// For a connection's quiet moments: after PROBE_IDLE without a new sign of
// life (what the client has sent), a zero-length RDMA write goes to the
// client (it needs no key and leaves no trace there), which must complete
// within OPERATION_TIMEOUT.
class Probe {
public:
	enum class Due {
		NOTHING, // the client gave a sign lately, or the probe is on its way
		SEND,    // send a probe now, then sent()
		LATE,    // the probe did not complete in time
	};
	// What is due at `now`, the client having given `signs` so far (0 if
	// it sends nothing).
	Due due(uint64_t signs, Clock::time_point now);
	void sent(Clock::time_point now)
	{
		in_flight_ = true;
		sent_ = now;
	}
	// Its completion came (whatever its status).
	void completed(Clock::time_point now)
	{
		in_flight_ = false;
		quiet_since_ = now;
	}
	// Why a LATE probe means the client is gone, for messages.
	static std::string late_why();

private:
	uint64_t signs_ = 0;
	Clock::time_point quiet_since_{};
	Clock::time_point sent_{};
	bool in_flight_ = false;
};

}

#endif
