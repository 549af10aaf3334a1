// SPDX-License-Identifier: GPL-2.0
/*
 * Test harness, not product: shows the guest the SR-IOV capability of an
 * emulated PF served over vfio-user (Documentation/emulator.md, "SR-IOV").
 *
 * QEMU drops the SR-IOV extended capability from the chain of a
 * vfio-user-pci device but passes its registers through to mlx5-emu, and
 * the emulator serves the PF's VFs as functions 1..TotalVFs of the PF's
 * slot from boot. Loaded with pf=DDDD:BB:DD.0, this module wraps the
 * config accessors of the PF's bus:
 *  - the PF's extended capability header (0x100) reads as SR-IOV v1, the
 *    last capability;
 *  - the VF functions read as absent unless VF Enable is set and they are
 *    among the first NumVFs;
 *  - when VF Enable and VF MSE are set, each VF's BARs are programmed from
 *    the PF's VF BARs (the kernel never writes a VF's BARs) and its memory
 *    decode is turned on; when they clear, both are undone.
 * Then the PF and its VF functions are removed (the VFs' BARs and memory
 * decode cleared, as with VF Enable clear) and the bus rescanned, so
 * that pci_iov_init() finds the capability. Unloading disables SR-IOV,
 * removes the PF, restores the accessors and rescans again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/pci.h>

#define SHIM_SRIOV_POS	0x100
#define SHIM_MAX_VFS	7

static char *pf;
module_param(pf, charp, 0444);
MODULE_PARM_DESC(pf, "the PF, DDDD:BB:DD.0");

static struct pci_bus *shim_bus;
static struct pci_ops *shim_orig_ops;
static unsigned int shim_pf_devfn;
static u16 shim_total_vfs;
static u64 shim_vf_bar_size[PCI_SRIOV_NUM_BARS];
static bool shim_vf_bar_64[PCI_SRIOV_NUM_BARS];
/* VFs that read as present: NumVFs while VF Enable is set, else 0. */
static unsigned int shim_visible;
static bool shim_decode;	/* VF MSE (with VF Enable) programmed into the VFs */

static int orig_read(unsigned int devfn, int where, int size, u32 *val)
{
	return shim_orig_ops->read(shim_bus, devfn, where, size, val);
}

static int orig_write(unsigned int devfn, int where, int size, u32 val)
{
	return shim_orig_ops->write(shim_bus, devfn, where, size, val);
}

static u32 pf_read(int where, int size)
{
	u32 v = 0;

	orig_read(shim_pf_devfn, where, size, &v);
	return v;
}

/* VF number (0-based) of devfn, or -1 when devfn is not a VF slot. */
static int vf_of(unsigned int devfn)
{
	if (PCI_SLOT(devfn) != PCI_SLOT(shim_pf_devfn) || devfn == shim_pf_devfn)
		return -1;
	return PCI_FUNC(devfn) - 1;
}

static void program_vf(unsigned int vf, bool on)
{
	unsigned int devfn = shim_pf_devfn + 1 + vf;
	int i, reg;
	u64 base;
	u32 cmd;

	orig_read(devfn, PCI_COMMAND, 2, &cmd);
	cmd &= ~PCI_COMMAND_MEMORY;
	if (!on)
		orig_write(devfn, PCI_COMMAND, 2, cmd);
	for (i = 0; i < PCI_SRIOV_NUM_BARS; i++) {
		if (!shim_vf_bar_size[i])
			continue;
		reg = SHIM_SRIOV_POS + PCI_SRIOV_BAR + 4 * i;
		base = pf_read(reg, 4) & PCI_BASE_ADDRESS_MEM_MASK;
		if (shim_vf_bar_64[i])
			base |= (u64)pf_read(reg + 4, 4) << 32;
		base += shim_vf_bar_size[i] * vf;
		if (!on)
			base = 0;
		orig_write(devfn, PCI_BASE_ADDRESS_0 + 4 * i, 4, lower_32_bits(base));
		if (shim_vf_bar_64[i])
			orig_write(devfn, PCI_BASE_ADDRESS_0 + 4 * (i + 1), 4, upper_32_bits(base));
	}
	if (on)
		orig_write(devfn, PCI_COMMAND, 2, cmd | PCI_COMMAND_MEMORY);
}

/* After a write to the PF's SR-IOV control or NumVFs: follow the device. */
static void sriov_changed(void)
{
	u16 ctrl = pf_read(SHIM_SRIOV_POS + PCI_SRIOV_CTRL, 2);
	u16 num = pf_read(SHIM_SRIOV_POS + PCI_SRIOV_NUM_VF, 2);
	bool decode = (ctrl & PCI_SRIOV_CTRL_VFE) && (ctrl & PCI_SRIOV_CTRL_MSE);
	unsigned int n = (ctrl & PCI_SRIOV_CTRL_VFE) ? min(num, shim_total_vfs) : 0;
	unsigned int vf;

	if (decode != shim_decode) {
		for (vf = 0; vf < (decode ? n : shim_visible); vf++)
			program_vf(vf, decode);
		shim_decode = decode;
	}
	WRITE_ONCE(shim_visible, n);
}

static int shim_read(struct pci_bus *bus, unsigned int devfn, int where, int size, u32 *val)
{
	int vf = vf_of(devfn);
	u32 hdr;

	if (vf >= 0 && vf >= READ_ONCE(shim_visible)) {
		PCI_SET_ERROR_RESPONSE(val);
		return PCIBIOS_DEVICE_NOT_FOUND;
	}
	if (devfn == shim_pf_devfn && where >= SHIM_SRIOV_POS && where < SHIM_SRIOV_POS + 4) {
		hdr = PCI_EXT_CAP_ID_SRIOV | 1 << 16;
		*val = (hdr >> (8 * (where - SHIM_SRIOV_POS))) &
		       (size == 4 ? ~0u : (1u << (8 * size)) - 1);
		return PCIBIOS_SUCCESSFUL;
	}
	return shim_orig_ops->read(bus, devfn, where, size, val);
}

static int shim_write(struct pci_bus *bus, unsigned int devfn, int where, int size, u32 val)
{
	int vf = vf_of(devfn);
	int ctl = SHIM_SRIOV_POS + PCI_SRIOV_CTRL;
	int num = SHIM_SRIOV_POS + PCI_SRIOV_NUM_VF;
	int rc;

	if (vf >= 0 && vf >= READ_ONCE(shim_visible))
		return PCIBIOS_DEVICE_NOT_FOUND;
	if (devfn == shim_pf_devfn && where >= SHIM_SRIOV_POS && where < SHIM_SRIOV_POS + 4)
		return PCIBIOS_SUCCESSFUL;	/* the header is read-only */
	/* A VF's memory decode follows VF MSE, not its command register. */
	if (vf >= 0 && where == PCI_COMMAND && READ_ONCE(shim_decode))
		val |= PCI_COMMAND_MEMORY;
	rc = shim_orig_ops->write(bus, devfn, where, size, val);
	if (devfn == shim_pf_devfn && ((where <= ctl + 1 && ctl < where + size) ||
				       (where <= num + 1 && num < where + size)))
		sriov_changed();
	return rc;
}

static struct pci_ops shim_ops = {
	.read = shim_read,
	.write = shim_write,
};

/* The per-VF size of each VF BAR, as software sizes a BAR. */
static void size_vf_bars(void)
{
	int i, reg;
	u32 lo, hi, mask_lo, mask_hi;

	for (i = 0; i < PCI_SRIOV_NUM_BARS; i++) {
		reg = SHIM_SRIOV_POS + PCI_SRIOV_BAR + 4 * i;
		lo = pf_read(reg, 4);
		orig_write(shim_pf_devfn, reg, 4, ~0u);
		mask_lo = pf_read(reg, 4) & PCI_BASE_ADDRESS_MEM_MASK;
		orig_write(shim_pf_devfn, reg, 4, lo);
		shim_vf_bar_64[i] = (lo & PCI_BASE_ADDRESS_MEM_TYPE_MASK) == PCI_BASE_ADDRESS_MEM_TYPE_64 &&
				    i + 1 < PCI_SRIOV_NUM_BARS;
		mask_hi = ~0u;
		if (shim_vf_bar_64[i]) {
			hi = pf_read(reg + 4, 4);
			orig_write(shim_pf_devfn, reg + 4, 4, ~0u);
			mask_hi = pf_read(reg + 4, 4);
			orig_write(shim_pf_devfn, reg + 4, 4, hi);
		}
		if (mask_lo || (shim_vf_bar_64[i] && mask_hi))
			shim_vf_bar_size[i] = ~((u64)mask_hi << 32 | mask_lo) + 1;
		if (shim_vf_bar_size[i])
			pr_info("VF BAR%d: %llu bytes per VF%s\n", i, shim_vf_bar_size[i],
				shim_vf_bar_64[i] ? ", 64-bit" : "");
		if (shim_vf_bar_64[i])
			i++;
	}
}

/* The PF's slot as it is: every function gone, then the bus scanned. */
static int remove_slot(void)
{
	struct pci_dev *dev;
	int fn;

	for (fn = 7; fn >= 0; fn--) {
		dev = pci_get_slot(shim_bus, shim_pf_devfn + fn);
		if (!dev)
			continue;
		if (dev->dev.driver) {
			pr_err("%s is bound to %s: unbind it first\n", pci_name(dev), dev->dev.driver->name);
			pci_dev_put(dev);
			return -EBUSY;
		}
		pci_dev_put(dev);
	}
	for (fn = 7; fn >= 0; fn--) {
		dev = pci_get_slot(shim_bus, shim_pf_devfn + fn);
		if (!dev)
			continue;
		pci_stop_and_remove_bus_device(dev);
		pci_dev_put(dev);
	}
	return 0;
}

static int __init shim_init(void)
{
	unsigned int domain, busnr, slot, fn, vf;
	struct pci_dev *dev;
	u32 hdr;
	int rc;

	if (!pf || sscanf(pf, "%x:%x:%x.%x", &domain, &busnr, &slot, &fn) != 4 || fn || slot > 31) {
		pr_err("pf=DDDD:BB:DD.0 needed (function 0 of its slot)\n");
		return -EINVAL;
	}
	dev = pci_get_domain_bus_and_slot(domain, busnr, PCI_DEVFN(slot, 0));
	if (!dev) {
		pr_err("no PCI function %s\n", pf);
		return -ENODEV;
	}
	shim_bus = dev->bus;
	shim_pf_devfn = dev->devfn;
	shim_orig_ops = shim_bus->ops;
	pci_dev_put(dev);

	/* The capability's body must be there, and its header hidden. */
	hdr = pf_read(SHIM_SRIOV_POS, 4);
	shim_total_vfs = pf_read(SHIM_SRIOV_POS + PCI_SRIOV_TOTAL_VF, 2);
	if (hdr || !shim_total_vfs || shim_total_vfs > SHIM_MAX_VFS ||
	    pf_read(SHIM_SRIOV_POS + PCI_SRIOV_VF_OFFSET, 2) != 1 ||
	    pf_read(SHIM_SRIOV_POS + PCI_SRIOV_VF_STRIDE, 2) != 1) {
		pr_err("%s: no hidden SR-IOV capability at 0x%x (header %08x, TotalVFs %u)\n", pf,
		       SHIM_SRIOV_POS, hdr, shim_total_vfs);
		return -ENODEV;
	}
	size_vf_bars();

	pci_lock_rescan_remove();
	rc = remove_slot();
	if (!rc) {
		/* As on a device: no VF decodes while VF Enable is clear. */
		for (vf = 0; vf < shim_total_vfs; vf++)
			program_vf(vf, false);
		shim_visible = 0;
		pci_bus_set_ops(shim_bus, &shim_ops);
		pci_rescan_bus(shim_bus);
	}
	pci_unlock_rescan_remove();
	if (!rc)
		pr_info("%s: SR-IOV capability shown, TotalVFs %u\n", pf, shim_total_vfs);
	return rc;
}

static void __exit shim_exit(void)
{
	struct pci_dev *dev;

	pci_lock_rescan_remove();
	dev = pci_get_slot(shim_bus, shim_pf_devfn);
	if (dev) {
		device_release_driver(&dev->dev);
		if (pci_num_vf(dev))
			pci_disable_sriov(dev);
		pci_stop_and_remove_bus_device(dev);
		pci_dev_put(dev);
	}
	pci_bus_set_ops(shim_bus, shim_orig_ops);
	pci_rescan_bus(shim_bus);
	pci_unlock_rescan_remove();
	pr_info("%s: accessors restored\n", pf);
}

module_init(shim_init);
module_exit(shim_exit);
MODULE_DESCRIPTION("mlx5-clone test harness: SR-IOV capability of an emulated vfio-user PF");
MODULE_LICENSE("GPL");
