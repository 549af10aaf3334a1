/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bottom halves for completion dispatch: a BH work item on system_bh_wq
 * where the kernel has BH workqueues (v6.9; tasklets are deprecated), a
 * tasklet before that.
 */
#ifndef MLX5C_BH_H
#define MLX5C_BH_H

#include <linux/interrupt.h>
#include <linux/workqueue.h>
#include <mlx5c/kcompat.h>

/**
 * struct mlx5c_bh - a bottom half running one function
 * @fn: the function
 * @work: BH work item
 * @tasklet: tasklet, on kernels without BH workqueues
 */
struct mlx5c_bh {
	void (*fn)(struct mlx5c_bh *bh);
#ifdef HAVE_SYSTEM_BH_WQ
	struct work_struct work;
#else
	struct tasklet_struct tasklet;
#endif
};

#ifdef HAVE_SYSTEM_BH_WQ
static inline void mlx5c_bh_run(struct work_struct *work)
{
	struct mlx5c_bh *bh = container_of(work, struct mlx5c_bh, work);

	bh->fn(bh);
}

static inline void mlx5c_bh_init(struct mlx5c_bh *bh, void (*fn)(struct mlx5c_bh *))
{
	bh->fn = fn;
	INIT_WORK(&bh->work, mlx5c_bh_run);
}

static inline void mlx5c_bh_schedule(struct mlx5c_bh *bh)
{
	queue_work(system_bh_wq, &bh->work);
}

static inline void mlx5c_bh_kill(struct mlx5c_bh *bh)
{
	cancel_work_sync(&bh->work);
}
#else
static inline void mlx5c_bh_run(struct tasklet_struct *t)
{
	struct mlx5c_bh *bh = container_of(t, struct mlx5c_bh, tasklet);

	bh->fn(bh);
}

static inline void mlx5c_bh_init(struct mlx5c_bh *bh, void (*fn)(struct mlx5c_bh *))
{
	bh->fn = fn;
	tasklet_setup(&bh->tasklet, mlx5c_bh_run);
}

static inline void mlx5c_bh_schedule(struct mlx5c_bh *bh)
{
	tasklet_schedule(&bh->tasklet);
}

static inline void mlx5c_bh_kill(struct mlx5c_bh *bh)
{
	tasklet_kill(&bh->tasklet);
}
#endif

#endif /* MLX5C_BH_H */
