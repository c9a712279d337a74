// SPDX-License-Identifier: BSD-3-Clause
// Reaching the library's out-of-memory paths: while `body` runs, every
// operator new of the program throws std::bad_alloc.
#ifndef RPMA_TESTS_UNIT_OUT_OF_MEMORY_HH
#define RPMA_TESTS_UNIT_OUT_OF_MEMORY_HH

namespace unit {

void set_allocations_fail(bool fail) noexcept;

template <typename Body> auto out_of_memory(Body body)
{
	set_allocations_fail(true);
	auto result = body();
	set_allocations_fail(false);
	return result;
}

} // namespace unit

#endif
