// SPDX-License-Identifier: GPL-2.0
/*
 * The device clock as user space sees it: a free-running counter at
 * device_frequency_khz, the internal timer of the initialization segment.
 * Every successful CQE carries its count; the provider reads the counter
 * itself (ibv_query_rt_values_ex) from the page of the initialization
 * segment that holds it, mapped read-only into the process.
 *
 * For wall-clock timestamps the provider converts counts to nanoseconds
 * of CLOCK_REALTIME with the clock-info page, which the driver shares
 * read-only with every process: a (count, time) pair taken together and
 * the rate as mult / 2^shift ns per count, refreshed every
 * MLX5C_IB_CLOCK_REFRESH so that the device clock and the system's real
 * time cannot drift apart for long. A refresh makes "sign" odd while it
 * writes, so that a reader retries a torn copy.
 */
#include <linux/clocksource.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/timekeeping.h>

#include "mlx5_ib.h"

/* The internal timer, big-endian high then low word, in BAR 0. */
#define MLX5C_IB_INTERNAL_TIMER	0x1000
#define MLX5C_IB_CLOCK_REFRESH	HZ

/* The clock-info page as the provider reads it (MLX5_IB_CLOCK_INFO_V1). */
struct mlx5c_ib_clock_info {
	u32 sign;
	u32 resv;
	u64 nsec;
	u64 cycles;
	u64 frac;
	u32 mult;
	u32 shift;
	u64 mask;
	u64 overflow_period;
};

/*
 * The device timer (an MMIO read, slow on a busy or emulated device) and
 * the wall clock are read first; only the stores are published under the
 * odd sign, with preemption off. rdma-core's reader retries a few times
 * while the sign is odd, then fails ibv_start_poll() with EBUSY (seen once
 * in a loaded CI run, ours only: the odd window then held the timer read).
 */
static void mlx5c_ib_clock_refresh(struct mlx5c_ib_dev *dev)
{
	struct mlx5c_ib_clock_info *ci = dev->clock_info;
	u64 cycles = mlx5c_internal_timer(dev->mdev);
	u64 nsec = ktime_get_real_ns();
	u32 sign;

	preempt_disable();
	sign = READ_ONCE(ci->sign) | MLX5_IB_CLOCK_INFO_KERNEL_UPDATING;
	WRITE_ONCE(ci->sign, sign);
	smp_wmb(); /* readers see the odd sign before the new values */
	ci->cycles = cycles;
	ci->nsec = nsec;
	ci->frac = 0;
	/* the new values before the even sign that makes them valid */
	smp_store_release(&ci->sign, sign + 1);
	preempt_enable();
}

static void mlx5c_ib_clock_work(struct work_struct *work)
{
	struct mlx5c_ib_dev *dev = container_of(to_delayed_work(work),
						struct mlx5c_ib_dev,
						clock_work);

	mlx5c_ib_clock_refresh(dev);
	schedule_delayed_work(&dev->clock_work, MLX5C_IB_CLOCK_REFRESH);
}

static bool mlx5c_ib_has_clock(struct mlx5c_ib_dev *dev)
{
	return MLX5C_IB_CAP(dev, device_frequency_khz);
}

/**
 * mlx5c_ib_clock_init() - start the clock-info page of a device
 * @dev: device; nothing to do without a clock
 *
 * Return: 0 or -ENOMEM.
 */
int mlx5c_ib_clock_init(struct mlx5c_ib_dev *dev)
{
	struct mlx5c_ib_clock_info *ci;
	u32 khz = MLX5C_IB_CAP(dev, device_frequency_khz);

	if (!khz)
		return 0;
	ci = (void *)get_zeroed_page(GFP_KERNEL);
	if (!ci)
		return -ENOMEM;
	/* Counts of 10 s between refreshes must not overflow delta * mult. */
	clocks_calc_mult_shift(&ci->mult, &ci->shift, khz * 1000ULL,
			       NSEC_PER_SEC, 10);
	ci->mask = U64_MAX;
	ci->overflow_period = jiffies_to_nsecs(MLX5C_IB_CLOCK_REFRESH);
	dev->clock_info = ci;
	mlx5c_ib_clock_refresh(dev);
	INIT_DELAYED_WORK(&dev->clock_work, mlx5c_ib_clock_work);
	schedule_delayed_work(&dev->clock_work, MLX5C_IB_CLOCK_REFRESH);
	return 0;
}

/**
 * mlx5c_ib_clock_cleanup() - stop and free the clock-info page
 * @dev: device
 *
 * Processes that still map the page keep it until they unmap it.
 */
void mlx5c_ib_clock_cleanup(struct mlx5c_ib_dev *dev)
{
	if (!dev->clock_info)
		return;
	cancel_delayed_work_sync(&dev->clock_work);
	free_page((unsigned long)dev->clock_info);
	dev->clock_info = NULL;
}

/**
 * mlx5c_ib_clock_attrs() - the clock facts of query_device
 * @dev: device
 * @props: attributes (out): timestamp mask and clock rate in kHz
 */
void mlx5c_ib_clock_attrs(struct mlx5c_ib_dev *dev,
			  struct ib_device_attr *props)
{
	if (!mlx5c_ib_has_clock(dev))
		return;
	/* 64 bits, of which software may rely on 63 not to wrap. */
	props->timestamp_mask = GENMASK_ULL(62, 0);
	props->hca_core_clock = MLX5C_IB_CAP(dev, device_frequency_khz);
}

/**
 * mlx5c_ib_clock_resp() - the clock part of the ucontext response
 * @dev: device
 * @resp: response (out): where in its page the counter is
 */
void mlx5c_ib_clock_resp(struct mlx5c_ib_dev *dev,
			 struct mlx5_ib_alloc_ucontext_resp *resp)
{
	if (!mlx5c_ib_has_clock(dev))
		return;
	resp->comp_mask |= MLX5_IB_ALLOC_UCONTEXT_RESP_MASK_CORE_CLOCK_OFFSET;
	resp->hca_core_clock_offset = MLX5C_IB_INTERNAL_TIMER & ~PAGE_MASK;
	if (dev->clock_info)
		resp->clock_info_versions = BIT(MLX5_IB_CLOCK_INFO_V1);
}

/**
 * mlx5c_ib_clock_cq_ok() - may a CQ ask for completion timestamps
 * @dev: device
 *
 * Return: true if the device stamps its CQEs.
 */
bool mlx5c_ib_clock_cq_ok(struct mlx5c_ib_dev *dev)
{
	return mlx5c_ib_has_clock(dev);
}

/**
 * mlx5c_ib_mmap_clock() - map the page holding the internal timer
 * @uctx: user context
 * @vma: one page, read-only
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_mmap_clock(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct mlx5c_ib_dev *dev = to_mdev(uctx->device);
	phys_addr_t phys;

	if (!mlx5c_ib_has_clock(dev))
		return -EOPNOTSUPP;
	if (vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
	phys = pci_resource_start(dev->pdev, 0) +
	       (MLX5C_IB_INTERNAL_TIMER & PAGE_MASK);
	return rdma_user_mmap_io(uctx, vma, PHYS_PFN(phys), PAGE_SIZE,
				 pgprot_noncached(vma->vm_page_prot), NULL);
}

/**
 * mlx5c_ib_mmap_clock_info() - map the clock-info page
 * @uctx: user context
 * @vma: one page, read-only
 * @version: the layout version asked for
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_mmap_clock_info(struct ib_ucontext *uctx,
			     struct vm_area_struct *vma, unsigned long version)
{
	struct mlx5c_ib_dev *dev = to_mdev(uctx->device);

	if (!dev->clock_info)
		return -EOPNOTSUPP;
	if (version != MLX5_IB_CLOCK_INFO_V1 ||
	    vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
	return vm_insert_page(vma, vma->vm_start,
			      virt_to_page(dev->clock_info));
}
