// SPDX-License-Identifier: BSD-3-Clause
#include "report.hh"

#include <librpma.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace rpma_fio {

namespace {

void say(thread_data *td, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

void say(thread_data *td, const char *fmt, va_list ap)
{
	char msg[512];
	std::vsnprintf(msg, sizeof(msg), fmt, ap);
	log_err("%s[%u]: %s\n", td->io_ops->name, td->thread_number, msg);
}

}

void report(thread_data *td, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(td, fmt, ap);
	va_end(ap);
}

Result fail(thread_data *td, int err, const char *func, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(td, fmt, ap);
	va_end(ap);
	return job_failed(td, err, func);
}

void note(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	std::vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (output_format & FIO_OUTPUT_NORMAL)
		log_info("%s", msg);
	else
		std::fputs(msg, stderr);
}

Result rpma_failed(thread_data *td, const char *func, int ret)
{
	report(td, "%s() failed: %s", func, rpma_err_2str(ret));
	td_vmsg(td, ret, rpma_err_2str(ret), func);
	return Result::FAILED;
}

Result rpma_failed(thread_data *td, const char *func, int ret, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(td, fmt, ap);
	va_end(ap);
	return rpma_failed(td, func, ret);
}

Result job_failed(thread_data *td, int err, const char *func)
{
	td_verror(td, err, func);
	return Result::FAILED;
}

void setup_rpma_logging()
{
	const bool verbose = fio_debug & (1UL << FD_NET);
	const auto level = verbose ? RPMA_LOG_LEVEL_INFO : RPMA_LOG_LEVEL_WARNING;
	rpma_log_set_threshold(RPMA_LOG_THRESHOLD, level);
	rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, level);
}

}
