// SPDX-License-Identifier: GPL-2.0
// VERSION: protocol 0.0; capabilities the QEMU client accepts. Never
// advertise write_multiple (broken in QEMU <= 10.2) or twin_socket.
#include <cerrno>
#include <cstring>
#include <string>

#include "vfio_user/commands.h"
#include "util/log.h"

namespace mlx5emu::vfio_user {

namespace {

constexpr char kCapabilities[] =
	"{\"capabilities\":{\"max_msg_fds\":16,\"max_data_xfer_size\":1048576}}";

static_assert(sizeof(kCapabilities) <= 194, "QEMU's reply buffer is the request's 214 bytes");
static_assert(kMaxMsgFds == 16 && kMaxDataXferSize == 1048576, "keep the JSON in sync");

} // namespace

const char *CommandHandler::capabilities_json() { return kCapabilities; }

Reply CommandHandler::version(const Message &msg)
{
	VersionPayload v;
	if (!load(msg.payload(), v))
		return Reply::failure(EINVAL);
	if (v.major != 0) {
		log_info("%s: VERSION: client speaks %u.%u, only 0.x is supported", tag(), v.major, v.minor);
		return Reply::failure(ENOTSUP);
	}
	if (version_done_)
		log_info("%s: VERSION sent again", tag());
	version_done_ = true;

	std::string client_json;
	if (msg.body.size() > sizeof(v)) {
		const char *s = reinterpret_cast<const char *>(msg.body.data() + sizeof(v));
		client_json.assign(s, strnlen(s, msg.body.size() - sizeof(v)));
	}
	log_info("%s: client connected: vfio-user %u.%u %s", tag(), v.major, v.minor, client_json.c_str());

	Reply r;
	append(r.payload, VersionPayload{0, 0});
	r.payload.insert(r.payload.end(), kCapabilities, kCapabilities + sizeof(kCapabilities)); // with NUL
	return r;
}

} // namespace mlx5emu::vfio_user
