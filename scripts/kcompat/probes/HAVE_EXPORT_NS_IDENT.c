/*
 * Symbol namespaces are bare identifiers (before v6.13): the string form
 * compiles on those kernels too, so only this probe tells them apart.
 */
#include <linux/module.h>
MODULE_IMPORT_NS(PROBE_NS);
