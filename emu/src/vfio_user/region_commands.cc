// SPDX-License-Identifier: GPL-2.0
// REGION_READ, REGION_WRITE (config space and trapped BARs), DEVICE_RESET.
#include <cerrno>

#include "vfio_user/commands.h"
#include "util/log.h"

namespace mlx5emu::vfio_user {

Reply CommandHandler::region_read(const Message &msg)
{
	RegionAccessPayload a{};
	if (!load(msg.payload(), a)) {
		log_info("%s: REGION_READ: payload %zu bytes: too small", tag(), msg.body.size());
		return Reply::failure(EINVAL);
	}
	if (a.count > kMaxDataXferSize) {
		log_info("%s: REGION_READ: %u bytes is more than max_data_xfer_size", tag(), a.count);
		return Reply::failure(EINVAL);
	}
	Reply r;
	r.payload.resize(sizeof(a) + a.count);
	int err = ctx_.pci.read(a.region, a.offset, r.payload.data() + sizeof(a), a.count);
	if (err) {
		log_info("%s: REGION_READ region %u [0x%llx, +%u): out of range", tag(), a.region,
			 (unsigned long long)a.offset, a.count);
		return Reply::failure(err);
	}
	__builtin_memcpy(r.payload.data(), &a, sizeof(a));
	return r;
}

Reply CommandHandler::region_write(const Message &msg)
{
	RegionAccessPayload a{};
	if (!load(msg.payload(), a)) {
		log_info("%s: REGION_WRITE: payload %zu bytes: too small", tag(), msg.body.size());
		return Reply::failure(EINVAL);
	}
	if (a.count > kMaxDataXferSize || msg.body.size() - sizeof(a) != a.count) {
		log_info("%s: REGION_WRITE: count %u but %zu data bytes", tag(), a.count, msg.body.size() - sizeof(a));
		return Reply::failure(EINVAL);
	}
	int err = ctx_.pci.write(a.region, a.offset, msg.body.data() + sizeof(a), a.count);
	if (err) {
		log_info("%s: REGION_WRITE region %u [0x%llx, +%u): out of range", tag(), a.region,
			 (unsigned long long)a.offset, a.count);
		return Reply::failure(err);
	}
	Reply r;
	append(r.payload, a);
	return r;
}

Reply CommandHandler::device_reset(const Message &)
{
	log_info("%s: DEVICE_RESET", tag());
	ctx_.pci.reset();
	return Reply::empty();
}

} // namespace mlx5emu::vfio_user
