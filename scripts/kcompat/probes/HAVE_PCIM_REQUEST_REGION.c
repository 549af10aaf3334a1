/* pcim_request_region() (v6.11) */
#include <linux/pci.h>
int probe(struct pci_dev *pdev);
int probe(struct pci_dev *pdev)
{
	return pcim_request_region(pdev, 0, "x");
}
