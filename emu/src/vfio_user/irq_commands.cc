// SPDX-License-Identifier: GPL-2.0
// DEVICE_SET_IRQS: eventfds for MSI-X vectors and the error interrupt.
//   DATA_EVENTFD|TRIGGER, count fds     assign vectors [start, start+count)
//   DATA_EVENTFD|TRIGGER, no fds        de-assign them (QEMU: "enable, no vectors")
//   DATA_NONE|TRIGGER, count 0          disable the whole index
//   DATA_NONE/DATA_BOOL|TRIGGER         loopback: signal the vectors now
//   ACTION_MASK/UNMASK                  accepted, nothing to do (QEMU
//                                       emulates MSI-X masking itself)
#include <bit>
#include <cerrno>

#include "vfio_user/commands.h"
#include "util/log.h"

namespace mlx5emu::vfio_user {

Reply CommandHandler::device_set_irqs(Message &msg)
{
	vfio_irq_set s{};
	if (!load(msg.payload(), s) || s.argsz < sizeof(s)) {
		log_info("%s: DEVICE_SET_IRQS: payload %zu bytes, argsz %u: too small", tag(), msg.body.size(), s.argsz);
		return Reply::failure(EINVAL);
	}
	const uint32_t data = s.flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
	const uint32_t action = s.flags & VFIO_IRQ_SET_ACTION_TYPE_MASK;
	if ((s.flags & ~(VFIO_IRQ_SET_DATA_TYPE_MASK | VFIO_IRQ_SET_ACTION_TYPE_MASK)) ||
	    std::popcount(data) != 1 || std::popcount(action) != 1) {
		log_info("%s: DEVICE_SET_IRQS: bad flags 0x%x", tag(), s.flags);
		return Reply::failure(EINVAL);
	}
	if (s.index >= kNumIrqs) {
		log_info("%s: DEVICE_SET_IRQS: no irq index %u", tag(), s.index);
		return Reply::failure(EINVAL);
	}
	if (!msg.fds.empty() && data != VFIO_IRQ_SET_DATA_EVENTFD) {
		log_info("%s: DEVICE_SET_IRQS: fds without DATA_EVENTFD", tag());
		return Reply::failure(EINVAL);
	}

	EventfdInterrupts &irqs = ctx_.irqs;
	if (s.count == 0) {
		if (data == VFIO_IRQ_SET_DATA_NONE && action == VFIO_IRQ_SET_ACTION_TRIGGER) {
			log_debug("%s: DEVICE_SET_IRQS index %u: disable", tag(), s.index);
			irqs.release(s.index, 0, irqs.count(s.index));
		}
		if (!msg.fds.empty())
			return Reply::failure(EINVAL);
		return Reply::empty();
	}
	const uint32_t max = irqs.count(s.index);
	if (s.start >= max || s.count > max - s.start) {
		log_info("%s: DEVICE_SET_IRQS index %u: [%u, +%u) outside its %u interrupts", tag(), s.index, s.start,
			 s.count, max);
		return Reply::failure(EINVAL);
	}

	if (data == VFIO_IRQ_SET_DATA_EVENTFD) {
		if (action != VFIO_IRQ_SET_ACTION_TRIGGER) {
			log_info("%s: DEVICE_SET_IRQS: eventfds for mask/unmask not supported", tag());
			return Reply::failure(EINVAL);
		}
		if (msg.fds.empty()) {
			log_debug("%s: DEVICE_SET_IRQS index %u: de-assign [%u, +%u)", tag(), s.index, s.start, s.count);
			irqs.release(s.index, s.start, s.count);
		} else if (msg.fds.size() == s.count) {
			log_debug("%s: DEVICE_SET_IRQS index %u: eventfds for [%u, +%u)", tag(), s.index, s.start, s.count);
			irqs.assign(s.index, s.start, std::move(msg.fds));
		} else {
			log_info("%s: DEVICE_SET_IRQS: %zu fds for %u vectors", tag(), msg.fds.size(), s.count);
			return Reply::failure(EINVAL);
		}
		return Reply::empty();
	}

	if (action != VFIO_IRQ_SET_ACTION_TRIGGER)
		return Reply::empty(); // mask/unmask: QEMU owns the MSI-X mask bits

	if (data == VFIO_IRQ_SET_DATA_BOOL) {
		if (msg.body.size() - sizeof(s) < s.count) {
			log_info("%s: DEVICE_SET_IRQS: DATA_BOOL needs %u bytes", tag(), s.count);
			return Reply::failure(EINVAL);
		}
		for (uint32_t i = 0; i < s.count; i++)
			if (msg.body[sizeof(s) + i])
				irqs.fire(s.index, s.start + i);
	} else {
		for (uint32_t i = 0; i < s.count; i++)
			irqs.fire(s.index, s.start + i);
	}
	return Reply::empty();
}

} // namespace mlx5emu::vfio_user
