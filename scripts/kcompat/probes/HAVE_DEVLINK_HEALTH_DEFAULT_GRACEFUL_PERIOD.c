/* devlink_health_reporter_ops carries the grace period (v7.0) */
#include <net/devlink.h>
const struct devlink_health_reporter_ops probe_ops = { .default_graceful_period = 1 };
