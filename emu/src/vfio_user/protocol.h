// SPDX-License-Identifier: GPL-2.0
// vfio-user wire format: message header, command numbers and the payloads
// that are specific to vfio-user. The payloads shared with kernel VFIO
// (region/irq info, irq set, sparse mmap) come from <linux/vfio.h>.
// All integers are host-endian (little-endian on x86).
#pragma once

#include <linux/vfio.h>

#include <cstddef>
#include <cstdint>

namespace mlx5emu::vfio_user {

enum class Command : uint16_t {
	version = 1,
	dma_map = 2,
	dma_unmap = 3,
	device_get_info = 4,
	device_get_region_info = 5,
	device_get_region_io_fds = 6,
	device_get_irq_info = 7,
	device_set_irqs = 8,
	region_read = 9,
	region_write = 10,
	dma_read = 11,
	dma_write = 12,
	device_reset = 13,
	region_write_multi = 15,
	device_feature = 16,
	mig_data_read = 17,
	mig_data_write = 18,
};

const char *command_name(uint16_t command);

struct MessageHeader {
	uint16_t msg_id;
	uint16_t command;
	uint32_t size;  // whole message, header included
	uint32_t flags; // type in bits 0-3, NO_REPLY, ERROR
	uint32_t error; // errno, valid with kFlagError
};
static_assert(sizeof(MessageHeader) == 16);

inline constexpr uint32_t kFlagTypeMask = 0xf;
inline constexpr uint32_t kTypeCommand = 0;
inline constexpr uint32_t kTypeReply = 1;
inline constexpr uint32_t kFlagNoReply = 0x10;
inline constexpr uint32_t kFlagError = 0x20;

// What this server advertises in VERSION and enforces.
inline constexpr unsigned kMaxMsgFds = 16;
inline constexpr uint32_t kMaxDataXferSize = 1u << 20;
// Largest message accepted: a REGION_WRITE of kMaxDataXferSize bytes.
inline constexpr uint32_t kMaxMessageSize = sizeof(MessageHeader) + 16 + kMaxDataXferSize;
inline constexpr uint32_t kMaxDmaMaps = 65535;

struct VersionPayload {
	uint16_t major;
	uint16_t minor;
	// followed by NUL-terminated JSON
};
static_assert(sizeof(VersionPayload) == 4);

struct DmaMapPayload {
	uint32_t argsz;
	uint32_t flags; // kDmaMapRead | kDmaMapWrite
	uint64_t offset; // into the fd
	uint64_t address; // IOVA
	uint64_t size;
};
static_assert(sizeof(DmaMapPayload) == 32);
inline constexpr uint32_t kDmaMapRead = 1u << 0;
inline constexpr uint32_t kDmaMapWrite = 1u << 1;

struct DmaUnmapPayload {
	uint32_t argsz;
	uint32_t flags; // VFIO_DMA_UNMAP_FLAG_ALL
	uint64_t address;
	uint64_t size;
};
static_assert(sizeof(DmaUnmapPayload) == 24);

// vfio-user's DEVICE_GET_INFO payload: the first 16 bytes of the kernel's
// struct vfio_device_info (no cap_offset).
struct DeviceInfoPayload {
	uint32_t argsz;
	uint32_t flags;
	uint32_t num_regions;
	uint32_t num_irqs;
};
static_assert(sizeof(DeviceInfoPayload) == 16);

static_assert(sizeof(vfio_region_info) == 32);
static_assert(sizeof(vfio_irq_info) == 16);
static_assert(sizeof(vfio_irq_set) == 20);
static_assert(sizeof(vfio_region_info_cap_sparse_mmap) == 16);
static_assert(sizeof(vfio_region_sparse_mmap_area) == 16);

// REGION_READ / REGION_WRITE: this header, then count data bytes (in the
// write request and the read reply).
struct RegionAccessPayload {
	uint64_t offset;
	uint32_t region;
	uint32_t count;
};
static_assert(sizeof(RegionAccessPayload) == 16);

inline constexpr uint32_t kNumRegions = VFIO_PCI_NUM_REGIONS; // 9: BAR0-5, ROM, CONFIG, VGA
inline constexpr uint32_t kNumIrqs = VFIO_PCI_NUM_IRQS;       // 5: INTx, MSI, MSI-X, ERR, REQ
static_assert(kNumRegions == 9 && kNumIrqs == 5);

} // namespace mlx5emu::vfio_user
