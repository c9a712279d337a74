// SPDX-License-Identifier: BSD-3-Clause
// result.hh -- what a step of an engine returns.
//
// One type for every outcome inside the engines, so that "not now" cannot
// be read as a failure or a failure as "not now". fio's hooks turn it into
// fio's own conventions where they return to fio (fio_status(); -EIO in
// commit() and getevents()), as rpma/c/ turns the library's exceptions into
// error codes.
#ifndef RPMA_ENGINE_RESULT_HH
#define RPMA_ENGINE_RESULT_HH

namespace rpma_fio {

// clang-format 14 would read the attribute as an initializer
// clang-format off
enum class [[nodiscard]] Result {
	DONE,  // it happened
	RETRY, // not now, and nothing failed: try again once something changed
	// the job failed: said and recorded as its error (fail(), rpma_failed())
	FAILED,
};
// clang-format on

inline bool failed(Result r)
{
	return r == Result::FAILED;
}

// A hook's return for fio: 0, or 1 when the job failed.
inline int fio_status(Result r)
{
	return r == Result::DONE ? 0 : 1;
}

}

#endif
