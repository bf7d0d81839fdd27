// SPDX-License-Identifier: GPL-2.0
/*
 * npusim NPU accel driver: PCI probe and removal, the DRM accel device, its ioctls, the interrupt
 * and debugfs.
 *
 * The NPU is found at one PCI function. On the npusim virtual platform that function is QEMU's
 * ivshmem-doorbell (1af4:1110) served by `npusim vp serve`, and registers travel through a mailbox
 * (npusim_hw.c); on silicon they would be BAR0 MMIO. The match table's driver_data picks the
 * transport; nothing else in the driver knows which one it runs on.
 */

#include <linux/bitfield.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include <drm/drm_accel.h>
#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>

#include <uapi/drm/npusim_accel.h>

#include "npusim_drv.h"

#define PCI_VENDOR_ID_REDHAT_QUMRANET_IVSHMEM 0x1af4
#define PCI_DEVICE_ID_IVSHMEM 0x1110

static int npusim_get_param_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct npusim_device *ndev = to_npusim_device(drm);
	struct drm_npusim_get_param *args = data;

	if (args->pad)
		return -EINVAL;
	switch (args->param) {
	case DRM_NPUSIM_PARAM_NPU_ID:
		args->value = ndev->id;
		break;
	case DRM_NPUSIM_PARAM_VERSION:
		args->value = ndev->version;
		break;
	case DRM_NPUSIM_PARAM_CONFIG:
		args->value = ndev->config;
		break;
	case DRM_NPUSIM_PARAM_CONFIG2:
		args->value = ndev->config2;
		break;
	case DRM_NPUSIM_PARAM_SRAM_KIB:
		args->value = ndev->sram_kib;
		break;
	case DRM_NPUSIM_PARAM_CAPS:
		args->value = ndev->caps;
		break;
	case DRM_NPUSIM_PARAM_CHANNELS:
		args->value = ndev->channels;
		break;
	case DRM_NPUSIM_PARAM_DRAM_BYTES:
		args->value = ndev->dram_bytes;
		break;
	case DRM_NPUSIM_PARAM_WEIGHT_MEM_BASE:
		args->value = ndev->weight_base;
		break;
	case DRM_NPUSIM_PARAM_WEIGHT_MEM_BYTES:
		args->value = ndev->weight_bytes;
		break;
	case DRM_NPUSIM_PARAM_TRANSPORT:
		args->value = ndev->ops == &npusim_transport_vp;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

static int npusim_open(struct drm_device *drm, struct drm_file *file)
{
	struct npusim_file *nfile = kzalloc(sizeof(*nfile), GFP_KERNEL);

	if (!nfile)
		return -ENOMEM;
	nfile->ndev = to_npusim_device(drm);
	xa_init_flags(&nfile->jobs, XA_FLAGS_ALLOC1);
	file->driver_priv = nfile;
	return 0;
}

static void npusim_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct npusim_file *nfile = file->driver_priv;

	npusim_file_jobs_fini(nfile);
	kfree(nfile);
}

static const struct drm_ioctl_desc npusim_ioctls[] = {
	DRM_IOCTL_DEF_DRV(NPUSIM_GET_PARAM, npusim_get_param_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPUSIM_BO_CREATE, npusim_bo_create_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPUSIM_SUBMIT, npusim_submit_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPUSIM_WAIT, npusim_wait_ioctl, 0),
};

DEFINE_DRM_ACCEL_FOPS(npusim_fops);

static const struct drm_driver npusim_driver = {
	.driver_features = DRIVER_GEM | DRIVER_COMPUTE_ACCEL,
	.open = npusim_open,
	.postclose = npusim_postclose,
	.ioctls = npusim_ioctls,
	.num_ioctls = ARRAY_SIZE(npusim_ioctls),
	.fops = &npusim_fops,
	.name = NPUSIM_DRIVER_NAME,
	.desc = "npusim NPU",
	.major = 1,
	.minor = 0,
};

/* The hard half only wakes the thread: on the VP a register access sleeps. */
static irqreturn_t npusim_irq(int irq, void *arg)
{
	return IRQ_WAKE_THREAD;
}

static irqreturn_t npusim_irq_thread(int irq, void *arg)
{
	npusim_irq_work(arg);
	return IRQ_HANDLED;
}

/* debugfs: registers */
struct npusim_reg_name {
	const char *name;
	u32 offset;
};

#define NPUSIM_REG(r) { #r, NPUSIM_##r }
static const struct npusim_reg_name npusim_global_regs[] = {
	NPUSIM_REG(NPU_ID), NPUSIM_REG(NPU_VERSION), NPUSIM_REG(NPU_CONFIG),
	NPUSIM_REG(NPU_SRAM_KIB), NPUSIM_REG(IRQ_STATUS), NPUSIM_REG(IRQ_MASK),
	NPUSIM_REG(NPU_CONFIG2), NPUSIM_REG(CYCLE_LO), NPUSIM_REG(CYCLE_HI),
	NPUSIM_REG(WEIGHT_MEM_BASE_MIB), NPUSIM_REG(WEIGHT_MEM_MIB), NPUSIM_REG(DRAM_MIB),
	NPUSIM_REG(NPU_CAPS), NPUSIM_REG(THERM_TEMP), NPUSIM_REG(THERM_TRIP_STATUS),
	NPUSIM_REG(PWR_POWER_MW), NPUSIM_REG(DVFS_OPP), NPUSIM_REG(DVFS_STATUS),
};

static const struct npusim_reg_name npusim_channel_regs[] = {
	NPUSIM_REG(CH_CMD_BASE_LO), NPUSIM_REG(CH_CMD_BASE_HI), NPUSIM_REG(CH_CMD_COUNT),
	NPUSIM_REG(CH_STATUS), NPUSIM_REG(CH_PROGRESS), NPUSIM_REG(CH_CYCLES_LO),
	NPUSIM_REG(CH_CYCLES_HI), NPUSIM_REG(CH_IRQ_STATUS), NPUSIM_REG(CH_CMD_START),
	NPUSIM_REG(CH_ERROR_INDEX),
};

static int npusim_regs_show(struct seq_file *m, void *unused)
{
	struct npusim_device *ndev = m->private;
	u32 i, ch;
	int idx;

	if (!drm_dev_enter(&ndev->drm, &idx))
		return -ENODEV;
	for (i = 0; i < ARRAY_SIZE(npusim_global_regs); i++)
		seq_printf(m, "0x%04x %-22s 0x%08x\n", npusim_global_regs[i].offset,
			   npusim_global_regs[i].name,
			   npusim_rd32(ndev, npusim_global_regs[i].offset));
	for (ch = 0; ch < ndev->channels; ch++)
		for (i = 0; i < ARRAY_SIZE(npusim_channel_regs); i++)
			seq_printf(m, "0x%04x CH%u.%-18s 0x%08x\n",
				   NPUSIM_CH_BASE(ch) + npusim_channel_regs[i].offset, ch,
				   npusim_channel_regs[i].name,
				   npusim_ch_rd32(ndev, ch, npusim_channel_regs[i].offset));
	drm_dev_exit(idx);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npusim_regs);

static int npusim_jobs_show(struct seq_file *m, void *unused)
{
	struct npusim_device *ndev = m->private;
	u32 i, n, ch;

	mutex_lock(&ndev->sched_lock);
	seq_printf(m, "transport %s lost %d irqs %llu done %llu failed %llu hangs %llu retries %llu resets %llu channel_errors %llu\n",
		   ndev->ops->name, ndev->lost, ndev->irqs, ndev->jobs_done, ndev->jobs_failed,
		   ndev->hangs, ndev->retries, ndev->channel_resets, ndev->channel_errors);
	for (ch = 0; ch < ndev->channels; ch++) {
		struct npusim_cmd *cmd = ndev->chan[ch].cur;

		if (cmd)
			seq_printf(m, "channel %u: job %u buffer %u (%u descriptors at 0x%llx)\n",
				   ch, cmd->job->id, cmd->index, cmd->count, cmd->addr);
		else
			seq_printf(m, "channel %u: idle\n", ch);
	}
	seq_puts(m, "job priority level status retries buffers cycles latency_cycles wall_us\n");
	n = min_t(u32, ndev->log_next, NPUSIM_JOB_LOG);
	for (i = ndev->log_next - n; i != ndev->log_next; i++) {
		struct npusim_job_record *r = &ndev->log[i % NPUSIM_JOB_LOG];

		seq_printf(m, "%u %d %s %d %u %u %llu %llu %llu\n", r->id, r->priority,
			   npusim_level_name(npusim_level_for(r->priority)), r->error, r->retries,
			   r->cmds, r->cycles, r->latency_cycles, r->wall_ns / 1000);
	}
	mutex_unlock(&ndev->sched_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npusim_jobs);

/*
 * debugfs: "CHANNEL KIND [INDEX]" arms CH_FAULT_INJECT of a channel (kind: 1 hang, 2 DMA error,
 * 3 SRAM ECC) for its next command buffer, at descriptor INDEX; for bring-up of the recovery paths
 */
static ssize_t npusim_fault_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	struct npusim_device *ndev = file_inode(f)->i_private;
	u32 ch, kind, index = 0;
	char buf[32];
	int idx, n;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	n = sscanf(buf, "%u %u %u", &ch, &kind, &index);
	if (n < 2 || ch >= ndev->channels || !kind || kind > NPUSIM_FAULT_SRAM_ECC ||
	    index > FIELD_MAX(NPUSIM_CH_FAULT_INJECT_INDEX))
		return -EINVAL;
	if (!(ndev->caps & NPUSIM_NPU_CAPS_FAULT_INJECT))
		return -EOPNOTSUPP;
	if (!drm_dev_enter(&ndev->drm, &idx))
		return -ENODEV;
	npusim_ch_wr32(ndev, ch, NPUSIM_CH_FAULT_INJECT,
		       FIELD_PREP(NPUSIM_CH_FAULT_INJECT_KIND, kind) |
		       FIELD_PREP(NPUSIM_CH_FAULT_INJECT_INDEX, index));
	drm_dev_exit(idx);
	dev_info(ndev->drm.dev, "debugfs: fault %u armed on channel %u at descriptor %u\n", kind,
		 ch, index);
	return len;
}

static const struct file_operations npusim_fault_fops = {
	.owner = THIS_MODULE,
	.write = npusim_fault_write,
	.llseek = noop_llseek,
};

static void npusim_debugfs_init(struct npusim_device *ndev)
{
	struct dentry *root = ndev->drm.accel ? ndev->drm.accel->debugfs_root : NULL;

	if (!root)
		return;
	debugfs_create_file("regs", 0400, root, ndev, &npusim_regs_fops);
	debugfs_create_file("jobs", 0400, root, ndev, &npusim_jobs_fops);
	debugfs_create_file("fault_inject", 0200, root, ndev, &npusim_fault_fops);
}

static int npusim_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct npusim_device *ndev;
	int ret;

	ndev = devm_drm_dev_alloc(&pdev->dev, &npusim_driver, struct npusim_device, drm);
	if (IS_ERR(ndev))
		return PTR_ERR(ndev);
	ndev->pdev = pdev;
	ndev->ops = (const struct npusim_transport_ops *)id->driver_data;
	pci_set_drvdata(pdev, ndev);
	ret = drmm_mutex_init(&ndev->drm, &ndev->hw_lock);
	if (ret)
		return ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	/* the NPU's DMA and MSI-X writes are bus-master cycles: without this they are dropped */
	pci_set_master(pdev);
	ndev->regs = pcim_iomap_region(pdev, 0, NPUSIM_DRIVER_NAME);
	if (IS_ERR(ndev->regs))
		return PTR_ERR(ndev->regs);
	/* BAR2: device memory (user mappings of BOs) and, on the VP, the mailbox */
	ret = pcim_request_region(pdev, 2, NPUSIM_DRIVER_NAME);
	if (ret)
		return ret;
	ndev->mem_phys = pci_resource_start(pdev, 2);
	if (ndev->ops == &npusim_transport_vp) {
		ret = npusim_vp_attach(ndev);
		if (ret)
			return ret;
	}
	ret = npusim_hw_probe(ndev);
	if (ret)
		return ret;
	if (ndev->dram_bytes > pci_resource_len(pdev, 2)) {
		dev_err(&pdev->dev, "device memory of %llu bytes is larger than BAR2\n",
			ndev->dram_bytes);
		return -ENODEV;
	}
	ret = npusim_gem_init(ndev);
	if (ret)
		return ret;
	npusim_sched_init(ndev);

	ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSIX);
	if (ret < 0) {
		dev_err(&pdev->dev, "no MSI-X vector: %d\n", ret);
		return ret;
	}
	ndev->irq = pci_irq_vector(pdev, 0);
	ret = request_threaded_irq(ndev->irq, npusim_irq, npusim_irq_thread, 0, NPUSIM_DRIVER_NAME,
				   ndev);
	if (ret)
		goto err_vectors;

	ret = drm_dev_register(&ndev->drm, 0);
	if (ret)
		goto err_irq;
	npusim_debugfs_init(ndev);
	return 0;

err_irq:
	free_irq(ndev->irq, ndev);
err_vectors:
	pci_free_irq_vectors(pdev);
	return ret;
}

static void npusim_remove(struct pci_dev *pdev)
{
	struct npusim_device *ndev = pci_get_drvdata(pdev);

	/* new ioctls fail with ENODEV and user mappings of device memory go */
	drm_dev_unplug(&ndev->drm);
	npusim_sched_fini(ndev);
	npusim_wr32(ndev, NPUSIM_IRQ_MASK, 0);
	npusim_wr32(ndev, NPUSIM_GLOBAL_CTRL, NPUSIM_GLOBAL_CTRL_SOFT_RESET);
	free_irq(ndev->irq, ndev);
	pci_free_irq_vectors(pdev);
}

static const struct pci_device_id npusim_pci_ids[] = {
	/* the npusim virtual platform: QEMU ivshmem-doorbell served by `npusim vp serve` */
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET_IVSHMEM, PCI_DEVICE_ID_IVSHMEM),
	  .driver_data = (kernel_ulong_t)&npusim_transport_vp },
	{ }
};
MODULE_DEVICE_TABLE(pci, npusim_pci_ids);

static struct pci_driver npusim_pci_driver = {
	.name = NPUSIM_DRIVER_NAME,
	.id_table = npusim_pci_ids,
	.probe = npusim_probe,
	.remove = npusim_remove,
};
module_pci_driver(npusim_pci_driver);

MODULE_DESCRIPTION("npusim NPU accel driver");
MODULE_LICENSE("GPL");
