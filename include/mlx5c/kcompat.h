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
#define MLX5C_EXPORT(sym)	EXPORT_SYMBOL_NS_GPL(sym, "MLX5_CLONE")
#define MLX5C_IMPORT_NS()	MODULE_IMPORT_NS("MLX5_CLONE")
#else
#define MLX5C_NS		MLX5_CLONE
#define MLX5C_EXPORT(sym)	EXPORT_SYMBOL_NS_GPL(sym, MLX5_CLONE)
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

#endif /* MLX5C_KCOMPAT_H */
