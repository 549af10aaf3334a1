// SPDX-License-Identifier: GPL-2.0
// The control-channel command language, independent of the socket: one
// table (ctl_commands.cc, kCommands) of every command, its arguments,
// help text, documentation line and handler.
#pragma once

#include <string>
#include <vector>

namespace mlx5emu {

class Hca;

// One command line in, the complete answer out (see control_server.h).
std::string execute_control_command(const std::vector<Hca *> &hcas, const std::string &line);

// The command table as Markdown (`| command | effect |` rows, help's
// order): what Documentation/emulator.md shows (`mlx5-emu
// --ctl-commands-markdown` prints it). The same table dispatches the
// commands and writes `help`.
std::string control_commands_markdown();

} // namespace mlx5emu
