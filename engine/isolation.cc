// SPDX-License-Identifier: BSD-3-Clause
#include "isolation.hh"

#include <cstring>

namespace rpma_fio {

std::optional<Isolation> parse_isolation(const char *text, std::string *why)
{
	if (!text || !*text)
		return Isolation::Default;
	if (std::strcmp(text, "window") == 0)
		return Isolation::Window;
	if (std::strcmp(text, "none") == 0)
		return Isolation::None;
	*why = "is neither window (each client through a memory window of its own "
	       "connection) nor none (through the region's key)";
	return std::nullopt;
}

IsolationChoice choose_isolation(Isolation asked, bool capable, const std::string &device)
{
	// what each mode means for the clients, said in the start note
	const std::string isolated = "each client reaches its own range only, through a memory "
				     "window bound on its connection";
	const std::string exposed = "a client that learns or guesses another's key reaches "
				    "that client's range";
	IsolationChoice c;
	switch (asked) {
	case Isolation::None:
		c.why = "isolation=none, as the job asks: " + exposed;
		break;
	case Isolation::Window:
		c.windows = capable;
		c.refused = !capable;
		c.why = capable ? "isolation=window, as the job asks: " + isolated
				: "isolation=window: " + device +
					  " offers no type 2 memory windows (isolation=none serves "
					  "without them, each client trusted not to use another's "
					  "key)";
		break;
	case Isolation::Default:
		c.windows = capable;
		c.why = capable ? "isolation=window: " + isolated + " (" + device +
					  " offers type 2 windows)"
				: "isolation=none: " + device +
					  " offers no type 2 memory windows: " + exposed;
		break;
	}
	return c;
}

}
