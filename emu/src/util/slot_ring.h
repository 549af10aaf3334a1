// SPDX-License-Identifier: GPL-2.0
// A FIFO whose slots are reused: a slot taken at the back keeps what its
// last occupant allocated (an SGE list's capacity, say), so that a queue
// in steady state allocates nothing. It grows by doubling when full;
// popping never frees.
#pragma once

#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace mlx5emu {

template <typename T> class SlotRing {
public:
	// The slot that push() will append: its previous occupant, to be
	// overwritten in place (T::reset() or assignment). Stays outside the
	// queue until push().
	T &next()
	{
		if (count_ == slots_.size())
			grow();
		return slots_[(head_ + count_) & (slots_.size() - 1)];
	}
	// Appends the slot next() returned.
	void push() { ++count_; }

	T &back() { return slots_[(head_ + count_ - 1) & (slots_.size() - 1)]; }
	T &front() { return slots_[head_]; }
	const T &front() const { return slots_[head_]; }
	void pop_front()
	{
		head_ = (head_ + 1) & (slots_.size() - 1);
		--count_;
	}
	bool empty() const { return !count_; }
	size_t size() const { return count_; }
	// Forgets every element; their slots keep their allocations.
	void clear() { head_ = count_ = 0; }
	// Removes the elements `pred` holds for, keeping the others' order
	// (their objects move down; the freed slots end up past the back).
	template <typename P> void erase_if(P pred)
	{
		size_t keep = 0, mask = slots_.size() - 1;
		for (size_t i = 0; i < count_; ++i) {
			T &x = slots_[(head_ + i) & mask];
			if (pred(x))
				continue;
			if (keep != i)
				std::swap(slots_[(head_ + keep) & mask], x);
			++keep;
		}
		count_ = keep;
	}

	template <typename R, typename V> class Iter {
	public:
		using iterator_category = std::forward_iterator_tag;
		using value_type = T;
		using difference_type = std::ptrdiff_t;
		using pointer = V *;
		using reference = V &;
		Iter() = default;
		Iter(R *r, size_t i) : r_(r), i_(i) {}
		V &operator*() const { return r_->slots_[(r_->head_ + i_) & (r_->slots_.size() - 1)]; }
		V *operator->() const { return &**this; }
		Iter &operator++()
		{
			++i_;
			return *this;
		}
		Iter operator++(int)
		{
			Iter t = *this;
			++i_;
			return t;
		}
		bool operator==(const Iter &o) const { return i_ == o.i_; }

	private:
		R *r_ = nullptr;
		size_t i_ = 0;
	};
	using iterator = Iter<SlotRing, T>;
	using const_iterator = Iter<const SlotRing, const T>;
	iterator begin() { return {this, 0}; }
	iterator end() { return {this, count_}; }
	const_iterator begin() const { return {this, 0}; }
	const_iterator end() const { return {this, count_}; }

private:
	// Twice the slots (a power of two; called when full), the queue's
	// elements first, in order.
	void grow()
	{
		size_t n = slots_.size();
		std::vector<T> s(n ? 2 * n : kFirst);
		for (size_t i = 0; i < n; ++i)
			s[i] = std::move(slots_[(head_ + i) & (n - 1)]);
		slots_ = std::move(s);
		head_ = 0;
	}

	static constexpr size_t kFirst = 32; // slots at the first push
	std::vector<T> slots_;
	size_t head_ = 0, count_ = 0;
};

} // namespace mlx5emu
