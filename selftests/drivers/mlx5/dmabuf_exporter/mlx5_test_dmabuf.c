// SPDX-License-Identifier: GPL-2.0
/*
 * A test-only DMA-BUF exporter for the mlx5-clone selftests: buffers of
 * its own pages, exported dynamically (a pin op, so importers may attach
 * without pinning and are told when the buffer moves). /dev/mlx5_test_dmabuf
 * takes the ioctls of mlx5_test_dmabuf.h: CREATE a buffer, READ and WRITE
 * its content, MOVE it to new pages, and the STATE of its importers
 * (attachments, pins, mapped scatter lists, moves).
 *
 * A move, under the buffer's reservation lock: refused (EBUSY) while an
 * importer pins the buffer; otherwise every importer is told first
 * (dma_buf_invalidate_mappings(): it must stop the device's accesses and
 * unmap), the fences importers may have added are waited for, and the
 * content is copied to newly allocated pages, which the next
 * dma_buf_map_attachment() hands out. A mapped scatter list holds its own
 * reference on each of its pages, so an importer that unmaps late never
 * sees freed memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mlx5_test_dmabuf.h"

MODULE_IMPORT_NS("DMA_BUF");

#define TDB_MAX_SIZE	(64UL << 20)
#define TDB_MAX_RW	(1UL << 20)

struct tdb {
	struct dma_buf *dmabuf;
	unsigned long npages;
	struct page **pages;	/* the current backing: dmabuf->resv */
	atomic_t attachments, pins, mappings, moves;
};

static void tdb_put_pages(struct page **pages, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		if (pages[i])
			put_page(pages[i]);
	kvfree(pages);
}

static struct page **tdb_alloc_pages(unsigned long n)
{
	struct page **pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL);
	unsigned long i;

	if (!pages)
		return NULL;
	for (i = 0; i < n; i++) {
		pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!pages[i]) {
			tdb_put_pages(pages, n);
			return NULL;
		}
	}
	return pages;
}

static int tdb_attach(struct dma_buf *dmabuf, struct dma_buf_attachment *attach)
{
	struct tdb *b = dmabuf->priv;

	atomic_inc(&b->attachments);
	return 0;
}

static void tdb_detach(struct dma_buf *dmabuf, struct dma_buf_attachment *attach)
{
	struct tdb *b = dmabuf->priv;

	atomic_dec(&b->attachments);
}

static int tdb_pin(struct dma_buf_attachment *attach)
{
	struct tdb *b = attach->dmabuf->priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	atomic_inc(&b->pins);
	return 0;
}

static void tdb_unpin(struct dma_buf_attachment *attach)
{
	struct tdb *b = attach->dmabuf->priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	atomic_dec(&b->pins);
}

static struct sg_table *tdb_map(struct dma_buf_attachment *attach,
				enum dma_data_direction dir)
{
	struct tdb *b = attach->dmabuf->priv;
	struct sg_page_iter it;
	struct sg_table *sgt;
	int err;

	dma_resv_assert_held(attach->dmabuf->resv);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	err = sg_alloc_table_from_pages(sgt, b->pages, b->npages, 0,
					b->npages << PAGE_SHIFT, GFP_KERNEL);
	if (err)
		goto err_free;
	err = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (err)
		goto err_table;
	for_each_sgtable_page(sgt, &it, 0)
		get_page(sg_page_iter_page(&it));
	atomic_inc(&b->mappings);
	return sgt;

err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(err);
}

static void tdb_unmap(struct dma_buf_attachment *attach, struct sg_table *sgt,
		      enum dma_data_direction dir)
{
	struct tdb *b = attach->dmabuf->priv;
	struct sg_page_iter it;

	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	for_each_sgtable_page(sgt, &it, 0)
		put_page(sg_page_iter_page(&it));
	sg_free_table(sgt);
	kfree(sgt);
	atomic_dec(&b->mappings);
}

static void tdb_release(struct dma_buf *dmabuf)
{
	struct tdb *b = dmabuf->priv;

	tdb_put_pages(b->pages, b->npages);
	kfree(b);
}

static const struct dma_buf_ops tdb_ops = {
	.attach = tdb_attach,
	.detach = tdb_detach,
	.pin = tdb_pin,
	.unpin = tdb_unpin,
	.map_dma_buf = tdb_map,
	.unmap_dma_buf = tdb_unmap,
	.release = tdb_release,
};

static long tdb_create(struct mlx5_test_dmabuf_create __user *uarg)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct mlx5_test_dmabuf_create c;
	struct dma_buf *dmabuf;
	struct tdb *b;
	int fd;

	if (copy_from_user(&c, uarg, sizeof(c)))
		return -EFAULT;
	if (!c.size || c.size > TDB_MAX_SIZE || !PAGE_ALIGNED(c.size))
		return -EINVAL;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->npages = c.size >> PAGE_SHIFT;
	b->pages = tdb_alloc_pages(b->npages);
	if (!b->pages) {
		kfree(b);
		return -ENOMEM;
	}
	info.ops = &tdb_ops;
	info.size = c.size;
	info.flags = O_RDWR;
	info.priv = b;
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf)) {
		tdb_put_pages(b->pages, b->npages);
		kfree(b);
		return PTR_ERR(dmabuf);
	}
	b->dmabuf = dmabuf;
	fd = dma_buf_fd(dmabuf, O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(dmabuf);	/* releases b */
		return fd;
	}
	c.fd = fd;
	if (copy_to_user(uarg, &c, sizeof(c)))
		return -EFAULT;	/* the fd stays: the process owns it */
	return 0;
}

/* The buffer behind fd, referenced; an ERR_PTR when fd is no buffer of ours. */
static struct dma_buf *tdb_get(int fd)
{
	struct dma_buf *dmabuf = dma_buf_get(fd);

	if (IS_ERR(dmabuf))
		return dmabuf;
	if (dmabuf->ops != &tdb_ops) {
		dma_buf_put(dmabuf);
		return ERR_PTR(-EINVAL);
	}
	return dmabuf;
}

static long tdb_move(int __user *uarg)
{
	struct dma_buf *dmabuf;
	struct page **pages;
	unsigned long i;
	struct tdb *b;
	long err = 0;
	int fd;

	if (get_user(fd, uarg))
		return -EFAULT;
	dmabuf = tdb_get(fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	b = dmabuf->priv;
	pages = tdb_alloc_pages(b->npages);
	if (!pages) {
		dma_buf_put(dmabuf);
		return -ENOMEM;
	}
	dma_resv_lock(dmabuf->resv, NULL);
	if (atomic_read(&b->pins)) {
		err = -EBUSY;
		goto unlock;
	}
	/* The importers stop and unmap, then the old pages hold still. */
	dma_buf_invalidate_mappings(dmabuf);
	dma_resv_wait_timeout(dmabuf->resv, DMA_RESV_USAGE_BOOKKEEP, false,
			      MAX_SCHEDULE_TIMEOUT);
	for (i = 0; i < b->npages; i++)
		copy_highpage(pages[i], b->pages[i]);
	swap(pages, b->pages);
	atomic_inc(&b->moves);
unlock:
	dma_resv_unlock(dmabuf->resv);
	tdb_put_pages(pages, b->npages);
	dma_buf_put(dmabuf);
	return err;
}

/* Between the buffer and a bounce buffer, under the reservation lock. */
static void tdb_copy(struct tdb *b, u64 off, void *buf, size_t len, bool write)
{
	while (len) {
		unsigned long i = off >> PAGE_SHIFT;
		size_t in = offset_in_page(off), n = min_t(size_t, len, PAGE_SIZE - in);
		void *p = kmap_local_page(b->pages[i]);

		if (write)
			memcpy(p + in, buf, n);
		else
			memcpy(buf, p + in, n);
		kunmap_local(p);
		off += n;
		buf += n;
		len -= n;
	}
}

/*
 * No user memory is touched under the reservation lock: importers take it
 * inside mmap_lock (page faults), so the data goes through a bounce buffer.
 */
static long tdb_rw(struct mlx5_test_dmabuf_rw __user *uarg, bool write)
{
	struct mlx5_test_dmabuf_rw rw;
	struct dma_buf *dmabuf;
	void __user *ptr;
	long err = 0;
	void *buf;

	if (copy_from_user(&rw, uarg, sizeof(rw)))
		return -EFAULT;
	if (!rw.len || rw.len > TDB_MAX_RW)
		return -EINVAL;
	ptr = u64_to_user_ptr(rw.ptr);
	dmabuf = tdb_get(rw.fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	if (rw.offset > dmabuf->size || rw.len > dmabuf->size - rw.offset) {
		err = -EINVAL;
		goto put;
	}
	buf = kvmalloc(rw.len, GFP_KERNEL);
	if (!buf) {
		err = -ENOMEM;
		goto put;
	}
	if (write && copy_from_user(buf, ptr, rw.len)) {
		err = -EFAULT;
		goto free;
	}
	dma_resv_lock(dmabuf->resv, NULL);
	tdb_copy(dmabuf->priv, rw.offset, buf, rw.len, write);
	dma_resv_unlock(dmabuf->resv);
	if (!write && copy_to_user(ptr, buf, rw.len))
		err = -EFAULT;
free:
	kvfree(buf);
put:
	dma_buf_put(dmabuf);
	return err;
}

static long tdb_state(struct mlx5_test_dmabuf_state __user *uarg)
{
	struct mlx5_test_dmabuf_state s;
	struct dma_buf *dmabuf;
	struct tdb *b;

	if (copy_from_user(&s, uarg, sizeof(s)))
		return -EFAULT;
	dmabuf = tdb_get(s.fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	b = dmabuf->priv;
	s.attachments = atomic_read(&b->attachments);
	s.pins = atomic_read(&b->pins);
	s.mappings = atomic_read(&b->mappings);
	s.moves = atomic_read(&b->moves);
	dma_buf_put(dmabuf);
	return copy_to_user(uarg, &s, sizeof(s)) ? -EFAULT : 0;
}

static long tdb_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case MLX5_TEST_DMABUF_CREATE:
		return tdb_create(uarg);
	case MLX5_TEST_DMABUF_MOVE:
		return tdb_move(uarg);
	case MLX5_TEST_DMABUF_READ:
		return tdb_rw(uarg, false);
	case MLX5_TEST_DMABUF_WRITE:
		return tdb_rw(uarg, true);
	case MLX5_TEST_DMABUF_STATE:
		return tdb_state(uarg);
	}
	return -ENOTTY;
}

static const struct file_operations tdb_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = tdb_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice tdb_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "mlx5_test_dmabuf",
	.fops = &tdb_fops,
};

module_misc_device(tdb_dev);

MODULE_DESCRIPTION("Test-only dynamic DMA-BUF exporter for mlx5-clone's selftests");
MODULE_LICENSE("GPL");
