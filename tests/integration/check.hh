// SPDX-License-Identifier: BSD-3-Clause
// Assertions on librpma return codes that name the failing call and the
// library's own description of the error.

#ifndef RPMA_TESTS_INTEGRATION_CHECK_HH
#define RPMA_TESTS_INTEGRATION_CHECK_HH

#include <string>

#include <cppunit/extensions/HelperMacros.h>
#include <librpma.h>

namespace it {

inline std::string describe(const char *call, int ret)
{
	return std::string(call) + " returned " + std::to_string(ret) + " (" + rpma_err_2str(ret) +
	       ")";
}

} // namespace it

// the call must return `expected` (0 unless given)
#define RPMA_EXPECT(expected, call)                                                           \
	do {                                                                                  \
		int rpma_ret_ = (call);                                                       \
		CPPUNIT_ASSERT_EQUAL_MESSAGE(it::describe(#call, rpma_ret_), (int)(expected), \
					     rpma_ret_);                                      \
	} while (0)

#define RPMA_OK(call) RPMA_EXPECT(0, call)

#endif
