// SPDX-License-Identifier: GPL-2.0
// The control-channel command language, independent of the socket.
#pragma once

#include <string>
#include <vector>

namespace mlx5emu {

class Hca;

// One command line in, the complete answer out (see control_server.h).
std::string execute_control_command(const std::vector<Hca *> &hcas, const std::string &line);

} // namespace mlx5emu
