/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API drift, in one place. The HAVE_* macros come from compile-time
 * probes (scripts/kcompat/probes/, run by `make` against the target kernel's
 * headers into kcompat_generated.h); the driver code never tests
 * LINUX_VERSION_CODE.
 */
#ifndef MLX5C_KCOMPAT_H
#define MLX5C_KCOMPAT_H

#include <linux/module.h>
#include <linux/pci.h>

#include "kcompat_generated.h"

#ifdef HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * Symbol namespace of the core -> ib interface. The string-literal probe
 * also compiles where namespaces are identifiers (6.12 stringifies them),
 * so the identifier probe decides.
 */
#if defined(HAVE_EXPORT_NS_STRING) && !defined(HAVE_EXPORT_NS_IDENT)
#define MLX5C_NS		"MLX5_CLONE"
#define MLX5C_IMPORT_NS()	MODULE_IMPORT_NS("MLX5_CLONE")
#else
#define MLX5C_NS		MLX5_CLONE
#define MLX5C_IMPORT_NS()	MODULE_IMPORT_NS(MLX5_CLONE)
#endif

/*
 * Before pcim_request_region() existed, a region requested after
 * pcim_enable_device() was device-managed already.
 */
#ifndef HAVE_PCIM_REQUEST_REGION
#define pcim_request_region(pdev, bar, name) pci_request_region(pdev, bar, name)
#endif

/* get_random_u32_below() replaced prandom_u32_max() in v6.2. */
#ifndef HAVE_GET_RANDOM_U32_BELOW
#include <linux/prandom.h>
#define get_random_u32_below(n)	prandom_u32_max(n)
#endif

#ifndef HAVE_VM_FLAGS_CLEAR
#include <linux/mm.h>
static inline void vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/* ethtool_puts() appeared in v6.8. */
#ifndef HAVE_ETHTOOL_PUTS
#include <linux/ethtool.h>
static inline void ethtool_puts(u8 **data, const char *str)
{
	strscpy(*data, str, ETH_GSTRING_LEN);
	*data += ETH_GSTRING_LEN;
}
#endif

/*
 * TX queue stop/wake helpers with BQL, <net/netdev_queues.h> since v6.3.
 * Before: stop when fewer than @stop descriptors are free, re-check after
 * a barrier (a completion may have freed some meanwhile); wake from the
 * completion side when at least @start are free. The two full barriers
 * pair: either the stopping side sees the room freed, or the completion
 * side sees the queue stopped.
 */
#ifdef HAVE_NETDEV_QUEUES_H
#include <net/netdev_queues.h>
#else
#include <linux/netdevice.h>
#undef netif_txq_maybe_stop
#undef netif_txq_completed_wake
#define netif_txq_maybe_stop(txq, free, stop, start)			\
	({								\
		int _r = 1;						\
		if (unlikely((free) < (stop))) {			\
			netif_tx_stop_queue(txq);			\
			/* the stop before @free is read again */	\
			smp_mb__after_atomic();				\
			_r = 0;						\
			if ((free) >= (start)) {			\
				netif_tx_start_queue(txq);		\
				_r = -1;				\
			}						\
		}							\
		_r;							\
	})
#define netif_txq_completed_wake(txq, pkts, bytes, free, start)	\
	({								\
		int _r = 1;						\
		netdev_tx_completed_queue(txq, pkts, bytes);		\
		if ((pkts) && (free) >= (start)) {			\
			/* the room freed before the stop is read */	\
			smp_mb();					\
			if (netif_tx_queue_stopped(txq)) {		\
				netif_tx_wake_queue(txq);		\
				_r = 0;					\
			}						\
		}							\
		_r;							\
	})
#endif

#endif /* MLX5C_KCOMPAT_H */
