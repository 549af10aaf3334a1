/* <net/netdev_queues.h> with netif_txq_completed_wake() (v6.3) */
#include <net/netdev_queues.h>
int probe(struct netdev_queue *txq, unsigned int room);
int probe(struct netdev_queue *txq, unsigned int room)
{
	return netif_txq_maybe_stop(txq, room, 1, 1) +
	       netif_txq_completed_wake(txq, 1, 1, room, 1);
}
