/* BH workqueues, system_bh_wq (v6.9) */
#include <linux/workqueue.h>
void probe(struct work_struct *w);
void probe(struct work_struct *w)
{
	queue_work(system_bh_wq, w);
}
