// SPDX-License-Identifier: GPL-2.0
// Placeholder. Replaced by the real control channel.
#include "ctl/control_server.h"

#include <cstdio>

namespace mlx5emu {

struct ControlServer::Impl {};

ControlServer::ControlServer(std::string, std::vector<Hca *>) {}
ControlServer::~ControlServer() = default;
bool ControlServer::start(std::string *) { return true; }
void ControlServer::stop() {}

int control_client_main(int, char **)
{
	std::fprintf(stderr, "mlx5-emu ctl: not implemented yet\n");
	return 2;
}

} // namespace mlx5emu
