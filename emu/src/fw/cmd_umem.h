// SPDX-License-Identifier: GPL-2.0
// Queues whose buffer or doorbell record lives in a umem (CREATE_UMEM,
// cmd_umem.cc): the queue commands name a umem id and a byte offset in it
// instead of a page list or a guest address. Only the user context that
// made a umem may name it. Callers hold the data path's lock.
#pragma once

#include <cstdint>

#include "fw/cmd_registry.h"
#include "queues/page_list.h"
#include "queues/resources.h"

namespace mlx5emu {

// The `bytes` of queue at byte `offset` of umem `id` as a page list.
// Fails the command (BAD_PARAM `reason`: no such umem; BAD_RESOURCE
// `reason + 1`: another context's; BAD_PARAM `reason + 2`: the range is
// not inside the umem) and returns false otherwise.
bool umem_buffer(CmdCtx &c, uint32_t id, uint64_t offset, uint64_t bytes, PageList *pl, uint32_t reason);

// The guest address of the `len` bytes (a doorbell record, aligned to
// `len`) at byte `offset` of umem `id`; the same failures as umem_buffer,
// and BAD_PARAM `reason + 2` for a misaligned offset.
bool umem_address(CmdCtx &c, uint32_t id, uint64_t offset, uint32_t len, uint64_t *addr, uint32_t reason);

// Object `id` of `kind` now uses umem `umem_id` (DESTROY_UMEM refuses it
// until umem_unbind).
void umem_bind(CmdCtx &c, Obj kind, uint32_t id, uint32_t umem_id);
// Object `id` of `kind` is gone: the umems it used are free.
void umem_unbind(CmdCtx &c, Obj kind, uint32_t id);

} // namespace mlx5emu
