// SPDX-License-Identifier: GPL-2.0
#include "util/log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>

namespace mlx5emu {

namespace {

std::atomic<bool> g_verbose{false};

void vlog(const char *fmt, va_list ap)
{
	// One buffer and one fputs per line so lines from threads do not mix.
	char line[1024];
	int n = std::snprintf(line, sizeof(line), "mlx5-emu: ");
	std::vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	std::fprintf(stderr, "%s\n", line);
}

} // namespace

void set_log_verbose(bool on) { g_verbose.store(on, std::memory_order_relaxed); }
bool log_verbose() { return g_verbose.load(std::memory_order_relaxed); }

void log_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	if (!log_verbose())
		return;
	va_list ap;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

} // namespace mlx5emu
