// SPDX-License-Identifier: GPL-2.0
// Fault-injection control channel: a UNIX socket that takes one text command
// per line. Each answer is either one line starting with "ok" or "error: ",
// or a block of lines (whose first line starts with neither) ended by a line
// holding a single ".".
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

	// Executes one command line and returns the full answer (newline
	// terminated, including the final "." of a block). Thread-safe.
	std::string execute(const std::string &line);

	struct Impl;

private:
	std::unique_ptr<Impl> impl_;
};

// `mlx5-emu ctl --ctl PATH <command...>`: send one command, print the answer.
// Exit status 0 on success, 1 when the answer is an error, 2 when the
// command could not be sent.
int control_client_main(int argc, char **argv);

// Client side as a function: sends `line` to the server at `path` and
// returns its answer without the block terminator. False on transport
// errors (with *err set).
bool control_request(const std::string &path, const std::string &line, std::string *answer, std::string *err);

} // namespace mlx5emu
