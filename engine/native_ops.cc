// SPDX-License-Identifier: BSD-3-Clause
#include "native_ops.hh"

#include <librpma_private.h>

namespace rpma_fio {

std::optional<unsigned int> parse_native_ops(std::string_view list, std::string *bad)
{
	unsigned int value = NATIVE_OPS_SET;
	bool any = false;
	while (!list.empty()) {
		const size_t end = list.find_first_of(", ");
		const std::string_view word = list.substr(0, end);
		list = end == std::string_view::npos ? std::string_view{} : list.substr(end + 1);
		if (word.empty())
			continue;
		any = true;
		if (word == "flush")
			value |= RPMA_NATIVE_OP_FLUSH;
		else if (word == "atomic_write")
			value |= RPMA_NATIVE_OP_ATOMIC_WRITE;
		else if (word == "all")
			value |= RPMA_NATIVE_OP_ALL;
		else if (word != "none") {
			*bad = word;
			return std::nullopt;
		}
	}
	if (!any) {
		bad->clear();
		return std::nullopt;
	}
	return value;
}

std::string native_ops_option(unsigned int value)
{
	switch (value & RPMA_NATIVE_OP_ALL) {
	case 0:
		return "native_ops=none";
	case RPMA_NATIVE_OP_FLUSH:
		return "native_ops=flush";
	case RPMA_NATIVE_OP_ATOMIC_WRITE:
		return "native_ops=atomic_write";
	default:
		return "native_ops=all";
	}
}

}
