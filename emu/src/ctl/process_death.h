// SPDX-License-Identifier: GPL-2.0
// The emulator process dying on request of the control channel ("die"):
// the abrupt end of every HCA it serves, as when the process crashes or is
// killed. The host runner (scripts/vm) recognises the log line and lets the
// guest go on without its HCAs; the test that asked checks what the guest's
// drivers do about it.
#pragma once

#include <string>

namespace mlx5emu {

// The log line the process writes just before it dies.
extern const char kDeathOnRequest[];

// True when LINE is the control command "die".
bool is_die_command(const std::string &line);

// Log kDeathOnRequest, then SIGKILL this process: no destructor, no socket
// shutdown, no function reset runs (the peers see their sockets close).
[[noreturn]] void die_on_request();

} // namespace mlx5emu
