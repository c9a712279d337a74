// SPDX-License-Identifier: BSD-3-Clause
// Logging: two thresholds and a replaceable sink, as in librpma's API.
// The main threshold gates every message before it is formatted; the
// auxiliary one only tells the default sink what to copy to stderr.
#ifndef RPMA_LOG_HH
#define RPMA_LOG_HH

#include <atomic>

#include "librpma.h"

namespace rpma::log {

extern std::atomic<int> thresholds[RPMA_LOG_THRESHOLD_MAX];
extern std::atomic<rpma_log_function *> sink;

inline bool enabled(rpma_log_level level) noexcept
{
	return level <= thresholds[RPMA_LOG_THRESHOLD].load(std::memory_order_relaxed) &&
	       sink.load(std::memory_order_relaxed) != nullptr;
}

// The built-in sink: syslog, plus stderr up to the auxiliary threshold.
void default_sink(rpma_log_level level, const char *file_name, int line_no,
		  const char *function_name, const char *format, ...)
	__attribute__((format(printf, 5, 6)));

} // namespace rpma::log

// User sinks receive the format with a trailing newline, as upstream's do.
#define RPMA_LOG(level, format, ...)                                                    \
	do {                                                                            \
		if (::rpma::log::enabled(level)) {                                      \
			rpma_log_function *rpma_log_sink_ = ::rpma::log::sink.load();   \
			if (rpma_log_sink_)                                             \
				rpma_log_sink_(level, __FILE__, __LINE__, __func__,     \
					       format "\n" __VA_OPT__(, ) __VA_ARGS__); \
		}                                                                       \
	} while (0)

#define RPMA_LOG_FATAL(...) RPMA_LOG(RPMA_LOG_LEVEL_FATAL, __VA_ARGS__)
#define RPMA_LOG_ERROR(...) RPMA_LOG(RPMA_LOG_LEVEL_ERROR, __VA_ARGS__)
#define RPMA_LOG_WARNING(...) RPMA_LOG(RPMA_LOG_LEVEL_WARNING, __VA_ARGS__)
#define RPMA_LOG_NOTICE(...) RPMA_LOG(RPMA_LOG_LEVEL_NOTICE, __VA_ARGS__)
#define RPMA_LOG_INFO(...) RPMA_LOG(RPMA_LOG_LEVEL_INFO, __VA_ARGS__)
#define RPMA_LOG_DEBUG(...) RPMA_LOG(RPMA_LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
