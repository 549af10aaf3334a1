// SPDX-License-Identifier: GPL-2.0
/*
 * MSI-X vectors. Vector 0 is the control vector (command, async and page
 * EQs); vectors 1..n carry one completion EQ each, pinned to one CPU. With
 * a single vector everything shares vector 0. Each vector has a notifier
 * chain the EQs hang on.
 */
#include <linux/cpumask.h>
#include <linux/interrupt.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "mlx5_core.h"

static irqreturn_t mlx5c_irq_handler(int irqn, void *data)
{
	struct mlx5c_irq *irq = data;

	atomic_notifier_call_chain(&irq->nh, 0, NULL);
	return IRQ_HANDLED;
}

static void irq_name(struct mlx5c_dev *mdev, int i, char *buf, size_t len)
{
	if (mdev->num_vectors == 1)
		snprintf(buf, len, "mlx5_combined0@pci:%s", pci_name(mdev->pdev));
	else if (i == 0)
		snprintf(buf, len, "mlx5_async0@pci:%s", pci_name(mdev->pdev));
	else
		snprintf(buf, len, "mlx5_comp%d@pci:%s", i - 1, pci_name(mdev->pdev));
}

/**
 * mlx5c_irqs_alloc() - allocate and request the MSI-X vectors
 * @mdev: core device
 * @want: vectors wanted (1 control + completion vectors)
 *
 * Return: 0 or a negative errno; mdev->num_vectors holds the number of
 * vectors obtained (at least 1).
 */
int mlx5c_irqs_alloc(struct mlx5c_dev *mdev, int want)
{
	struct pci_dev *pdev = mdev->pdev;
	int nvec, i, err;

	nvec = pci_msix_vec_count(pdev);
	if (nvec < 0) {
		dev_err(&pdev->dev, "no MSI-X capability: %d\n", nvec);
		return nvec;
	}
	want = clamp(want, 1, nvec);
	nvec = pci_alloc_irq_vectors(pdev, 1, want, PCI_IRQ_MSIX);
	if (nvec < 0) {
		dev_err(&pdev->dev, "MSI-X allocation failed: %d\n", nvec);
		return nvec;
	}
	mdev->irqs = kcalloc(nvec, sizeof(*mdev->irqs), GFP_KERNEL);
	if (!mdev->irqs) {
		pci_free_irq_vectors(pdev);
		return -ENOMEM;
	}
	mdev->num_vectors = nvec;

	for (i = 0; i < nvec; i++) {
		struct mlx5c_irq *irq = &mdev->irqs[i];

		ATOMIC_INIT_NOTIFIER_HEAD(&irq->nh);
		irq->index = i;
		irq->irqn = pci_irq_vector(pdev, i);
		irq_name(mdev, i, irq->name, sizeof(irq->name));
		err = request_irq(irq->irqn, mlx5c_irq_handler, 0, irq->name, irq);
		if (err) {
			dev_err(&pdev->dev, "request_irq %s failed: %d\n", irq->name, err);
			goto err_free;
		}
		if (i > 0) {
			int cpu = cpumask_local_spread(i - 1, dev_to_node(&pdev->dev));

			irq_set_affinity_and_hint(irq->irqn, cpumask_of(cpu));
		}
	}
	return 0;

err_free:
	while (--i >= 0) {
		irq_update_affinity_hint(mdev->irqs[i].irqn, NULL);
		free_irq(mdev->irqs[i].irqn, &mdev->irqs[i]);
	}
	kfree(mdev->irqs);
	mdev->irqs = NULL;
	mdev->num_vectors = 0;
	pci_free_irq_vectors(pdev);
	return err;
}

/**
 * mlx5c_irqs_free() - release every MSI-X vector
 * @mdev: core device whose EQs are gone
 */
void mlx5c_irqs_free(struct mlx5c_dev *mdev)
{
	int i;

	if (!mdev->irqs)
		return;
	for (i = 0; i < mdev->num_vectors; i++) {
		irq_update_affinity_hint(mdev->irqs[i].irqn, NULL);
		free_irq(mdev->irqs[i].irqn, &mdev->irqs[i]);
	}
	kfree(mdev->irqs);
	mdev->irqs = NULL;
	mdev->num_vectors = 0;
	pci_free_irq_vectors(mdev->pdev);
}
