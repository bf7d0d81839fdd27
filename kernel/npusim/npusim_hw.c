// SPDX-License-Identifier: GPL-2.0
/*
 * Register access. Every access of the driver goes through npusim_rd32()/npusim_wr32(), which
 * hand it to the transport: readl/writel on BAR0 on silicon, the mailbox of vp/abi/npusim_vp.h on
 * the npusim virtual platform. A device that stopped answering is marked lost once; from then on
 * reads return all ones (as a PCI read of a removed device does) and writes are dropped, without
 * waiting.
 */

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/module.h>

#include "npusim_drv.h"
#include "npusim_vp.h"

static unsigned int vp_timeout_ms = 60000;
module_param(vp_timeout_ms, uint, 0644);
MODULE_PARM_DESC(vp_timeout_ms,
		 "VP transport: how long one mailbox request may take (a RUN simulates until the next interrupt)");

/* ivshmem-doorbell BAR0 */
#define IVSHMEM_DOORBELL 12

#define MBOX(field) offsetof(struct npusim_vp_mailbox, field)

static int mmio_read32(struct npusim_device *ndev, u32 offset, u32 *value)
{
	*value = readl(ndev->regs + offset);
	return 0;
}

static int mmio_write32(struct npusim_device *ndev, u32 offset, u32 value)
{
	writel(value, ndev->regs + offset);
	return 0;
}

static int mmio_sync(struct npusim_device *ndev)
{
	return 0;
}

const struct npusim_transport_ops npusim_transport_mmio = {
	.name = "mmio",
	.read32 = mmio_read32,
	.write32 = mmio_write32,
	.sync = mmio_sync,
};

/* One mailbox request: fill, publish, ring, wait for the device's answer. */
static int vp_request(struct npusim_device *ndev, u32 op, u32 offset, u32 *value)
{
	void __iomem *mb = ndev->mbox;
	ktime_t timeout = ktime_add_ms(ktime_get(), vp_timeout_ms);
	unsigned int spins = 0;
	u32 seq, status;

	writel(op, mb + MBOX(op));
	writel(offset, mb + MBOX(offset));
	writel(*value, mb + MBOX(value));
	seq = ++ndev->req_seq;
	/* op, offset and value must be visible before the device sees the new sequence number */
	wmb();
	writel(seq, mb + MBOX(req_seq));
	writel(NPUSIM_VP_SERVER_PEER << 16 | NPUSIM_VP_VEC_MAILBOX, ndev->regs + IVSHMEM_DOORBELL);

	while (readl(mb + MBOX(ack_seq)) != seq) {
		if (readl(mb + MBOX(state)) == NPUSIM_VP_STATE_STOPPED) {
			dev_err(ndev->drm.dev, "vp: device side stopped (request %u, op %u, offset 0x%x)\n",
				seq, op, offset);
			return -ENODEV;
		}
		if (ktime_after(ktime_get(), timeout)) {
			dev_err(ndev->drm.dev, "vp: no answer to request %u (op %u, offset 0x%x) in %u ms\n",
				seq, op, offset, vp_timeout_ms);
			return -ETIMEDOUT;
		}
		/* an access answers in tens of microseconds, a RUN may simulate for seconds */
		if (++spins < 200)
			udelay(1);
		else
			usleep_range(20, 100);
	}
	/* the answer is read after ack_seq */
	rmb();
	status = readl(mb + MBOX(status));
	if (status != NPUSIM_VP_OK) {
		dev_warn_ratelimited(ndev->drm.dev, "vp: op %u at 0x%x: status %u\n", op, offset,
				     status);
		return -EIO;
	}
	if (op == NPUSIM_VP_OP_READ32)
		*value = readl(mb + MBOX(value));
	return 0;
}

static int vp_read32(struct npusim_device *ndev, u32 offset, u32 *value)
{
	*value = 0;
	return vp_request(ndev, NPUSIM_VP_OP_READ32, offset, value);
}

static int vp_write32(struct npusim_device *ndev, u32 offset, u32 value)
{
	return vp_request(ndev, NPUSIM_VP_OP_WRITE32, offset, &value);
}

static int vp_sync(struct npusim_device *ndev)
{
	u32 unused = 0;

	return vp_request(ndev, NPUSIM_VP_OP_RUN, 0, &unused);
}

const struct npusim_transport_ops npusim_transport_vp = {
	.name = "vp",
	.read32 = vp_read32,
	.write32 = vp_write32,
	.sync = vp_sync,
};

static void npusim_hw_failed(struct npusim_device *ndev, int ret)
{
	/* -EIO is the register file's answer (a write to a RO register): the device still works */
	if (ret == -EIO || ndev->lost)
		return;
	ndev->lost = true;
	dev_err(ndev->drm.dev, "device lost (%d): further register accesses fail\n", ret);
}

u32 npusim_rd32(struct npusim_device *ndev, u32 offset)
{
	u32 value = ~0u;
	int ret;

	mutex_lock(&ndev->hw_lock);
	if (!ndev->lost) {
		ret = ndev->ops->read32(ndev, offset, &value);
		if (ret) {
			npusim_hw_failed(ndev, ret);
			value = ~0u;
		}
	}
	mutex_unlock(&ndev->hw_lock);
	return value;
}

void npusim_wr32(struct npusim_device *ndev, u32 offset, u32 value)
{
	int ret;

	mutex_lock(&ndev->hw_lock);
	if (!ndev->lost) {
		ret = ndev->ops->write32(ndev, offset, value);
		if (ret)
			npusim_hw_failed(ndev, ret);
	}
	mutex_unlock(&ndev->hw_lock);
}

void npusim_hw_sync(struct npusim_device *ndev)
{
	int ret;

	mutex_lock(&ndev->hw_lock);
	if (!ndev->lost) {
		ret = ndev->ops->sync(ndev);
		if (ret)
			npusim_hw_failed(ndev, ret);
	}
	mutex_unlock(&ndev->hw_lock);
}

/* The NPU's free-running cycle counter (the high word read twice across a carry) */
u64 npusim_cycle(struct npusim_device *ndev)
{
	u32 hi, lo, hi2;

	hi = npusim_rd32(ndev, NPUSIM_CYCLE_HI);
	lo = npusim_rd32(ndev, NPUSIM_CYCLE_LO);
	hi2 = npusim_rd32(ndev, NPUSIM_CYCLE_HI);
	if (hi2 != hi)
		lo = npusim_rd32(ndev, NPUSIM_CYCLE_LO);
	return (u64)hi2 << 32 | lo;
}

/* VP: find the mailbox, check the device side serves this ABI. */
int npusim_vp_attach(struct npusim_device *ndev)
{
	struct pci_dev *pdev = ndev->pdev;
	resource_size_t bar2 = pci_resource_len(pdev, 2);
	u32 magic, version, state;

	if (bar2 < 2 * NPUSIM_VP_MAILBOX_BYTES) {
		dev_err(&pdev->dev, "vp: BAR2 of %pa bytes has no room for device memory and the mailbox\n",
			&bar2);
		return -ENODEV;
	}
	ndev->mbox = pcim_iomap_range(pdev, 2, bar2 - NPUSIM_VP_MAILBOX_BYTES,
				      NPUSIM_VP_MAILBOX_BYTES);
	if (IS_ERR(ndev->mbox))
		return PTR_ERR(ndev->mbox);
	magic = readl(ndev->mbox + MBOX(magic));
	version = readl(ndev->mbox + MBOX(version));
	state = readl(ndev->mbox + MBOX(state));
	if (magic != NPUSIM_VP_MAGIC || version != NPUSIM_VP_VERSION ||
	    state != NPUSIM_VP_STATE_READY) {
		dev_err(&pdev->dev,
			"vp: no npusim device behind this ivshmem (mailbox magic 0x%08x version %u state %u; want 0x%08x, %u, ready)\n",
			magic, version, state, NPUSIM_VP_MAGIC, NPUSIM_VP_VERSION);
		return -ENODEV;
	}
	ndev->dram_bytes = readq(ndev->mbox + MBOX(dram_bytes));
	if (ndev->dram_bytes > bar2 - NPUSIM_VP_MAILBOX_BYTES) {
		dev_err(&pdev->dev, "vp: device memory of %llu bytes does not fit BAR2 (%pa bytes)\n",
			ndev->dram_bytes, &bar2);
		return -ENODEV;
	}
	/* continue the device's sequence (a reloaded driver) */
	ndev->req_seq = readl(ndev->mbox + MBOX(ack_seq));
	return 0;
}

/* Identify the NPU and read what it is; reset it to a known state. */
int npusim_hw_probe(struct npusim_device *ndev)
{
	struct device *dev = ndev->drm.dev;
	u64 dram;

	ndev->id = npusim_rd32(ndev, NPUSIM_NPU_ID);
	if (ndev->lost)
		return -ENODEV;
	if (ndev->id != NPUSIM_ID_VALUE) {
		dev_err(dev, "NPU_ID reads 0x%08x, not 0x%08x: not an npusim NPU\n", ndev->id,
			NPUSIM_ID_VALUE);
		return -ENODEV;
	}
	ndev->version = npusim_rd32(ndev, NPUSIM_NPU_VERSION);
	ndev->config = npusim_rd32(ndev, NPUSIM_NPU_CONFIG);
	ndev->config2 = npusim_rd32(ndev, NPUSIM_NPU_CONFIG2);
	ndev->sram_kib = npusim_rd32(ndev, NPUSIM_NPU_SRAM_KIB);
	ndev->caps = npusim_rd32(ndev, NPUSIM_NPU_CAPS);
	dram = (u64)npusim_rd32(ndev, NPUSIM_DRAM_MIB) << 20;
	ndev->weight_base = (u64)npusim_rd32(ndev, NPUSIM_WEIGHT_MEM_BASE_MIB) << 20;
	ndev->weight_bytes = (u64)npusim_rd32(ndev, NPUSIM_WEIGHT_MEM_MIB) << 20;
	if (ndev->lost)
		return -ENODEV;
	ndev->channels = FIELD_GET(NPUSIM_NPU_CONFIG_CHANNELS, ndev->config);
	if (!ndev->channels || ndev->channels > NPUSIM_MAX_CHANNELS) {
		dev_err(dev, "NPU_CONFIG 0x%08x: %u channels (1..%u)\n", ndev->config,
			ndev->channels, NPUSIM_MAX_CHANNELS);
		return -ENODEV;
	}
	/* the transport may know the memory behind BAR2 more exactly; both must agree */
	if (!ndev->dram_bytes)
		ndev->dram_bytes = min_t(u64, dram, pci_resource_len(ndev->pdev, 2));
	if (dram != ndev->dram_bytes) {
		dev_err(dev, "DRAM_MIB says %llu bytes, the transport %llu\n", dram,
			ndev->dram_bytes);
		return -ENODEV;
	}
	if (ndev->weight_base + ndev->weight_bytes > ndev->dram_bytes) {
		dev_err(dev, "weight memory [%llu, +%llu) beyond device memory (%llu)\n",
			ndev->weight_base, ndev->weight_bytes, ndev->dram_bytes);
		return -ENODEV;
	}

	npusim_wr32(ndev, NPUSIM_GLOBAL_CTRL, NPUSIM_GLOBAL_CTRL_SOFT_RESET);
	npusim_wr32(ndev, NPUSIM_IRQ_MASK, FIELD_PREP(NPUSIM_IRQ_STATUS_CHANNELS,
						      GENMASK(ndev->channels - 1, 0)));
	dev_info(dev,
		 "NPU %u.%u over %s: %u channels of %ux%u MACs, %u KiB SRAM each, %u vector lanes, caps 0x%x, %llu MiB device memory (weights at %llu MiB, %llu MiB)\n",
		 (u32)FIELD_GET(NPUSIM_NPU_VERSION_MAJOR, ndev->version),
		 (u32)FIELD_GET(NPUSIM_NPU_VERSION_MINOR, ndev->version), ndev->ops->name,
		 ndev->channels, (u32)FIELD_GET(NPUSIM_NPU_CONFIG_ARRAY_ROWS, ndev->config),
		 (u32)FIELD_GET(NPUSIM_NPU_CONFIG_ARRAY_COLS, ndev->config), ndev->sram_kib,
		 (u32)FIELD_GET(NPUSIM_NPU_CONFIG2_VECTOR_LANES, ndev->config2), ndev->caps,
		 ndev->dram_bytes >> 20, ndev->weight_base >> 20, ndev->weight_bytes >> 20);
	return ndev->lost ? -ENODEV : 0;
}
