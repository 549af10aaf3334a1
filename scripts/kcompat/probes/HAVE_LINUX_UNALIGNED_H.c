/* <linux/unaligned.h> (v6.12; <asm/unaligned.h> before) */
#include <linux/unaligned.h>
u16 probe_get(const void *p);
u16 probe_get(const void *p)
{
	return get_unaligned_be16(p);
}
