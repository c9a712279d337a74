// SPDX-License-Identifier: BSD-3-Clause
// Reaching the library's out-of-memory paths: while `body` runs, every
// operator new of the program throws std::bad_alloc.
#ifndef RPMA_TESTS_UNIT_OUT_OF_MEMORY_HH
#define RPMA_TESTS_UNIT_OUT_OF_MEMORY_HH

#include <cstddef>

namespace unit {

void set_allocations_fail(bool fail) noexcept;
// Only allocations of `size` bytes fail (0: all).
void set_failing_size(size_t size) noexcept;

template <typename Body> auto out_of_memory(Body body)
{
	set_allocations_fail(true);
	auto result = body();
	set_allocations_fail(false);
	return result;
}

// The same for allocations of `size` bytes only: where the fake allocates
// too, an odd size (the length of some private data) reaches the
// library's own copy and not the fake's bookkeeping.
template <typename Body> auto out_of_memory_for(size_t size, Body body)
{
	set_failing_size(size);
	auto result = out_of_memory(body);
	set_failing_size(0);
	return result;
}

} // namespace unit

#endif
