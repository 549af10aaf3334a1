// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware counters (rdma statistic, ports/N/hw_counters): a Q counter set
 * of the firmware, allocated when the device is registered and named in
 * the context of every QP at RST2INIT, so that it counts the traffic and
 * errors of the device's QPs. Each function has one port, so the set is
 * the port's.
 */
#include <linux/slab.h>

#include "mlx5_ib.h"

/*
 * The counters of QUERY_Q_COUNTER the device fills, under their in-tree
 * names: the initializer of an array of X(counter), one per counter, so
 * that the names and the offsets below stay in the same order.
 */
#define MLX5C_Q_CNTS(X) {						\
	X(rx_write_requests), X(rx_read_requests), X(rx_atomic_requests), \
	X(out_of_buffer), X(out_of_sequence), X(duplicate_request),	\
	X(rnr_nak_retry_err), X(packet_seq_err), X(local_ack_timeout_err), \
	X(req_cqe_error), X(resp_cqe_error), X(req_cqe_flush_error)	\
}

#define MLX5C_Q_DESC(cnt)	{ .name = #cnt }
#define MLX5C_Q_OFF(cnt)	MLX5_BYTE_OFF(query_q_counter_out, cnt)

static const struct rdma_stat_desc mlx5c_ib_q_descs[] = MLX5C_Q_CNTS(MLX5C_Q_DESC);
static const size_t mlx5c_ib_q_offs[] = MLX5C_Q_CNTS(MLX5C_Q_OFF);

/**
 * mlx5c_ib_counters_init() - allocate the device's Q counter set
 * @dev: device, before registration
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_counters_init(struct mlx5c_ib_dev *dev)
{
	u32 out[MLX5_ST_SZ_DW(alloc_q_counter_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_q_counter_in)] = {};
	int err;

	MLX5_SET(alloc_q_counter_in, in, opcode, MLX5_CMD_OP_ALLOC_Q_COUNTER);
	err = mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, sizeof(out));
	if (!err)
		dev->q_counter = MLX5_GET(alloc_q_counter_out, out,
					  counter_set_id);
	return err;
}

/**
 * mlx5c_ib_counters_cleanup() - free the device's Q counter set
 * @dev: device, after unregistration (no QP uses the set any more)
 */
void mlx5c_ib_counters_cleanup(struct mlx5c_ib_dev *dev)
{
	u32 out[MLX5_ST_SZ_DW(dealloc_q_counter_out)] = {};
	u32 in[MLX5_ST_SZ_DW(dealloc_q_counter_in)] = {};
	int err;

	MLX5_SET(dealloc_q_counter_in, in, opcode, MLX5_CMD_OP_DEALLOC_Q_COUNTER);
	MLX5_SET(dealloc_q_counter_in, in, counter_set_id, dev->q_counter);
	err = mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, sizeof(out));
	if (err && !mlx5c_ib_gone(dev, err))
		dev_err(&dev->adev->dev, "DEALLOC_Q_COUNTER %u failed: %d\n",
			dev->q_counter, err);
}

/**
 * mlx5c_ib_alloc_hw_port_stats() - the counters of a port
 * @ibdev: device
 * @port: port number
 *
 * Return: the statistics structure, or NULL.
 */
struct rdma_hw_stats *mlx5c_ib_alloc_hw_port_stats(struct ib_device *ibdev,
						   u32 port)
{
	return rdma_alloc_hw_stats_struct(mlx5c_ib_q_descs,
					  ARRAY_SIZE(mlx5c_ib_q_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * mlx5c_ib_get_hw_stats() - read the counters of a port
 * @ibdev: device
 * @stats: statistics to fill
 * @port: port number
 * @index: the counter asked for (all are read)
 *
 * Return: the number of counters filled, or a negative errno.
 */
int mlx5c_ib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			  u32 port, int index)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibdev);
	u32 in[MLX5_ST_SZ_DW(query_q_counter_in)] = {};
	int outlen = MLX5_ST_SZ_BYTES(query_q_counter_out);
	size_t i;
	void *out;
	int err;

	out = kzalloc(outlen, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	MLX5_SET(query_q_counter_in, in, opcode, MLX5_CMD_OP_QUERY_Q_COUNTER);
	MLX5_SET(query_q_counter_in, in, counter_set_id, dev->q_counter);
	err = mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, outlen);
	if (!err)
		for (i = 0; i < ARRAY_SIZE(mlx5c_ib_q_offs); i++)
			stats->value[i] = be32_to_cpup(out + mlx5c_ib_q_offs[i]);
	kfree(out);
	return err ?: (int)ARRAY_SIZE(mlx5c_ib_q_offs);
}
