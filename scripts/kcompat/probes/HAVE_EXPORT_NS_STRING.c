/* Symbol namespaces are string literals (v6.13) */
#include <linux/module.h>
int probe_sym(void);
int probe_sym(void)
{
	return 0;
}
EXPORT_SYMBOL_NS_GPL(probe_sym, "PROBE_NS");
