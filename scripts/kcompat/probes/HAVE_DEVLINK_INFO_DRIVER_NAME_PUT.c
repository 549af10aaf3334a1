/* the driver puts its name in devlink dev info (before v6.3; the core since) */
#include <net/devlink.h>
int probe_name(struct devlink_info_req *req);
int probe_name(struct devlink_info_req *req)
{
	return devlink_info_driver_name_put(req, "x");
}
