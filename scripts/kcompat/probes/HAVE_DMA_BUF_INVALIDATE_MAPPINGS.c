/*
 * dma_buf_attach_ops.move_notify became invalidate_mappings (v7.1)
 */
#include <linux/dma-buf.h>
static void probe_inv(struct dma_buf_attachment *attach)
{
}
const struct dma_buf_attach_ops probe_ops = { .invalidate_mappings = probe_inv };
