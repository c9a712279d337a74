// SPDX-License-Identifier: BSD-3-Clause
#include "log.hh"

#include <sys/syscall.h>
#include <sys/time.h>
#include <syslog.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <strings.h>

namespace rpma::log {

std::atomic<int> thresholds[RPMA_LOG_THRESHOLD_MAX] = {RPMA_LOG_LEVEL_WARNING, RPMA_LOG_DISABLED};
std::atomic<rpma_log_function *> sink{nullptr};

namespace {

struct LevelInfo {
	const char *tag; // fixed width, as the stderr format aligns on it
	int syslog_priority;
};

constexpr LevelInfo level_info[] = {
	{"*FATAL* ", LOG_CRIT},   {"*ERROR* ", LOG_ERR},  {"*WARN*  ", LOG_WARNING},
	{"*NOTE*  ", LOG_NOTICE}, {"*INFO*  ", LOG_INFO}, {"*DEBUG* ", LOG_DEBUG},
};

const char *basename_of(const char *path)
{
	const char *slash = std::strrchr(path, '/');
	return slash ? slash + 1 : path;
}

// RPMA_LOG_STDERR=<level> raises both thresholds so that every message up to
// that level reaches stderr; a debugging aid that needs no code change.
int parse_level(const char *text)
{
	static const char *const names[] = {"fatal", "error", "warning", "notice", "info", "debug"};
	for (int i = 0; i < 6; ++i)
		if (strcasecmp(text, names[i]) == 0)
			return i;
	char *end = nullptr;
	long value = std::strtol(text, &end, 10);
	if (end != text && *end == '\0' && value >= RPMA_LOG_DISABLED &&
	    value <= RPMA_LOG_LEVEL_DEBUG)
		return static_cast<int>(value);
	return RPMA_LOG_LEVEL_DEBUG;
}

struct Lifetime {
	Lifetime()
	{
		openlog("rpma", LOG_PID, LOG_LOCAL7);
		if (const char *level = std::getenv("RPMA_LOG_STDERR")) {
			int value = parse_level(level);
			thresholds[RPMA_LOG_THRESHOLD] = value;
			thresholds[RPMA_LOG_THRESHOLD_AUX] = value;
		}
		sink = default_sink;
	}
	~Lifetime()
	{
		sink = nullptr;
		closelog();
	}
};

const Lifetime lifetime;

} // namespace

void default_sink(rpma_log_level level, const char *file_name, int line_no,
		  const char *function_name, const char *format, ...)
{
	if (level < RPMA_LOG_LEVEL_FATAL || level > RPMA_LOG_LEVEL_DEBUG)
		return;

	char message[1024];
	va_list args;
	va_start(args, format);
	std::vsnprintf(message, sizeof(message), format, args);
	va_end(args);

	char origin[256] = "";
	if (file_name)
		std::snprintf(origin, sizeof(origin), "%s: %3d: %s: ", basename_of(file_name),
			      line_no, function_name);

	const LevelInfo &info = level_info[level];
	syslog(info.syslog_priority, "%s%s%s", info.tag, origin, message);

	if (level > thresholds[RPMA_LOG_THRESHOLD_AUX].load())
		return;
	struct timeval now;
	gettimeofday(&now, nullptr);
	struct tm local;
	localtime_r(&now.tv_sec, &local);
	char stamp[32];
	std::strftime(stamp, sizeof(stamp), "%b %d %H:%M:%S", &local);
	std::fprintf(stderr, "%s.%06ld [%ld] %s%s%s", stamp, static_cast<long>(now.tv_usec),
		     static_cast<long>(syscall(SYS_gettid)), info.tag, origin, message);
}

} // namespace rpma::log
