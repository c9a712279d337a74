// SPDX-License-Identifier: BSD-3-Clause
// Replaces the program's global operator new/delete with malloc/free, and
// lets tests make new fail.
#include "out_of_memory.hh"

#include <cstdlib>
#include <new>

namespace {

bool allocations_fail = false;
std::size_t failing_size = 0;

} // namespace

namespace unit {

void set_allocations_fail(bool fail) noexcept
{
	allocations_fail = fail;
}

void set_failing_size(std::size_t size) noexcept
{
	failing_size = size;
}

} // namespace unit

void *operator new(std::size_t size)
{
	if (allocations_fail && (failing_size == 0 || size == failing_size))
		throw std::bad_alloc();
	if (void *p = std::malloc(size ? size : 1))
		return p;
	throw std::bad_alloc();
}

void operator delete(void *p) noexcept
{
	std::free(p);
}

void operator delete(void *p, std::size_t) noexcept
{
	std::free(p);
}
