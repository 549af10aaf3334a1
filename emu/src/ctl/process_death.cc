// SPDX-License-Identifier: GPL-2.0
#include "ctl/process_death.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "util/log.h"

namespace mlx5emu {

const char kDeathOnRequest[] = "killed on request of the control channel (die): every HCA goes with the process";

bool is_die_command(const std::string &line)
{
	std::istringstream is(line);
	std::string w, extra;
	return (is >> w) && w == "die" && !(is >> extra);
}

void die_on_request()
{
	log_info("%s", kDeathOnRequest);
	std::fflush(stderr);
	std::raise(SIGKILL);
	std::abort(); // not reached: SIGKILL cannot be caught
}

} // namespace mlx5emu
