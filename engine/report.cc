// SPDX-License-Identifier: BSD-3-Clause
#include "report.hh"

#include <librpma.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace rpma_fio {

void report(thread_data *td, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	std::vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_err("%s[%u]: %s\n", td->io_ops->name, td->thread_number, msg);
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
