// SPDX-License-Identifier: GPL-2.0
// Command dispatch: checks that apply to every command, then the handler.
#include "vfio_user/commands.h"

#include <cerrno>

#include "util/log.h"

namespace mlx5emu::vfio_user {

const char *command_name(uint16_t command)
{
	switch (Command(command)) {
	case Command::version: return "VERSION";
	case Command::dma_map: return "DMA_MAP";
	case Command::dma_unmap: return "DMA_UNMAP";
	case Command::device_get_info: return "DEVICE_GET_INFO";
	case Command::device_get_region_info: return "DEVICE_GET_REGION_INFO";
	case Command::device_get_region_io_fds: return "DEVICE_GET_REGION_IO_FDS";
	case Command::device_get_irq_info: return "DEVICE_GET_IRQ_INFO";
	case Command::device_set_irqs: return "DEVICE_SET_IRQS";
	case Command::region_read: return "REGION_READ";
	case Command::region_write: return "REGION_WRITE";
	case Command::dma_read: return "DMA_READ";
	case Command::dma_write: return "DMA_WRITE";
	case Command::device_reset: return "DEVICE_RESET";
	case Command::region_write_multi: return "REGION_WRITE_MULTI";
	case Command::device_feature: return "DEVICE_FEATURE";
	case Command::mig_data_read: return "MIG_DATA_READ";
	case Command::mig_data_write: return "MIG_DATA_WRITE";
	}
	return "unknown";
}

namespace {

bool takes_fds(uint16_t command)
{
	return command == uint16_t(Command::dma_map) || command == uint16_t(Command::device_set_irqs);
}

} // namespace

Reply CommandHandler::handle(Message &msg)
{
	const uint16_t cmd = msg.header.command;
	if (msg.fds_truncated) {
		log_info("%s: %s: more than %u fds attached: rejected", tag(), command_name(cmd), kMaxMsgFds);
		return Reply::failure(EINVAL);
	}
	if (!msg.fds.empty() && !takes_fds(cmd)) {
		log_info("%s: %s: %zu unexpected fds: rejected", tag(), command_name(cmd), msg.fds.size());
		return Reply::failure(EINVAL);
	}

	switch (Command(cmd)) {
	case Command::version: return version(msg);
	case Command::dma_map: return dma_map(msg);
	case Command::dma_unmap: return dma_unmap(msg);
	case Command::device_get_info: return device_get_info(msg);
	case Command::device_get_region_info: return device_get_region_info(msg);
	case Command::device_get_irq_info: return device_get_irq_info(msg);
	case Command::device_set_irqs: return device_set_irqs(msg);
	case Command::region_read: return region_read(msg);
	case Command::region_write: return region_write(msg);
	case Command::device_reset: return device_reset(msg);
	default: break;
	}
	log_info("%s: command %u (%s) not supported", tag(), cmd, command_name(cmd));
	return Reply::failure(ENOSYS);
}

void CommandHandler::end_session()
{
	ctx_.irqs.release_all();
	ctx_.pci.reset();
	ctx_.dma.unmap_all();
	version_done_ = false;
}

} // namespace mlx5emu::vfio_user
