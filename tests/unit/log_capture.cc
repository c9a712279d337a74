// SPDX-License-Identifier: BSD-3-Clause
#include "log_capture.hh"

#include <cstdarg>
#include <cstdio>
#include <new>

namespace unit {

namespace {

std::vector<LogRecord> &store()
{
	static std::vector<LogRecord> records;
	return records;
}

} // namespace

void LogCapture::install()
{
	store().clear();
	rpma_log_set_function(capture);
}

void LogCapture::capture(rpma_log_level level, const char *file_name, int line_no,
			 const char *function_name, const char *format, ...)
{
	char message[1024];
	va_list args;
	va_start(args, format);
	std::vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	// A C callback must not throw: when the tests make memory run out, the
	// message is dropped.
	try {
		store().push_back({level, file_name ? file_name : "", line_no,
				   function_name ? function_name : "", message});
	} catch (const std::bad_alloc &) {
	}
}

const std::vector<LogRecord> &LogCapture::records()
{
	return store();
}

bool LogCapture::contains(rpma_log_level level, const std::string &text)
{
	for (const LogRecord &record : store())
		if (record.level == level && record.message.find(text) != std::string::npos)
			return true;
	return false;
}

} // namespace unit
