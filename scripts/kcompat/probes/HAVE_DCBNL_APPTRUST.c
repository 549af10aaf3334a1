/* dcbnl_rtnl_ops.dcbnl_setapptrust/getapptrust, DCB_APP_SEL_PCP (after 6.1) */
#include <net/dcbnl.h>
static int probe_setapptrust(struct net_device *dev, u8 *sel, int nsel)
{
	return sel[0] == DCB_APP_SEL_PCP ? 0 : nsel;
}
const struct dcbnl_rtnl_ops probe_ops = { .dcbnl_setapptrust = probe_setapptrust };
