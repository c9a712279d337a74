// SPDX-License-Identifier: BSD-3-Clause
#include "api.hh"

using namespace rpma;

namespace {

bool valid_threshold(rpma_log_threshold threshold)
{
	return threshold == RPMA_LOG_THRESHOLD || threshold == RPMA_LOG_THRESHOLD_AUX;
}

} // namespace

RPMA_EXPORT int rpma_log_set_threshold(rpma_log_threshold threshold, rpma_log_level level)
{
	if (!valid_threshold(threshold) || level < RPMA_LOG_DISABLED ||
	    level > RPMA_LOG_LEVEL_DEBUG)
		return RPMA_E_INVAL;
	log::thresholds[threshold] = level;
	return 0;
}

RPMA_EXPORT int rpma_log_get_threshold(rpma_log_threshold threshold, rpma_log_level *level)
{
	if (!valid_threshold(threshold) || !level)
		return RPMA_E_INVAL;
	*level = static_cast<rpma_log_level>(log::thresholds[threshold].load());
	return 0;
}

RPMA_EXPORT int rpma_log_set_function(rpma_log_function *log_function)
{
	log::sink = log_function ? log_function : &log::default_sink;
	return 0;
}
