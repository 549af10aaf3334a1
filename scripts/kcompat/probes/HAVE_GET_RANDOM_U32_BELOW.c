/* get_random_u32_below() (v6.2) */
#include <linux/random.h>
u32 probe(u32 n);
u32 probe(u32 n)
{
	return get_random_u32_below(n);
}
