// SPDX-License-Identifier: BSD-3-Clause
// ring.hh -- a first-in first-out queue of fixed capacity: its memory is
// taken once, when the job is set up, so the I/O path never allocates. The
// slots are a power of two, so that an index wraps with a mask, not a
// division.
#ifndef RPMA_ENGINE_RING_HH
#define RPMA_ENGINE_RING_HH

#include <bit>
#include <cstddef>
#include <vector>

namespace rpma_fio {

template <typename T> class Ring {
public:
	void reserve(size_t capacity)
	{
		capacity_ = capacity;
		slots_.assign(std::bit_ceil(capacity), T{});
		mask_ = slots_.size() - 1;
		head_ = size_ = 0;
	}

	size_t size() const { return size_; }
	bool empty() const { return size_ == 0; }
	bool full() const { return size_ == capacity_; }

	// false when full: the value is not stored, which the caller must
	// handle (a lost io_u would never come back to fio)
	[[nodiscard]] bool push(const T &v)
	{
		if (full())
			return false;
		slots_[(head_ + size_) & mask_] = v;
		size_++;
		return true;
	}
	T &front() { return slots_[head_]; }
	const T &front() const { return slots_[head_]; }
	T &back() { return slots_[(head_ + size_ - 1) & mask_]; }
	void pop() { drop(1); }
	// the n oldest (n <= size())
	void drop(size_t n)
	{
		head_ = (head_ + n) & mask_; // before reserve(), n is 0 and the mask 0
		size_ -= n;
	}
	void clear() { head_ = size_ = 0; }
	// the i-th oldest
	T &operator[](size_t i) { return slots_[(head_ + i) & mask_]; }

private:
	std::vector<T> slots_;
	size_t capacity_ = 0, mask_ = 0;
	size_t head_ = 0, size_ = 0;
};

}

#endif
