// SPDX-License-Identifier: GPL-2.0
// Fault-injection control channel: a UNIX socket that takes one text command
// per line and answers one line (or a block ending in an empty line).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace mlx5emu {

class Hca;

class ControlServer {
public:
	ControlServer(std::string socket_path, std::vector<Hca *> hcas);
	~ControlServer();
	bool start(std::string *err); // binds and starts its thread
	void stop();

	struct Impl;

private:
	std::unique_ptr<Impl> impl_;
};

// `mlx5-emu ctl --ctl PATH <command...>`: send one command, print the answer.
int control_client_main(int argc, char **argv);

} // namespace mlx5emu
