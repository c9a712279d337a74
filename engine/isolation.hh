// SPDX-License-Identifier: BSD-3-Clause
// isolation.hh -- isolation= of the servers (docs/engines.md, "Isolation
// of clients"): whether each client reaches its range of the job's memory
// through a type 2 memory window bound on its own connection (window), or
// through the key of a region that any connection of the job may use
// (none); by default window where the device offers type 2 windows.
#ifndef RPMA_ENGINE_ISOLATION_HH
#define RPMA_ENGINE_ISOLATION_HH

#include <optional>
#include <string>

namespace rpma_fio {

enum class Isolation { Default, Window, None };

// isolation= as given: nullptr or "" (not given) is Default; nullopt, with
// *why saying what is wrong, for anything but window or none.
std::optional<Isolation> parse_isolation(const char *text, std::string *why);

// What a job with isolation=`asked` does on `device` (its name), which
// offers type 2 windows or not (`capable`).
struct IsolationChoice {
	bool windows = false; // isolation=window in force
	bool refused = false; // the job cannot start (why says so)
	std::string why;      // for the start note, or the refusal
};
IsolationChoice choose_isolation(Isolation asked, bool capable, const std::string &device);

}

#endif
