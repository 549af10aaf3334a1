// SPDX-License-Identifier: GPL-2.0
// A listening UNIX stream socket that accepts from the moment its path
// exists.
#pragma once

#include <functional>
#include <string>

namespace mlx5emu {

// Listens on the UNIX socket `path` (close-on-exec). The socket is bound
// and listening under a temporary sibling name first and then renamed to
// `path`: whoever finds `path` (QEMU, scripts/vm's wait, a test) can
// connect at once. Bound at `path` itself, a connect() between bind() and
// listen() is refused (seen under load: a CI run's control client got
// ECONNREFUSED). A stale socket at `path` is replaced; anything else
// there is an error. Returns the descriptor, or -1 with *err set.
// `between_bind_and_listen` (tests) runs at the moment the old way had a
// path that refused.
int listen_unix(const std::string &path, int backlog, std::string *err,
		const std::function<void()> &between_bind_and_listen = nullptr);

} // namespace mlx5emu
