// SPDX-License-Identifier: GPL-2.0
// Reading a fuzz input front to back as records (what the targets of
// emu/fuzz take), and writing such records (the seed generator). Integers
// are little-endian; past the end every read gives zeros, so any input is
// a valid sequence of records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace mlx5emu::fuzz {

class Input {
public:
	Input(const uint8_t *data, size_t size) : p_(data), n_(size) {}
	bool empty() const { return at_ >= n_; }
	size_t left() const { return n_ - at_; }
	template <class T> T take()
	{
		T v{};
		size_t k = sizeof(T) < left() ? sizeof(T) : left();
		std::memcpy(&v, p_ + at_, k);
		at_ += k;
		return v;
	}
	// Up to `len` bytes (fewer at the end of the input).
	std::vector<uint8_t> bytes(size_t len)
	{
		size_t k = len < left() ? len : left();
		std::vector<uint8_t> v(p_ + at_, p_ + at_ + k);
		at_ += k;
		return v;
	}

private:
	const uint8_t *p_;
	size_t n_, at_ = 0;
};

class Output {
public:
	template <class T> Output &put(T v)
	{
		const auto *b = reinterpret_cast<const uint8_t *>(&v);
		bytes.insert(bytes.end(), b, b + sizeof(T));
		return *this;
	}
	Output &raw(const std::vector<uint8_t> &v)
	{
		bytes.insert(bytes.end(), v.begin(), v.end());
		return *this;
	}
	std::vector<uint8_t> bytes;
};

} // namespace mlx5emu::fuzz
