// SPDX-License-Identifier: BSD-3-Clause
// report.hh -- how the engines tell the user what went wrong.
#ifndef RPMA_ENGINE_REPORT_HH
#define RPMA_ENGINE_REPORT_HH

#include "fio.hh"
#include "result.hh"

namespace rpma_fio {

// A failure is said and recorded in one call, as fio's td_verror records
// it: fail() for an errno value, rpma_failed() for a librpma error. Each
// returns Result::FAILED, so that a step can `return fail(...)`.

// Says why the job fails, as report() does, and records err (an errno value)
// as the job's error, with func for what failed (fio's "func=").
Result fail(thread_data *td, int err, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

// Reports a failed librpma call and records it as the job's error, in the
// old engines' form (err=<rpma code>, error=<rpma_err_2str>, func=<call>).
Result rpma_failed(thread_data *td, const char *func, int ret);
// The same, said after a line of its own that tells what the call was for.
Result rpma_failed(thread_data *td, const char *func, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

// Records err as the job's error and says nothing: for a failure already
// told (by the function that found it, or by a client's own loss), or one
// that is not the engine's to tell (fio ends the job).
Result job_failed(thread_data *td, int err, const char *func);

// Prints "<engine>[<job number>]: <message>" through fio's log_err, which
// also reaches the client in fio's distributed mode. Alone, for what is
// not the job's failure: a client lost while the others go on, a bug
// noticed on the way out; a failure is fail()'s.
void report(thread_data *td, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Prints an informational note (no error): through fio's log_info, like
// fio's own notes, only when fio prints its normal output; with json, json+
// or terse output alone on stderr, so that the report (stdout or --output=)
// stays parseable.
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// librpma's own messages: warnings on stderr, more with fio --debug=net.
void setup_rpma_logging();

}

#endif
