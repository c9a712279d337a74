// SPDX-License-Identifier: BSD-3-Clause
// ring.hh -- a first-in first-out queue of fixed capacity: its memory is
// taken once, when the job is set up, so the I/O path never allocates. The
// slots are a power of two, so that an index wraps with a mask, not a
// division.
//
// It counts what it ever took and gave back rather than keeping an index:
// the element pushed after n others stays at(n) until as many more are
// pushed as there are slots, also once popped. InFlight's lanes read the
// io_us fio took from there.
//
// The assertions (checked builds: configure --enable-checked) state what
// the callers promise.
#ifndef RPMA_ENGINE_RING_HH
#define RPMA_ENGINE_RING_HH

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rpma_fio {

template <typename T> class Ring {
public:
	void reserve(size_t capacity)
	{
		capacity_ = capacity;
		slots_.assign(std::bit_ceil(capacity), T{});
		mask_ = slots_.size() - 1;
		popped_ = pushed_ = 0;
	}

	size_t size() const { return pushed_ - popped_; }
	bool empty() const { return pushed_ == popped_; }
	bool full() const { return size() == capacity_; }
	// how many were ever pushed and popped
	uint64_t pushed() const { return pushed_; }
	uint64_t popped() const { return popped_; }

	// false when full: the value is not stored, which the caller must
	// handle (a lost io_u would never come back to fio)
	[[nodiscard]] bool push(const T &v)
	{
		if (full())
			return false;
		slots_[pushed_++ & mask_] = v;
		// Invariant: never more than the capacity, which the slots hold.
		assert(size() <= capacity_ && capacity_ <= slots_.size());
		return true;
	}
	T &front()
	{
		assert(!empty());
		return slots_[popped_ & mask_];
	}
	T &back()
	{
		assert(!empty());
		return slots_[(pushed_ - 1) & mask_];
	}
	void pop() { drop(1); }
	// the n oldest
	void drop(size_t n)
	{
		assert(n <= size());
		popped_ += n;
	}
	void clear() { popped_ = pushed_; }
	// the i-th oldest
	T &operator[](size_t i)
	{
		assert(i < size());
		return slots_[(popped_ + i) & mask_];
	}
	// the one pushed after n others, popped or not, as long as its slot
	// has not been taken again
	const T &at(uint64_t n) const
	{
		assert(n < pushed_ && pushed_ - n <= slots_.size());
		return slots_[n & mask_];
	}

private:
	std::vector<T> slots_;
	size_t capacity_ = 0, mask_ = 0;
	uint64_t popped_ = 0, pushed_ = 0;
};

}

#endif
