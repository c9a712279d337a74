// SPDX-License-Identifier: BSD-3-Clause
// report.hh -- how the engines tell the user what went wrong.
#ifndef RPMA_ENGINE_REPORT_HH
#define RPMA_ENGINE_REPORT_HH

#include "fio.hh"
#include "result.hh"

namespace rpma_fio {

// Prints "<engine>[<job number>]: <message>" through fio's log_err, which
// also reaches the client in fio's distributed mode.
void report(thread_data *td, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Prints an informational note (no error): through fio's log_info, like
// fio's own notes, only when fio prints its normal output; with json, json+
// or terse output alone on stderr, so that the report (stdout or --output=)
// stays parseable.
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// Reports a failed librpma call and records it as the job's error, in the
// old engines' form (err=<rpma code>, error=<rpma_err_2str>, func=<call>).
// Returns Result::FAILED, so that a step can `return rpma_failed(...)`.
Result rpma_failed(thread_data *td, const char *func, int ret);

// Records err (an errno value) as the job's error after report() told why;
// Result::FAILED.
Result job_failed(thread_data *td, int err, const char *func);

// librpma's own messages: warnings on stderr, more with fio --debug=net.
void setup_rpma_logging();

}

#endif
