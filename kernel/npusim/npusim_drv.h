/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npusim NPU accel driver: the device, its transports, buffer objects and jobs.
 */
#ifndef __NPUSIM_DRV_H__
#define __NPUSIM_DRV_H__

#include <linux/dma-fence.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_gem.h>
#include <drm/drm_mm.h>

#include "npusim_regs.h"

#define NPUSIM_DRIVER_NAME "npusim"
#define NPUSIM_LEVELS 4		/* REALTIME, HIGH, NORMAL, LOW */
#define NPUSIM_JOB_LOG 64	/* jobs kept for debugfs */

struct npusim_device;

/*
 * How a register access reaches the NPU. Everything above npusim_rd32()/npusim_wr32() is the same
 * on silicon (mmio) and on the virtual platform (vp: a mailbox in shared memory and a doorbell).
 */
struct npusim_transport_ops {
	const char *name;
	int (*read32)(struct npusim_device *ndev, u32 offset, u32 *value);
	int (*write32)(struct npusim_device *ndev, u32 offset, u32 value);
	/* "nothing more to write now": lets a simulated device advance; no-op on silicon */
	int (*sync)(struct npusim_device *ndev);
};

extern const struct npusim_transport_ops npusim_transport_mmio;
extern const struct npusim_transport_ops npusim_transport_vp;

struct npusim_bo {
	struct drm_gem_object base;
	struct drm_mm_node node;	/* device address range */
	u32 flags;
};

static inline struct npusim_bo *to_npusim_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct npusim_bo, base);
}

struct npusim_job;

/* One command buffer of a job: the unit placed on a channel */
struct npusim_cmd {
	struct list_head node;		/* in a run queue while waiting */
	struct npusim_job *job;
	u64 addr;			/* device address of descriptor 0 */
	u32 count;			/* descriptors */
	u32 index;			/* in the job */
	u32 hangs;			/* timeouts so far */
	int channel;			/* running on, or -1 */
	unsigned long deadline;		/* jiffies: hang if still running after this */
};

struct npusim_job {
	struct dma_fence fence;		/* first: the fence's refcount is the job's */
	spinlock_t fence_lock;
	struct npusim_device *ndev;
	struct list_head node;		/* ndev->jobs while unfinished */
	u32 id;
	s32 priority;
	u32 level;
	u32 flags;
	u32 cmd_count, stage_count, bo_count;
	struct npusim_cmd *cmds;
	u32 *stage_first, *stage_cmds;
	u32 stage;			/* current stage */
	u32 stage_left;			/* its command buffers not yet done */
	struct drm_gem_object **bos;	/* references held until the job ends */
	u64 cycles, energy_pj;
	u64 start_cycle, end_cycle;	/* CYCLE_LO/HI at submission and at the end */
	u32 retries;
	int error;
	bool ended;
	ktime_t submitted, end;
};

struct npusim_job_record {
	u32 id;
	s32 priority;
	int error;
	u32 retries;
	u32 cmds;
	u64 cycles;
	u64 wall_ns;
	u64 latency_cycles;
};

struct npusim_channel {
	struct npusim_cmd *cur;
};

struct npusim_device {
	struct drm_device drm;
	struct pci_dev *pdev;
	const struct npusim_transport_ops *ops;

	/* transport */
	void __iomem *regs;		/* BAR0: NPU registers (mmio) or ivshmem ones (vp) */
	void __iomem *mbox;		/* vp: the mailbox page at the end of BAR2 */
	struct mutex hw_lock;		/* one register access at a time */
	u32 req_seq;
	bool lost;			/* the device stopped answering: every access fails fast */

	/* what probe read */
	u32 id, version, config, config2, sram_kib, caps;
	u32 channels;
	u64 dram_bytes, weight_base, weight_bytes;
	phys_addr_t mem_phys;		/* BAR2: device memory as the CPU sees it */

	/* device memory */
	struct mutex mm_lock;
	struct drm_mm mm;

	/* jobs */
	struct mutex sched_lock;
	struct list_head runq[NPUSIM_LEVELS];
	struct npusim_channel chan[NPUSIM_MAX_CHANNELS];
	struct list_head jobs;		/* unfinished */
	bool dead;			/* unbound: no new work */
	u64 fence_context;
	u64 fence_seqno;
	struct delayed_work watchdog;
	int irq;

	/* statistics and the job log (sched_lock) */
	u64 irqs, hangs, retries, channel_resets, channel_errors, jobs_done, jobs_failed;
	struct npusim_job_record log[NPUSIM_JOB_LOG];
	u32 log_next;
};

static inline struct npusim_device *to_npusim_device(struct drm_device *drm)
{
	return container_of(drm, struct npusim_device, drm);
}

struct npusim_file {
	struct npusim_device *ndev;
	struct xarray jobs;		/* job id -> job (a fence reference) */
};

/* npusim_hw.c */
u32 npusim_rd32(struct npusim_device *ndev, u32 offset);
void npusim_wr32(struct npusim_device *ndev, u32 offset, u32 value);
void npusim_hw_sync(struct npusim_device *ndev);
u64 npusim_cycle(struct npusim_device *ndev);
static inline u32 npusim_ch_rd32(struct npusim_device *ndev, u32 ch, u32 reg)
{
	return npusim_rd32(ndev, NPUSIM_CH_BASE(ch) + reg);
}

static inline void npusim_ch_wr32(struct npusim_device *ndev, u32 ch, u32 reg, u32 value)
{
	npusim_wr32(ndev, NPUSIM_CH_BASE(ch) + reg, value);
}

int npusim_hw_probe(struct npusim_device *ndev);
int npusim_vp_attach(struct npusim_device *ndev);

/* npusim_gem.c */
int npusim_gem_init(struct npusim_device *ndev);
int npusim_bo_create_ioctl(struct drm_device *drm, void *data, struct drm_file *file);

/* npusim_job.c */
void npusim_sched_init(struct npusim_device *ndev);
void npusim_sched_fini(struct npusim_device *ndev);
void npusim_irq_work(struct npusim_device *ndev);
int npusim_submit_ioctl(struct drm_device *drm, void *data, struct drm_file *file);
int npusim_wait_ioctl(struct drm_device *drm, void *data, struct drm_file *file);
void npusim_file_jobs_fini(struct npusim_file *nfile);
u32 npusim_level_for(s32 priority);
const char *npusim_level_name(u32 level);

#endif /* __NPUSIM_DRV_H__ */
