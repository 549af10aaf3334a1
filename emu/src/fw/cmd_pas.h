// SPDX-License-Identifier: GPL-2.0
// Shared by the queue commands: the buffer page list (pas) of a CREATE_*
// input, and the data-path lock a handler holds while it changes objects.
#pragma once

#include <cstdint>

#include "fw/cmd_registry.h"
#include "prm/prm.h"
#include "queues/page_list.h"

namespace mlx5emu {

// Reads the page list of a queue of `bytes` bytes starting `offset` bytes
// into the first page of 4 KiB << log_page_12. Fails the command (reason
// `reason` and `reason + 1`) when the input is too short or an address is
// not page aligned.
inline bool read_page_list(CmdCtx &c, unsigned pas_off, uint64_t bytes, uint32_t log_page_12, uint64_t offset,
			   PageList *pl, uint32_t reason)
{
	pl->log_page = 12 + log_page_12;
	pl->offset = offset;
	size_t n = bytes ? PageList::pages_for(bytes, offset, pl->log_page) : 0;
	if (log_page_12 > 20 || pas_off + 8ull * n > c.inlen) {
		c.fail(prm::status::BAD_INPUT_LEN, reason);
		return false;
	}
	if (!parse_pas(c.in + pas_off, n, pl->log_page, &pl->pas)) {
		c.fail(prm::status::BAD_PARAM, reason + 1);
		return false;
	}
	return true;
}

} // namespace mlx5emu
