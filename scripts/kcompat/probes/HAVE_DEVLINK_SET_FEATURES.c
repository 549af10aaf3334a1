/* devlink_set_features(DEVLINK_F_RELOAD) before devlink_register() (v5.17-v6.2) */
#include <net/devlink.h>
void probe_set_features(struct devlink *devlink);
void probe_set_features(struct devlink *devlink)
{
	devlink_set_features(devlink, DEVLINK_F_RELOAD);
}
