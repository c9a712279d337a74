// SPDX-License-Identifier: BSD-3-Clause
// A log sink for the tests: keeps what the library logs instead of sending
// it to syslog, so that tests are quiet and can assert on messages.
#ifndef RPMA_TESTS_UNIT_LOG_CAPTURE_HH
#define RPMA_TESTS_UNIT_LOG_CAPTURE_HH

#include <string>
#include <vector>

#include "librpma.h"

namespace unit {

struct LogRecord {
	rpma_log_level level;
	std::string file; // empty when the library passed NULL
	int line;
	std::string function;
	std::string message; // formatted
};

class LogCapture {
public:
	// Installs the capturing sink and forgets earlier records.
	static void install();
	static void capture(rpma_log_level level, const char *file_name, int line_no,
			    const char *function_name, const char *format, ...)
		__attribute__((format(printf, 5, 6)));
	static const std::vector<LogRecord> &records();
	// Whether a message at `level` contains `text`.
	static bool contains(rpma_log_level level, const std::string &text);
};

} // namespace unit

#endif
