// SPDX-License-Identifier: GPL-2.0
// printf-style formatting into a std::string (control-channel lines,
// statistics, error texts), the whole result however long.
#pragma once

#include <cstdio>
#include <string>

namespace mlx5emu {

template <class... Args> std::string fmt(const char *f, Args... a)
{
	int n = std::snprintf(nullptr, 0, f, a...);
	if (n <= 0)
		return {};
	std::string s(static_cast<size_t>(n), '\0');
	std::snprintf(s.data(), s.size() + 1, f, a...);
	return s;
}

} // namespace mlx5emu
