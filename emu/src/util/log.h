// SPDX-License-Identifier: GPL-2.0
// Log lines to stderr, each prefixed "mlx5-emu: ". Verbose lines (message
// traces) appear only with -v.
#pragma once

namespace mlx5emu {

void set_log_verbose(bool on);
bool log_verbose();

void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

} // namespace mlx5emu
