// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs: stages of command buffers, run on the NPU's channels.
 *
 * The scheduler is the driver's own, not drm_sched. drm_sched schedules one ring per entity: a
 * job is one unit that runs on one hardware queue and its dependencies are fences. Here the unit
 * a channel runs is a command buffer, one job's stage spreads over several channels at once, the
 * next stage starts when all of them ended, any free channel takes the most urgent waiting
 * buffer, and a hang is recovered per buffer (reset its channel, run that buffer again) while the
 * job's other buffers carry on. That is the in-process driver's model
 * (driver/src/job_scheduler.cpp), which this driver keeps so the two can be compared; expressing
 * it with drm_sched would need a scheduler per channel and a job split into per-buffer jobs
 * chained by fences, with recovery across schedulers.
 *
 * Priorities: the job's priority 0 (most urgent) ... 1000 maps to four run-queue levels with the
 * in-process driver's thresholds (REALTIME < 100 <= HIGH < 400 <= NORMAL < 700 <= LOW); FIFO
 * within a level. Guest clients have no per-uid SchedulingConfig, so the job priority is the
 * effective one. A running buffer is never preempted.
 *
 * Time: a buffer's timeout runs from its dispatch or from the end of the last RUN, whichever is
 * later. On silicon RUN is a no-op and this is the time since dispatch; on the virtual platform
 * the device only advances during a RUN, so the guest's clock counts only the time the device had
 * to answer.
 */

#include <linux/bitfield.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>

#include <uapi/drm/npusim_accel.h>

#include "npusim_drv.h"

static unsigned int job_timeout_ms = 2000;
module_param(job_timeout_ms, uint, 0644);
MODULE_PARM_DESC(job_timeout_ms, "A command buffer still running after this long has hung");

static unsigned int hang_limit = 2;
module_param(hang_limit, uint, 0644);
MODULE_PARM_DESC(hang_limit, "Retries of a hung command buffer before its job fails with ETIMEDOUT");

#define NPUSIM_MAX_CMDS 65536
#define NPUSIM_MAX_BOS 4096

static const char *const level_names[NPUSIM_LEVELS] = { "realtime", "high", "normal", "low" };

u32 npusim_level_for(s32 priority)
{
	if (priority < 100)
		return 0;
	if (priority < 400)
		return 1;
	if (priority < 700)
		return 2;
	return 3;
}

static const char *npusim_fence_driver_name(struct dma_fence *fence)
{
	return NPUSIM_DRIVER_NAME;
}

static const char *npusim_fence_timeline_name(struct dma_fence *fence)
{
	return "npu";
}

static void npusim_fence_release(struct dma_fence *fence)
{
	struct npusim_job *job = container_of(fence, struct npusim_job, fence);

	kvfree(job->cmds);
	kvfree(job->stage_first);
	kvfree(job->stage_cmds);
	kvfree(job->bos);
	dma_fence_free(fence);
}

static const struct dma_fence_ops npusim_fence_ops = {
	.get_driver_name = npusim_fence_driver_name,
	.get_timeline_name = npusim_fence_timeline_name,
	.release = npusim_fence_release,
};

static void npusim_watchdog_arm(struct npusim_device *ndev)
{
	unsigned long period = max(msecs_to_jiffies(job_timeout_ms) / 4, 1UL);

	if (!ndev->dead)
		mod_delayed_work(system_wq, &ndev->watchdog, period);
}

static void npusim_log_job(struct npusim_device *ndev, struct npusim_job *job)
{
	struct npusim_job_record *r = &ndev->log[ndev->log_next++ % NPUSIM_JOB_LOG];

	r->id = job->id;
	r->priority = job->priority;
	r->error = job->error;
	r->retries = job->retries;
	r->cmds = job->cmd_count;
	r->cycles = job->cycles;
	r->wall_ns = ktime_to_ns(ktime_sub(job->end, job->submitted));
	r->latency_cycles = job->end_cycle - job->start_cycle;
}

/* Stop the channel running cmd (if any) and forget it. */
static void npusim_cmd_abort(struct npusim_device *ndev, struct npusim_cmd *cmd)
{
	if (cmd->channel >= 0) {
		npusim_ch_wr32(ndev, cmd->channel, NPUSIM_CH_CTRL, NPUSIM_CH_CTRL_RESET);
		npusim_ch_wr32(ndev, cmd->channel, NPUSIM_CH_IRQ_STATUS, ~0u);
		ndev->chan[cmd->channel].cur = NULL;
		ndev->channel_resets++;
		cmd->channel = -1;
	}
	if (!list_empty(&cmd->node))
		list_del_init(&cmd->node);
}

/* The end of a job, exactly once: its buffers leave channels and queues, its fence is signalled. */
static void npusim_job_end(struct npusim_job *job, int error)
{
	struct npusim_device *ndev = job->ndev;
	u32 i;

	lockdep_assert_held(&ndev->sched_lock);
	if (job->ended)
		return;
	job->ended = true;
	job->error = error;
	job->end = ktime_get();
	job->end_cycle = ndev->lost || ndev->dead ? job->start_cycle : npusim_cycle(ndev);
	for (i = 0; i < job->cmd_count; i++)
		npusim_cmd_abort(ndev, &job->cmds[i]);
	list_del_init(&job->node);
	if (error)
		ndev->jobs_failed++;
	else
		ndev->jobs_done++;
	npusim_log_job(ndev, job);
	for (i = 0; i < job->bo_count; i++)
		drm_gem_object_put(job->bos[i]);
	job->bo_count = 0;
	if (error)
		dma_fence_set_error(&job->fence, error);
	dma_fence_signal(&job->fence);
	dma_fence_put(&job->fence);	/* the scheduler's reference */
}

static void npusim_stage_queue(struct npusim_device *ndev, struct npusim_job *job)
{
	u32 first = job->stage_first[job->stage], i;

	job->stage_left = job->stage_cmds[job->stage];
	for (i = 0; i < job->stage_left; i++)
		list_add_tail(&job->cmds[first + i].node, &ndev->runq[job->level]);
}

static void npusim_cmd_done(struct npusim_device *ndev, struct npusim_cmd *cmd)
{
	struct npusim_job *job = cmd->job;

	if (--job->stage_left)
		return;
	if (++job->stage < job->stage_count)
		npusim_stage_queue(ndev, job);
	else
		npusim_job_end(job, 0);
}

/* Give every free channel the most urgent waiting command buffer. */
static bool npusim_dispatch(struct npusim_device *ndev)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(job_timeout_ms);
	bool started = false;
	u32 ch, level;

	for (ch = 0; ch < ndev->channels && !ndev->lost; ch++) {
		struct npusim_cmd *cmd = NULL;
		u32 bell = NPUSIM_CH_DOORBELL_START;

		if (ndev->chan[ch].cur)
			continue;
		for (level = 0; level < NPUSIM_LEVELS && !cmd; level++)
			cmd = list_first_entry_or_null(&ndev->runq[level], struct npusim_cmd, node);
		if (!cmd)
			break;
		list_del_init(&cmd->node);
		cmd->channel = ch;
		cmd->deadline = deadline;
		ndev->chan[ch].cur = cmd;
		if (cmd->job->flags & DRM_NPUSIM_SUBMIT_TIMING_ONLY)
			bell |= NPUSIM_CH_DOORBELL_TIMING_ONLY;
		npusim_ch_wr32(ndev, ch, NPUSIM_CH_CMD_BASE_LO, lower_32_bits(cmd->addr));
		npusim_ch_wr32(ndev, ch, NPUSIM_CH_CMD_BASE_HI, upper_32_bits(cmd->addr));
		npusim_ch_wr32(ndev, ch, NPUSIM_CH_CMD_COUNT, cmd->count);
		npusim_ch_wr32(ndev, ch, NPUSIM_CH_CMD_START, 0);
		npusim_ch_wr32(ndev, ch, NPUSIM_CH_DOORBELL, bell);
		started = true;
	}
	return started;
}

/* Every unfinished job fails with error (device lost or driver unbound). */
static void npusim_fail_all(struct npusim_device *ndev, int error)
{
	struct npusim_job *job, *tmp;

	list_for_each_entry_safe(job, tmp, &ndev->jobs, node)
		npusim_job_end(job, error);
}

static bool npusim_busy(struct npusim_device *ndev)
{
	u32 ch;

	for (ch = 0; ch < ndev->channels; ch++)
		if (ndev->chan[ch].cur)
			return true;
	return false;
}

/*
 * After the driver changed what runs: dispatch, let the device run (a no-op on silicon), restart
 * the running buffers' clocks (see "Time" above) and watch them.
 */
static void npusim_kick(struct npusim_device *ndev)
{
	unsigned long deadline;
	u32 ch;

	lockdep_assert_held(&ndev->sched_lock);
	npusim_dispatch(ndev);
	/* over a hung channel the VP answers RUN after a limit of simulated time */
	if (npusim_busy(ndev))
		npusim_hw_sync(ndev);
	if (ndev->lost) {
		npusim_fail_all(ndev, -ENODEV);
		return;
	}
	deadline = jiffies + msecs_to_jiffies(job_timeout_ms);
	for (ch = 0; ch < ndev->channels; ch++)
		if (ndev->chan[ch].cur)
			ndev->chan[ch].cur->deadline = deadline;
	if (npusim_busy(ndev))
		npusim_watchdog_arm(ndev);
}

static const char *npusim_error_name(u32 error)
{
	switch (error) {
	case NPUSIM_CH_ERR_BAD_DESCRIPTOR: return "bad descriptor";
	case NPUSIM_CH_ERR_DMA_FAULT: return "DMA fault";
	case NPUSIM_CH_ERR_SRAM_OVERFLOW: return "SRAM overflow";
	case NPUSIM_CH_ERR_SRAM_ECC: return "SRAM ECC";
	case NPUSIM_CH_ERR_INDEX_OUT_OF_RANGE: return "index out of range";
	default: return "unknown";
	}
}

static void npusim_channel_irq(struct npusim_device *ndev, u32 ch)
{
	u32 bits = npusim_ch_rd32(ndev, ch, NPUSIM_CH_IRQ_STATUS);
	struct npusim_cmd *cmd = ndev->chan[ch].cur;

	if (ndev->lost || !bits)
		return;
	npusim_ch_wr32(ndev, ch, NPUSIM_CH_IRQ_STATUS, bits);
	if (!cmd) {
		dev_dbg(ndev->drm.dev, "channel %u: event 0x%x with nothing running\n", ch, bits);
		return;
	}
	if (bits & NPUSIM_CH_IRQ_STATUS_ERROR) {
		u32 status = npusim_ch_rd32(ndev, ch, NPUSIM_CH_STATUS);
		u32 index = npusim_ch_rd32(ndev, ch, NPUSIM_CH_ERROR_INDEX);
		u32 error = FIELD_GET(NPUSIM_CH_STATUS_ERROR, status);

		ndev->channel_errors++;
		dev_err(ndev->drm.dev, "channel %u: job %u buffer %u: %s (error %u) at descriptor %u\n",
			ch, cmd->job->id, cmd->index, npusim_error_name(error), error, index);
		/* the channel stopped; the job's other buffers are aborted by npusim_job_end */
		ndev->chan[ch].cur = NULL;
		cmd->channel = -1;
		npusim_job_end(cmd->job, -EIO);
		return;
	}
	if (bits & NPUSIM_CH_IRQ_STATUS_DONE) {
		u64 cycles = npusim_ch_rd32(ndev, ch, NPUSIM_CH_CYCLES_LO);
		u64 energy = npusim_ch_rd32(ndev, ch, NPUSIM_CH_ENERGY_LO);

		cycles |= (u64)npusim_ch_rd32(ndev, ch, NPUSIM_CH_CYCLES_HI) << 32;
		energy |= (u64)npusim_ch_rd32(ndev, ch, NPUSIM_CH_ENERGY_HI) << 32;
		cmd->job->cycles += cycles;
		cmd->job->energy_pj += energy;
		ndev->chan[ch].cur = NULL;
		cmd->channel = -1;
		npusim_cmd_done(ndev, cmd);
		return;
	}
	/* this driver never asks for a preemption */
	dev_warn(ndev->drm.dev, "channel %u: unexpected event 0x%x\n", ch, bits);
}

/* The bottom half of the NPU interrupt (a threaded handler: accesses may sleep on the VP). */
void npusim_irq_work(struct npusim_device *ndev)
{
	u32 status, ch, loops = 0;

	mutex_lock(&ndev->sched_lock);
	ndev->irqs++;
	while (!ndev->lost && loops++ < 8) {
		status = npusim_rd32(ndev, NPUSIM_IRQ_STATUS);
		if (ndev->lost || !status)
			break;
		for (ch = 0; ch < ndev->channels; ch++)
			if (status & BIT(ch))
				npusim_channel_irq(ndev, ch);
		/* thermal events clear at their source; DVFS is write-one-to-clear here */
		if (status & NPUSIM_IRQ_STATUS_THERMAL)
			npusim_wr32(ndev, NPUSIM_THERM_IRQ_STATUS,
				    npusim_rd32(ndev, NPUSIM_THERM_IRQ_STATUS));
		if (status & NPUSIM_IRQ_STATUS_DVFS)
			npusim_wr32(ndev, NPUSIM_IRQ_STATUS, NPUSIM_IRQ_STATUS_DVFS);
	}
	if (!ndev->dead)
		npusim_kick(ndev);
	mutex_unlock(&ndev->sched_lock);
}

static void npusim_watchdog_work(struct work_struct *work)
{
	struct npusim_device *ndev = container_of(to_delayed_work(work), struct npusim_device,
						  watchdog);
	bool changed = false;
	u32 ch;

	mutex_lock(&ndev->sched_lock);
	for (ch = 0; ch < ndev->channels && !ndev->dead; ch++) {
		struct npusim_cmd *cmd = ndev->chan[ch].cur;
		struct npusim_job *job;
		u32 status, progress;

		if (!cmd || time_before(jiffies, cmd->deadline))
			continue;
		job = cmd->job;
		status = npusim_ch_rd32(ndev, ch, NPUSIM_CH_STATUS);
		progress = npusim_ch_rd32(ndev, ch, NPUSIM_CH_PROGRESS);
		cmd->hangs++;
		ndev->hangs++;
		dev_warn(ndev->drm.dev,
			 "channel %u hang: job %u buffer %u at descriptor %u of %u (CH_STATUS 0x%x) after %u ms; reset, %s (hang %u of %u allowed)\n",
			 ch, job->id, cmd->index, progress, cmd->count, status, job_timeout_ms,
			 cmd->hangs > hang_limit ? "job fails" : "retry", cmd->hangs,
			 hang_limit + 1);
		npusim_cmd_abort(ndev, cmd);
		changed = true;
		if (cmd->hangs > hang_limit) {
			npusim_job_end(job, -ETIMEDOUT);
		} else {
			job->retries++;
			ndev->retries++;
			list_add(&cmd->node, &ndev->runq[job->level]);
		}
	}
	if (ndev->lost)
		npusim_fail_all(ndev, -ENODEV);
	else if (changed)
		npusim_kick(ndev);
	else if (npusim_busy(ndev))
		npusim_watchdog_arm(ndev);
	mutex_unlock(&ndev->sched_lock);
}

void npusim_sched_init(struct npusim_device *ndev)
{
	u32 level;

	mutex_init(&ndev->sched_lock);
	for (level = 0; level < NPUSIM_LEVELS; level++)
		INIT_LIST_HEAD(&ndev->runq[level]);
	INIT_LIST_HEAD(&ndev->jobs);
	INIT_DELAYED_WORK(&ndev->watchdog, npusim_watchdog_work);
	ndev->fence_context = dma_fence_context_alloc(1);
}

/* Unbind: no new work; running buffers are stopped, every unfinished job fails with ECANCELED. */
void npusim_sched_fini(struct npusim_device *ndev)
{
	u32 pending = 0;
	struct npusim_job *job;

	mutex_lock(&ndev->sched_lock);
	ndev->dead = true;
	list_for_each_entry(job, &ndev->jobs, node)
		pending++;
	if (pending)
		dev_info(ndev->drm.dev, "unbind: cancelling %u unfinished jobs\n", pending);
	npusim_fail_all(ndev, -ECANCELED);
	mutex_unlock(&ndev->sched_lock);
	cancel_delayed_work_sync(&ndev->watchdog);
}

/* addr .. addr + len - 1 inside one of the first listed BOs of the job */
static bool npusim_job_covers(struct npusim_job *job, u32 listed, u64 addr, u64 len)
{
	u32 i;

	for (i = 0; i < listed; i++) {
		u64 start = to_npusim_bo(job->bos[i])->node.start, size = job->bos[i]->size;

		if (addr >= start && len <= size && addr - start <= size - len)
			return true;
	}
	return false;
}

/*
 * Every device address a command buffer's descriptors carry must lie inside the BOs the
 * submission lists (this file's own: their handles were looked up in it), as the in-process
 * driver checks them against the submitting context's BOs (ContextTable::validate_dma): a DMA's
 * whole extent, for a gather any row of its table; an unknown opcode is refused too. The
 * descriptor layout comes from npusim_regs.h, generated from descriptors.h. The descriptors are
 * read here, at SUBMIT, through a mapping of the command buffer's range alone. User space keeps
 * its own mapping of it, so this stops mistakes, not a process that rewrites its descriptors
 * after SUBMIT (that needs a copy the device runs from, which user space cannot map).
 */
static int npusim_cmd_check(struct npusim_job *job, struct drm_file *file, u32 index, u32 listed)
{
	struct npusim_cmd *cmd = &job->cmds[index];
	size_t bytes = (size_t)cmd->count * NPUSIM_DESC_BYTES;
	void __iomem *base = ioremap_wc(job->ndev->mem_phys + cmd->addr, bytes);
	const void __iomem *d = base;
	u32 i, op, rows, row_bytes, stride;
	u64 addr, len;
	int ret = 0;

	if (!base)
		return -ENOMEM;
	for (i = 0; i < cmd->count && !ret; i++, d += NPUSIM_DESC_BYTES) {
		op = readl(d + NPUSIM_DESC_OPCODE);
		if (op >= NPUSIM_DESC_OPCODE_COUNT) {
			drm_dbg(file->minor->dev,
				"submit: command buffer %u descriptor %u: unknown opcode %u\n",
				index, i, op);
			ret = -EINVAL;
			break;
		}
		if (op != NPUSIM_OP_DMA_IN && op != NPUSIM_OP_DMA_OUT && op != NPUSIM_OP_DMA_GATHER)
			continue;	/* the others address SRAM only */
		addr = readl(d + NPUSIM_DESC_DMA_DEV);
		addr |= (u64)readl(d + NPUSIM_DESC_DMA_DEV + 4) << 32;
		row_bytes = readl(d + NPUSIM_DESC_DMA_ROW_BYTES);
		rows = readl(d + NPUSIM_DESC_DMA_ROWS);
		stride = readl(d + NPUSIM_DESC_DMA_DEV_STRIDE);
		if (!rows || !row_bytes)
			continue;	/* moves nothing */
		if (op == NPUSIM_OP_DMA_GATHER) {
			rows = readl(d + NPUSIM_DESC_GATHER_TABLE_ROWS);
			if (!rows) {
				drm_dbg(file->minor->dev,
					"submit: command buffer %u descriptor %u: gather from an empty table at 0x%llx\n",
					index, i, addr);
				ret = -EINVAL;
				break;
			}
		}
		len = (u64)(rows - 1) * stride + row_bytes;
		if (!npusim_job_covers(job, listed, addr, len)) {
			drm_dbg(file->minor->dev,
				"submit: command buffer %u descriptor %u: DMA at 0x%llx (%llu bytes) outside the submission's BOs\n",
				index, i, addr, len);
			ret = -EINVAL;
		}
	}
	iounmap(base);
	return ret;
}

static int npusim_job_lookup_bos(struct npusim_job *job, struct drm_file *file,
				 const struct drm_npusim_submit *args, struct drm_npusim_cmd *ucmds)
{
	u32 __user *handles = u64_to_user_ptr(args->bo_handles);
	u32 i, handle;
	int ret;

	/* the listed BOs, then each command buffer's own BO */
	job->bos = kvcalloc(args->bo_count + args->cmd_count, sizeof(*job->bos), GFP_KERNEL);
	if (!job->bos)
		return -ENOMEM;
	for (i = 0; i < args->bo_count; i++) {
		if (get_user(handle, handles + i))
			return -EFAULT;
		job->bos[job->bo_count] = drm_gem_object_lookup(file, handle);
		if (!job->bos[job->bo_count]) {
			drm_dbg(file->minor->dev, "submit: BO list entry %u: no BO %u\n", i,
				handle);
			return -ENOENT;
		}
		job->bo_count++;
	}
	for (i = 0; i < args->cmd_count; i++) {
		struct drm_gem_object *obj = drm_gem_object_lookup(file, ucmds[i].bo_handle);
		struct npusim_cmd *cmd = &job->cmds[i];

		if (!obj) {
			drm_dbg(file->minor->dev, "submit: command buffer %u: no BO %u\n", i,
				ucmds[i].bo_handle);
			return -ENOENT;
		}
		job->bos[job->bo_count++] = obj;
		if (!ucmds[i].desc_count || !IS_ALIGNED(ucmds[i].offset, 128) ||
		    ucmds[i].offset > obj->size ||
		    (u64)ucmds[i].desc_count * 128 > obj->size - ucmds[i].offset) {
			drm_dbg(file->minor->dev,
				"submit: command buffer %u: %u descriptors at %llu outside BO %u (%zu bytes)\n",
				i, ucmds[i].desc_count, ucmds[i].offset, ucmds[i].bo_handle,
				obj->size);
			return -EINVAL;
		}
		INIT_LIST_HEAD(&cmd->node);
		cmd->job = job;
		cmd->index = i;
		cmd->channel = -1;
		cmd->count = ucmds[i].desc_count;
		cmd->addr = to_npusim_bo(obj)->node.start + ucmds[i].offset;
		ret = npusim_cmd_check(job, file, i, args->bo_count);
		if (ret)
			return ret;
	}
	return 0;
}

static int npusim_job_stages(struct npusim_job *job, const struct drm_npusim_submit *args)
{
	struct drm_npusim_stage __user *ustages = u64_to_user_ptr(args->stages);
	struct drm_npusim_stage stage;
	u32 i, next = 0;

	job->stage_first = kvcalloc(args->stage_count, sizeof(u32), GFP_KERNEL);
	job->stage_cmds = kvcalloc(args->stage_count, sizeof(u32), GFP_KERNEL);
	if (!job->stage_first || !job->stage_cmds)
		return -ENOMEM;
	/* stages cover the command buffers in order, each at least one */
	for (i = 0; i < args->stage_count; i++) {
		if (copy_from_user(&stage, ustages + i, sizeof(stage)))
			return -EFAULT;
		if (stage.first_cmd != next || !stage.cmd_count ||
		    stage.cmd_count > args->cmd_count - next)
			return -EINVAL;
		job->stage_first[i] = stage.first_cmd;
		job->stage_cmds[i] = stage.cmd_count;
		next += stage.cmd_count;
	}
	return next == args->cmd_count ? 0 : -EINVAL;
}

int npusim_submit_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct npusim_device *ndev = to_npusim_device(drm);
	struct npusim_file *nfile = file->driver_priv;
	struct drm_npusim_submit *args = data;
	struct drm_npusim_cmd *ucmds = NULL;
	struct npusim_job *job;
	u32 id;
	int ret;

	if (args->flags & ~DRM_NPUSIM_SUBMIT_TIMING_ONLY)
		return -EINVAL;
	if (args->priority < 0 || args->priority > DRM_NPUSIM_MAX_PRIORITY)
		return -EINVAL;
	if (!args->cmd_count || args->cmd_count > NPUSIM_MAX_CMDS || !args->stage_count ||
	    args->stage_count > args->cmd_count || args->bo_count > NPUSIM_MAX_BOS)
		return -EINVAL;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return -ENOMEM;
	spin_lock_init(&job->fence_lock);
	INIT_LIST_HEAD(&job->node);
	job->ndev = ndev;
	job->priority = args->priority;
	job->level = npusim_level_for(args->priority);
	job->flags = args->flags;
	job->cmd_count = args->cmd_count;
	job->stage_count = args->stage_count;
	job->submitted = ktime_get();
	/* the fence exists from here: its release frees everything the job holds */
	dma_fence_init(&job->fence, &npusim_fence_ops, &job->fence_lock, ndev->fence_context, 0);

	ret = -ENOMEM;
	job->cmds = kvcalloc(args->cmd_count, sizeof(*job->cmds), GFP_KERNEL);
	ucmds = kvcalloc(args->cmd_count, sizeof(*ucmds), GFP_KERNEL);
	if (!job->cmds || !ucmds)
		goto err;
	ret = -EFAULT;
	if (copy_from_user(ucmds, u64_to_user_ptr(args->cmds), args->cmd_count * sizeof(*ucmds)))
		goto err;
	ret = npusim_job_stages(job, args);
	if (ret)
		goto err;
	ret = npusim_job_lookup_bos(job, file, args, ucmds);
	if (ret)
		goto err;

	ret = xa_alloc(&nfile->jobs, &id, job, xa_limit_32b, GFP_KERNEL);
	if (ret)
		goto err;
	job->id = id;
	args->job_id = id;

	mutex_lock(&ndev->sched_lock);
	if (ndev->dead || ndev->lost) {
		mutex_unlock(&ndev->sched_lock);
		xa_erase(&nfile->jobs, id);
		ret = -ENODEV;
		goto err;
	}
	job->fence.seqno = ++ndev->fence_seqno;
	dma_fence_get(&job->fence);	/* the scheduler's, until npusim_job_end */
	list_add_tail(&job->node, &ndev->jobs);
	job->start_cycle = npusim_cycle(ndev);
	npusim_stage_queue(ndev, job);
	npusim_kick(ndev);
	mutex_unlock(&ndev->sched_lock);
	kvfree(ucmds);
	return 0;

err:
	while (job->bo_count)
		drm_gem_object_put(job->bos[--job->bo_count]);
	kvfree(ucmds);
	dma_fence_put(&job->fence);
	return ret;
}

int npusim_wait_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct npusim_file *nfile = file->driver_priv;
	struct drm_npusim_wait *args = data;
	struct npusim_job *job;
	long timeout, ret;

	if (args->pad)
		return -EINVAL;
	xa_lock(&nfile->jobs);
	job = xa_load(&nfile->jobs, args->job_id);
	if (job)
		dma_fence_get(&job->fence);
	xa_unlock(&nfile->jobs);
	if (!job)
		return -ENOENT;

	timeout = args->timeout_ns < 0 ? MAX_SCHEDULE_TIMEOUT : nsecs_to_jiffies(args->timeout_ns);
	ret = dma_fence_wait_timeout(&job->fence, true, timeout);
	if (ret == 0) {
		ret = -ETIME;
	} else if (ret > 0) {
		args->status = job->fence.error;
		args->retries = job->retries;
		args->device_cycles = job->cycles;
		args->energy_pj = job->energy_pj;
		args->wall_ns = ktime_to_ns(ktime_sub(job->end, job->submitted));
		args->latency_cycles = job->end_cycle - job->start_cycle;
		/* a job is waited for once: the file forgets it */
		if (xa_erase(&nfile->jobs, args->job_id) == job)
			dma_fence_put(&job->fence);
		ret = 0;
	}
	dma_fence_put(&job->fence);
	return ret;
}

/* The file closes: its jobs run on (the scheduler holds them) but nobody will wait for them. */
void npusim_file_jobs_fini(struct npusim_file *nfile)
{
	struct npusim_job *job;
	unsigned long id;

	xa_for_each(&nfile->jobs, id, job) {
		xa_erase(&nfile->jobs, id);
		dma_fence_put(&job->fence);
	}
	xa_destroy(&nfile->jobs);
}

const char *npusim_level_name(u32 level)
{
	return level < NPUSIM_LEVELS ? level_names[level] : "?";
}
