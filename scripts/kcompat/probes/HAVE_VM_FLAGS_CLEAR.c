/* vm_flags_clear() (v6.3; vm_flags was written directly before) */
#include <linux/mm.h>
void probe_clear(struct vm_area_struct *vma);
void probe_clear(struct vm_area_struct *vma)
{
	vm_flags_clear(vma, VM_MAYWRITE);
}
