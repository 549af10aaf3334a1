// SPDX-License-Identifier: GPL-2.0
/*
 * mlx5_ib of mlx5-clone: RDMA driver bound to mlx5_core's "rdma"
 * auxiliary devices. This file holds the device: its attributes, the
 * ib_device_ops table, asynchronous events and registration.
 */
#include <linux/auxiliary_bus.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>
#include <linux/sysfs.h>
#include <rdma/ib_verbs.h>

#include "mlx5_ib.h"

MODULE_DESCRIPTION("mlx5-clone InfiniBand driver for ConnectX adapters");
MODULE_LICENSE("GPL");
MLX5C_IMPORT_NS();

/*
 * 8-byte CAS and FETCH_ADD on operands in host byte order: the device
 * must support both operations on 8 bytes and, on a little-endian host,
 * run in the host-endianness mode mlx5_core selected. Otherwise the
 * results would be byte-swapped, so atomics are not offered.
 */
#define MLX5C_ATOMIC_OPS_CMP_SWAP	BIT(0)	/* atomic_caps.atomic_operations */
#define MLX5C_ATOMIC_OPS_FETCH_ADD	BIT(1)

static enum ib_atomic_cap mlx5c_ib_atomic_cap(struct mlx5c_ib_dev *dev)
{
	const void *a = mlx5c_hca_cap(dev->mdev, MLX5_CAP_ATOMIC, false);
	u32 ops = MLX5C_ATOMIC_OPS_CMP_SWAP | MLX5C_ATOMIC_OPS_FETCH_ADD;

	if (!MLX5C_IB_CAP(dev, atomic) || !a)
		return IB_ATOMIC_NONE;
	if ((MLX5_GET(atomic_caps, a, atomic_operations) & ops) != ops ||
	    !(MLX5_GET(atomic_caps, a, atomic_size_qp) &
	      MLX5_ATOMIC_CAPS_ATOMIC_SIZE_QP_8_BYTES))
		return IB_ATOMIC_NONE;
	if (!IS_ENABLED(CONFIG_CPU_BIG_ENDIAN) &&
	    MLX5_GET(atomic_caps, a, atomic_req_8B_endianness_mode) != 1)
		return IB_ATOMIC_NONE;
	return IB_ATOMIC_HCA;
}

/**
 * mlx5c_ib_query_device() - device attributes
 * @ibdev: RDMA device
 * @props: attributes (out)
 * @udata: driver data of an extended query; we define none
 *
 * Every limit is derived from the general capabilities so that the
 * numbers agree with the ones alloc_ucontext hands to the provider.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
			  struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibdev);
	u32 max_rq_sg, max_sq_sg;
	u16 maj, min, sub;

	/* No driver request is defined; a non-empty one must be zero. */
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;

	memset(props, 0, sizeof(*props));
	mlx5c_fw_version(dev->mdev, &maj, &min, &sub);
	props->fw_ver = (u64)maj << 32 | (u64)min << 16 | sub;
	props->sys_image_guid = dev->sys_image_guid;
	props->max_mr_size = mlx5c_ib_max_mr_size(dev);
	props->page_size_cap = ~((1ULL << MLX5C_IB_CAP(dev, log_pg_sz)) - 1);
	props->vendor_id = MLX5C_IB_VENDOR_ID;
	props->vendor_part_id = dev->pdev->device;
	props->hw_ver = dev->pdev->revision;

	props->device_cap_flags = IB_DEVICE_CHANGE_PHY_PORT |
				  IB_DEVICE_PORT_ACTIVE_EVENT |
				  IB_DEVICE_SYS_IMAGE_GUID |
				  IB_DEVICE_RC_RNR_NAK_GEN;
	if (MLX5C_IB_CAP(dev, pkv))
		props->device_cap_flags |= IB_DEVICE_BAD_PKEY_CNTR;
	if (MLX5C_IB_CAP(dev, qkv))
		props->device_cap_flags |= IB_DEVICE_BAD_QKEY_CNTR;
	if (MLX5C_IB_CAP(dev, xrc))
		props->device_cap_flags |= IB_DEVICE_XRC;
	if (MLX5C_IB_CAP(dev, block_lb_mc))
		props->kernel_cap_flags |= IBK_BLOCK_MULTICAST_LOOPBACK;
	if (mlx5c_dev_is_vf(dev->mdev))
		props->kernel_cap_flags |= IBK_VIRTUAL_FUNCTION;
	/* Fast registration and local invalidation by UMR (umr.c). */
	if (mlx5c_ib_umr_supported(dev)) {
		props->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
		props->max_fast_reg_page_list_len = MLX5C_IB_FRWR_MAX_PAGES;
	}
	/* Windows bound by UMR WQEs from user QPs (mw.c). */
	if (mlx5c_ib_mw_supported(dev)) {
		props->device_cap_flags |= IB_DEVICE_MEM_WINDOW |
					   IB_DEVICE_MEM_WINDOW_TYPE_2B;
		props->max_mw = 1 << MLX5C_IB_CAP(dev, log_max_mkey);
	}

	max_rq_sg = dev->max_rq_desc / MLX5C_IB_DATA_SEG;
	max_sq_sg = (dev->max_sq_desc - MLX5C_IB_CTRL_SEG - MLX5C_IB_RADDR_SEG) /
		    MLX5C_IB_DATA_SEG;
	props->max_send_sge = max_sq_sg;
	props->max_recv_sge = max_rq_sg;
	props->max_sge_rd = max_sq_sg;
	props->max_qp = 1 << MLX5C_IB_CAP(dev, log_max_qp);
	/*
	 * The SQ limit is in 64-byte basic blocks; a default RC send WQE
	 * (control, UMR and address overhead plus one SGE) takes four. Report
	 * the WRs of that size that fit, so that a QP sized with max_qp_wr can
	 * be created.
	 */
	props->max_qp_wr = (1 << MLX5C_IB_CAP(dev, log_max_qp_sz)) / 4;
	props->max_cq = 1 << MLX5C_IB_CAP(dev, log_max_cq);
	props->max_cqe = (1 << MLX5C_IB_CAP(dev, log_max_cq_sz)) - 1;
	props->max_mr = 1 << MLX5C_IB_CAP(dev, log_max_mkey);
	props->max_pd = 1 << MLX5C_IB_CAP(dev, log_max_pd);
	/* As responder (max_dest_rd_atomic) and as initiator (max_rd_atomic). */
	props->max_qp_rd_atom = 1 << MLX5C_IB_CAP(dev, log_max_ra_res_qp);
	props->max_qp_init_rd_atom = 1 << MLX5C_IB_CAP(dev, log_max_ra_req_qp);
	props->max_res_rd_atom = props->max_qp_rd_atom * props->max_qp;
	props->max_srq = 1 << MLX5C_IB_CAP(dev, log_max_srq);
	props->max_srq_wr = (1 << MLX5C_IB_CAP(dev, log_max_srq_sz)) - 1;
	props->max_srq_sge = max_rq_sg - 1;
	props->local_ca_ack_delay = MLX5C_IB_CAP(dev, local_ca_ack_delay);
	props->max_pkeys = dev->port[0].pkey_tbl_len;
	props->atomic_cap = mlx5c_ib_atomic_cap(dev);
	props->masked_atomic_cap = IB_ATOMIC_NONE;
	props->max_ah = INT_MAX;
	props->max_dm_size = mlx5c_ib_dm_max_size(dev);
	if (MLX5C_IB_CAP(dev, cq_moderation)) {
		props->cq_caps.max_cq_moderation_count = U16_MAX;
		props->cq_caps.max_cq_moderation_period = MLX5C_MAX_CQ_PERIOD;
	}
	mlx5c_ib_clock_attrs(dev, props);
	/* Multicast groups as the device reports them (mcast.c). */
	if (MLX5C_IB_CAP(dev, max_qp_mcg)) {
		props->max_mcast_grp = 1 << MLX5C_IB_CAP(dev, log_max_mcg);
		props->max_mcast_qp_attach = MLX5C_IB_CAP(dev, max_qp_mcg);
		props->max_total_mcast_qp_attach = props->max_mcast_grp *
						   props->max_mcast_qp_attach;
	}
	return 0;
}

static void mlx5c_ib_fw_str(struct ib_device *ibdev, char *str)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibdev);
	u16 maj, min, sub;

	mlx5c_fw_version(dev->mdev, &maj, &min, &sub);
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%04u", maj, min, sub);
}

static ssize_t hw_rev_show(struct device *device, struct device_attribute *attr,
			   char *buf)
{
	struct mlx5c_ib_dev *dev =
		rdma_device_to_drv_device(device, struct mlx5c_ib_dev, ib);

	return sysfs_emit(buf, "%x\n", dev->pdev->revision);
}
static DEVICE_ATTR_RO(hw_rev);

static ssize_t hca_type_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	struct mlx5c_ib_dev *dev =
		rdma_device_to_drv_device(device, struct mlx5c_ib_dev, ib);

	return sysfs_emit(buf, "MT%d\n", dev->pdev->device);
}
static DEVICE_ATTR_RO(hca_type);

static ssize_t board_id_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	struct mlx5c_ib_dev *dev =
		rdma_device_to_drv_device(device, struct mlx5c_ib_dev, ib);

	return sysfs_emit(buf, "%.*s\n", 16, mlx5c_board_id(dev->mdev));
}
static DEVICE_ATTR_RO(board_id);

static struct attribute *mlx5c_ib_attrs[] = {
	&dev_attr_hw_rev.attr,
	&dev_attr_hca_type.attr,
	&dev_attr_board_id.attr,
	NULL,
};

static const struct attribute_group mlx5c_ib_attr_group = {
	.attrs = mlx5c_ib_attrs,
};

static void mlx5c_ib_port_event(struct mlx5c_ib_dev *dev,
				const struct mlx5_eqe *eqe)
{
	struct ib_event ev = { .device = &dev->ib };
	u32 port = (eqe->data.port.port >> 4) & 0xf;

	switch (eqe->sub_type) {
	case MLX5_PORT_CHANGE_SUBTYPE_DOWN:
		ev.event = IB_EVENT_PORT_ERR;
		break;
	case MLX5_PORT_CHANGE_SUBTYPE_ACTIVE:
		ev.event = IB_EVENT_PORT_ACTIVE;
		break;
	case MLX5_PORT_CHANGE_SUBTYPE_INITIALIZED:
	case MLX5_PORT_CHANGE_SUBTYPE_LID:
		ev.event = IB_EVENT_LID_CHANGE;
		break;
	case MLX5_PORT_CHANGE_SUBTYPE_PKEY:
		ev.event = IB_EVENT_PKEY_CHANGE;
		break;
	case MLX5_PORT_CHANGE_SUBTYPE_GUID:
		ev.event = IB_EVENT_GID_CHANGE;
		break;
	case MLX5_PORT_CHANGE_SUBTYPE_CLIENT_REREG:
		ev.event = IB_EVENT_CLIENT_REREGISTER;
		break;
	default:
		return;
	}
	if (port < 1 || port > dev->num_ports)
		return;
	/*
	 * An Ethernet port's state is its netdev's: ib_core (or netdev.c on
	 * older kernels) reports it from the netdev's events.
	 */
	if (dev->roce)
		return;
	ev.element.port_num = port;
	ib_dispatch_event(&ev);
}

/* Tell ib_core, once, that the device entered the internal-error state. */
static void mlx5c_ib_fatal(struct mlx5c_ib_dev *dev)
{
	struct ib_event ev = {
		.device = &dev->ib,
		.event = IB_EVENT_DEVICE_FATAL,
		.element.port_num = 1,
	};

	if (!xchg(&dev->fatal, true)) {
		ib_dispatch_event(&ev);
		/* Flush completions for what the kernel consumers posted. */
		mlx5c_ib_dead_kick(dev);
	}
}

/*
 * Asynchronous events of the device. Runs in hard-IRQ context (or in a
 * workqueue for MLX5C_EVENT_*): QP and SRQ handlers take references, no
 * sleeping. Registered only while the ib_device is: ib_dispatch_event()
 * queues work that uses the device's event handlers and GID cache, which
 * exist only between ib_register_device() and ib_unregister_device().
 */
static int mlx5c_ib_event(struct notifier_block *nb, unsigned long action,
			  void *data)
{
	struct mlx5c_ib_dev *dev = container_of(nb, struct mlx5c_ib_dev,
						event_nb);
	const struct mlx5_eqe *eqe = data;
	u32 num;

	switch (action) {
	case MLX5C_EVENT_DEVICE_ERROR:
		mlx5c_ib_fatal(dev);
		return NOTIFY_OK;
	case MLX5_EVENT_TYPE_PORT_CHANGE:
		mlx5c_ib_port_event(dev, eqe);
		return NOTIFY_OK;
	case MLX5_EVENT_TYPE_PATH_MIG:
	case MLX5_EVENT_TYPE_COMM_EST:
	case MLX5_EVENT_TYPE_SQ_DRAINED:
	case MLX5_EVENT_TYPE_SRQ_LAST_WQE:
	case MLX5_EVENT_TYPE_WQ_CATAS_ERROR:
	case MLX5_EVENT_TYPE_PATH_MIG_FAILED:
	case MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR:
	case MLX5_EVENT_TYPE_WQ_ACCESS_ERROR:
		num = be32_to_cpu(eqe->data.qp_srq.qp_srq_n) & 0xffffff;
		if (eqe->data.qp_srq.type == MLX5_EVENT_QUEUE_TYPE_QP)
			mlx5c_ib_qp_event(dev, num, action);
		return NOTIFY_OK;
	case MLX5_EVENT_TYPE_DCT_DRAINED:
	case MLX5_EVENT_TYPE_DCT_KEY_VIOLATION:
		num = be32_to_cpu(eqe->data.dct.dctn) & 0xffffff;
		mlx5c_ib_qp_event(dev, num, action);
		return NOTIFY_OK;
	case MLX5_EVENT_TYPE_SRQ_RQ_LIMIT:
	case MLX5_EVENT_TYPE_SRQ_CATAS_ERROR:
		num = be32_to_cpu(eqe->data.qp_srq.qp_srq_n) & 0xffffff;
		mlx5c_ib_srq_event(dev, num, action);
		return NOTIFY_OK;
	default:
		return NOTIFY_DONE;
	}
}

static struct ib_mr *mlx5c_ib_reg_user_mr_op(struct ib_pd *pd, u64 start,
					     u64 length, u64 iova, int access,
					     MLX5C_REG_MR_DMAH_ARG
					     struct ib_udata *udata)
{
#ifdef HAVE_REG_USER_MR_DMAH
	if (dmah)
		return ERR_PTR(-EOPNOTSUPP);
#endif
	return mlx5c_ib_reg_user_mr(pd, start, length, iova, access, udata);
}

static struct ib_mr *mlx5c_ib_reg_user_mr_dmabuf_op(struct ib_pd *pd,
						    u64 offset, u64 length,
						    u64 iova, int fd,
						    int access,
						    MLX5C_REG_MR_DMAH_ARG
						    MLX5C_DMABUF_MR_CALL)
{
#ifdef HAVE_REG_USER_MR_DMAH
	if (dmah)
		return ERR_PTR(-EOPNOTSUPP);
#endif
	return mlx5c_ib_reg_user_mr_dmabuf(pd, offset, length, iova, fd,
					   access, MLX5C_DMABUF_MR_UDATA);
}

static const struct ib_device_ops mlx5c_ib_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_MLX5,
	.uverbs_abi_ver = MLX5_IB_UVERBS_ABI_VERSION,

	.query_device = mlx5c_ib_query_device,
	.get_dev_fw_str = mlx5c_ib_fw_str,
	.query_port = mlx5c_ib_query_port,
#ifdef HAVE_QUERY_PORT_SPEED
	.query_port_speed = mlx5c_ib_query_port_speed,
#endif
	.get_port_immutable = mlx5c_ib_port_immutable,
	.get_link_layer = mlx5c_ib_link_layer,
	.query_gid = mlx5c_ib_query_gid,
	.query_pkey = mlx5c_ib_query_pkey,
	.process_mad = mlx5c_ib_process_mad,
	.modify_port = mlx5c_ib_modify_port,
	.modify_device = mlx5c_ib_modify_device,
	.alloc_hw_port_stats = mlx5c_ib_alloc_hw_port_stats,
	.get_hw_stats = mlx5c_ib_get_hw_stats,
	.device_group = &mlx5c_ib_attr_group,

	.alloc_ucontext = mlx5c_ib_alloc_ucontext,
	.dealloc_ucontext = mlx5c_ib_dealloc_ucontext,
	.query_ucontext = mlx5c_ib_query_ucontext,
	.mmap = mlx5c_ib_mmap,
	.mmap_free = mlx5c_ib_mmap_free,
	.disassociate_ucontext = mlx5c_ib_disassociate_ucontext,

	.alloc_pd = mlx5c_ib_alloc_pd,
	.dealloc_pd = mlx5c_ib_dealloc_pd,

	.reg_user_mr = mlx5c_ib_reg_user_mr_op,
	.reg_user_mr_dmabuf = mlx5c_ib_reg_user_mr_dmabuf_op,
	.rereg_user_mr = mlx5c_ib_rereg_user_mr,
	.dereg_mr = mlx5c_ib_dereg_mr,
	.alloc_dm = mlx5c_ib_alloc_dm,
	.dealloc_dm = mlx5c_ib_dealloc_dm,
	.reg_dm_mr = mlx5c_ib_reg_dm_mr,

	.get_dma_mr = mlx5c_ib_get_dma_mr,
	.alloc_mr = mlx5c_ib_alloc_mr,
	.map_mr_sg = mlx5c_ib_map_mr_sg,
	.alloc_mw = mlx5c_ib_alloc_mw,
	.dealloc_mw = mlx5c_ib_dealloc_mw,

	.create_cq = mlx5c_ib_create_cq_op,
#ifdef HAVE_CREATE_USER_CQ
	.create_user_cq = mlx5c_ib_create_cq,
#endif
	.destroy_cq = mlx5c_ib_destroy_cq,
	.modify_cq = mlx5c_ib_modify_cq,
#ifdef HAVE_RESIZE_USER_CQ
	.resize_user_cq = mlx5c_ib_resize_cq,
#else
	.resize_cq = mlx5c_ib_resize_cq_op,
#endif
	.poll_cq = mlx5c_ib_poll_cq,
	.req_notify_cq = mlx5c_ib_req_notify_cq,

	.create_qp = mlx5c_ib_create_qp,
	.modify_qp = mlx5c_ib_modify_qp,
	.query_qp = mlx5c_ib_query_qp,
	.destroy_qp = mlx5c_ib_destroy_qp,
	.post_send = mlx5c_ib_post_send,
	.post_recv = mlx5c_ib_post_recv,

	.alloc_xrcd = mlx5c_ib_alloc_xrcd,
	.dealloc_xrcd = mlx5c_ib_dealloc_xrcd,

	.create_srq = mlx5c_ib_create_srq,
	.post_srq_recv = mlx5c_ib_post_srq_recv,
	.modify_srq = mlx5c_ib_modify_srq,
	.query_srq = mlx5c_ib_query_srq,
	.destroy_srq = mlx5c_ib_destroy_srq,

	.attach_mcast = mlx5c_ib_attach_mcast,
	.detach_mcast = mlx5c_ib_detach_mcast,

	.create_ah = mlx5c_ib_create_ah,
	.create_user_ah = mlx5c_ib_create_ah,
	.query_ah = mlx5c_ib_query_ah,
	.destroy_ah = mlx5c_ib_destroy_ah,

	INIT_RDMA_OBJ_SIZE(ib_ucontext, mlx5c_ib_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_pd, mlx5c_ib_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_cq, mlx5c_ib_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_qp, mlx5c_ib_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, mlx5c_ib_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, mlx5c_ib_xrcd, ibxrcd),
	INIT_RDMA_OBJ_SIZE(ib_ah, mlx5c_ib_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_mw, mlx5c_ib_mw, ibmw),
};

/* The GID table of an Ethernet port is ib_core's, written through to
 * the firmware's (roce.c).
 */
static const struct ib_device_ops mlx5c_ib_roce_ops = {
	.add_gid = mlx5c_ib_add_gid,
	.del_gid = mlx5c_ib_del_gid,
};

/* Limits that both query_device and the user-context response use. */
static int mlx5c_ib_dev_caps(struct mlx5c_ib_dev *dev)
{
	dev->roce = MLX5C_IB_CAP(dev, port_type) == MLX5_CAP_PORT_TYPE_ETH;
	dev->num_ports = clamp_t(u8, MLX5C_IB_CAP(dev, num_ports), 1,
				 MLX5C_IB_MAX_PORTS);
	dev->cqe_version = min_t(u8, MLX5C_IB_CAP(dev, cqe_version), 1);
	/* The control segment counts WQE size in 16-byte units, in 6 bits. */
	dev->max_sq_wqe = min_t(u32, MLX5C_IB_CAP(dev, max_wqe_sz_sq),
				63 * MLX5C_IB_DATA_SEG);
	dev->max_sq_desc = min_t(u32, dev->max_sq_wqe, 512);
	dev->max_rq_desc = MLX5C_IB_CAP(dev, max_wqe_sz_rq);
	if (dev->max_sq_desc < 256 || dev->max_rq_desc < MLX5C_IB_DATA_SEG * 2) {
		dev_err(&dev->adev->dev, "WQE size limits too small: sq %u rq %u\n",
			dev->max_sq_desc, dev->max_rq_desc);
		return -EINVAL;
	}
	return 0;
}

static int mlx5c_ib_probe(struct auxiliary_device *adev,
			  const struct auxiliary_device_id *id)
{
	struct mlx5c_dev *mdev = to_mlx5c_adev(adev)->mdev;
	struct mlx5c_ib_dev *dev;
	int err;

	dev = ib_alloc_device(mlx5c_ib_dev, ib);
	if (!dev)
		return -ENOMEM;
	dev->mdev = mdev;
	dev->pdev = mlx5c_pdev(mdev);
	dev->adev = adev;
	dev->uar = mlx5c_kernel_uar_map(mdev);
	dev->uar_index = mlx5c_kernel_uar_index(mdev);
	mutex_init(&dev->cap_mask_mutex);
	mlx5c_ib_dead_init(dev);
	xa_init_flags(&dev->qps, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->srqs, XA_FLAGS_LOCK_IRQ);
	atomic_set(&dev->mkey_variant, 0);
	mutex_init(&dev->orphans_lock);
	INIT_LIST_HEAD(&dev->orphans);
	mlx5c_ib_umr_init(dev);

	err = mlx5c_ib_dev_caps(dev);
	if (err)
		goto err_dealloc;
	mlx5c_ib_dm_init(dev);
	err = mlx5c_ib_port_init(dev);
	if (err)
		goto err_dealloc;
	if (dev->roce) {
		err = mlx5c_ib_roce_init(dev);
		if (err)
			goto err_dealloc;
	}
	err = mlx5c_ib_query_node(dev, &dev->ib.node_guid,
				  &dev->sys_image_guid,
				  dev->ib.node_desc);
	if (err)
		goto err_dealloc;

	dev->ib.node_type = RDMA_NODE_IB_CA;
	dev->ib.phys_port_cnt = dev->num_ports;
	dev->ib.num_comp_vectors = mlx5c_comp_vectors(mdev);
	if (dev->ib.num_comp_vectors < 1) {
		err = -EINVAL;
		goto err_dealloc;
	}
	dev->ib.dev.parent = &dev->pdev->dev;
	ib_set_device_ops(&dev->ib, &mlx5c_ib_dev_ops);
	if (dev->roce)
		ib_set_device_ops(&dev->ib, &mlx5c_ib_roce_ops);
	mlx5c_ib_sriov_init(dev);
	dev->ib.driver_def = mlx5c_ib_uapi_defs;
	err = mlx5c_ib_counters_init(dev);
	if (err)
		goto err_roce;
	mlx5c_ib_xrc_init(dev);
	err = mlx5c_ib_clock_init(dev);
	if (err)
		goto err_counters;
	if (dev->roce) {
		err = mlx5c_ib_netdev_init(dev);
		if (err)
			goto err_clock;
	}

	err = ib_register_device(&dev->ib, "mlx5_%d", &dev->pdev->dev);
	if (err)
		goto err_netdev;
	rtnl_lock();
	dev->ib_registered = true;
	rtnl_unlock();
	mlx5c_ib_umr_start(dev);

	dev->event_nb.notifier_call = mlx5c_ib_event;
	err = mlx5c_event_register(mdev, &dev->event_nb);
	if (err)
		goto err_unregister;
	/* A device that failed before we listened. */
	if (mlx5c_dev_is_error(mdev))
		mlx5c_ib_fatal(dev);

	auxiliary_set_drvdata(adev, dev);
	dev_info(&adev->dev, "registered %s on %s\n", dev_name(&dev->ib.dev),
		 pci_name(dev->pdev));
	return 0;

err_unregister:
	rtnl_lock();
	dev->ib_registered = false;
	rtnl_unlock();
	ib_unregister_device(&dev->ib);
	mlx5c_ib_umr_cleanup(dev);
err_netdev:
	if (dev->roce)
		mlx5c_ib_netdev_cleanup(dev);
err_clock:
	mlx5c_ib_clock_cleanup(dev);
err_counters:
	mlx5c_ib_xrc_cleanup(dev);
	mlx5c_ib_orphans_release(dev);
	mlx5c_ib_counters_cleanup(dev);
err_roce:
	if (dev->roce)
		mlx5c_ib_roce_cleanup(dev);
err_dealloc:
	mlx5c_ib_dead_cleanup(dev);
	mutex_destroy(&dev->orphans_lock);
	ib_dealloc_device(&dev->ib);
	return err;
}

static void mlx5c_ib_remove(struct auxiliary_device *adev)
{
	struct mlx5c_ib_dev *dev = auxiliary_get_drvdata(adev);

	/*
	 * No event reaches ib_core after this (the unregister waits for
	 * running notifiers); destroys see the internal-error state through
	 * mlx5c_dev_is_error().
	 */
	mlx5c_event_unregister(dev->mdev, &dev->event_nb);
	rtnl_lock();
	dev->ib_registered = false;
	rtnl_unlock();
	/* Destroys every user object through the driver's ops. */
	ib_unregister_device(&dev->ib);
	mlx5c_ib_umr_cleanup(dev);
	if (dev->roce)
		mlx5c_ib_netdev_cleanup(dev);
	mlx5c_ib_xrc_cleanup(dev);
	mlx5c_ib_orphans_release(dev);
	mlx5c_ib_clock_cleanup(dev);
	mlx5c_ib_counters_cleanup(dev);
	if (dev->roce)
		mlx5c_ib_roce_cleanup(dev);
	mlx5c_ib_dead_cleanup(dev);
	WARN_ON(!xa_empty(&dev->qps));
	WARN_ON(!xa_empty(&dev->srqs));
	xa_destroy(&dev->qps);
	xa_destroy(&dev->srqs);
	mutex_destroy(&dev->orphans_lock);
	ib_dealloc_device(&dev->ib);
}

static const struct auxiliary_device_id mlx5c_ib_id_table[] = {
	{ .name = MLX5C_CORE_DRV_NAME "." MLX5C_AUX_RDMA_NAME },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, mlx5c_ib_id_table);

static struct auxiliary_driver mlx5c_ib_driver = {
	.name = "rdma",
	.probe = mlx5c_ib_probe,
	.remove = mlx5c_ib_remove,
	.id_table = mlx5c_ib_id_table,
};
module_auxiliary_driver(mlx5c_ib_driver);
