// SPDX-License-Identifier: BSD-3-Clause
#include "probe.hh"

namespace rpma_fio {

namespace {

// A client silent this long is probed; the probe has OPERATION_TIMEOUT to
// complete, the bound a client gives its own operations.
constexpr auto PROBE_IDLE = std::chrono::seconds(5);

}

Probe::Due Probe::due(uint64_t signs, Clock::time_point now)
{
	if (in_flight_)
		return now - sent_ < OPERATION_TIMEOUT ? Due::NOTHING : Due::LATE;
	if (signs != signs_ || quiet_since_ == Clock::time_point{}) {
		signs_ = signs;
		quiet_since_ = now;
		return Due::NOTHING;
	}
	return now - quiet_since_ < PROBE_IDLE ? Due::NOTHING : Due::SEND;
}

std::string Probe::late_why()
{
	return "no answer to a probe for " +
	       std::to_string(std::chrono::duration_cast<std::chrono::seconds>(OPERATION_TIMEOUT)
				      .count()) +
	       " s";
}

}
