/* ethtool_puts() (v6.8) */
#include <linux/ethtool.h>
void probe(u8 **data);
void probe(u8 **data)
{
	ethtool_puts(data, "x");
}
