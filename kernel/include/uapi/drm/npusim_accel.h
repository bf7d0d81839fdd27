/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * npusim NPU accel driver: user-space interface.
 *
 * A client allocates buffer objects in device memory (BO_CREATE), fills them through mmap of the
 * returned offset, writes command buffers (128-byte descriptors) holding the device addresses of
 * its buffers, and submits a job: stages of command buffers run in order, the buffers of one
 * stage in parallel on the NPU's channels. WAIT sleeps until the job ended or the timeout passed.
 */
#ifndef __UAPI_NPUSIM_ACCEL_H__
#define __UAPI_NPUSIM_ACCEL_H__

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define DRM_NPUSIM_GET_PARAM 0x00
#define DRM_NPUSIM_BO_CREATE 0x01
#define DRM_NPUSIM_SUBMIT 0x02
#define DRM_NPUSIM_WAIT 0x03

#define DRM_IOCTL_NPUSIM_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NPUSIM_GET_PARAM, struct drm_npusim_get_param)
#define DRM_IOCTL_NPUSIM_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NPUSIM_BO_CREATE, struct drm_npusim_bo_create)
#define DRM_IOCTL_NPUSIM_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NPUSIM_SUBMIT, struct drm_npusim_submit)
#define DRM_IOCTL_NPUSIM_WAIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NPUSIM_WAIT, struct drm_npusim_wait)

/* GET_PARAM: what probe read from the NPU's registers */
#define DRM_NPUSIM_PARAM_NPU_ID 0		/* NPU_ID */
#define DRM_NPUSIM_PARAM_VERSION 1		/* NPU_VERSION */
#define DRM_NPUSIM_PARAM_CONFIG 2		/* NPU_CONFIG */
#define DRM_NPUSIM_PARAM_CONFIG2 3		/* NPU_CONFIG2 */
#define DRM_NPUSIM_PARAM_SRAM_KIB 4		/* NPU_SRAM_KIB */
#define DRM_NPUSIM_PARAM_CAPS 5			/* NPU_CAPS */
#define DRM_NPUSIM_PARAM_CHANNELS 6		/* NPU_CONFIG.channels */
#define DRM_NPUSIM_PARAM_DRAM_BYTES 7		/* device memory */
#define DRM_NPUSIM_PARAM_WEIGHT_MEM_BASE 8	/* weight-memory region, device address */
#define DRM_NPUSIM_PARAM_WEIGHT_MEM_BYTES 9
#define DRM_NPUSIM_PARAM_TRANSPORT 10		/* 0: MMIO (silicon), 1: npusim VP mailbox */

struct drm_npusim_get_param {
	__u32 param;	/* in: DRM_NPUSIM_PARAM_* */
	__u32 pad;	/* must be zero */
	__u64 value;	/* out */
};

/* BO_CREATE flags */
#define DRM_NPUSIM_BO_WEIGHTS 0x1	/* place in the weight-memory region */

struct drm_npusim_bo_create {
	__u64 size;		/* in: bytes, rounded up to pages */
	__u32 flags;		/* in: DRM_NPUSIM_BO_* */
	__u32 handle;		/* out: GEM handle */
	__u64 device_addr;	/* out: device address of byte 0 */
	__u64 mmap_offset;	/* out: offset to pass to mmap() of the accel file */
};

/* One command buffer: desc_count descriptors at byte offset of a BO (128-byte aligned) */
struct drm_npusim_cmd {
	__u32 bo_handle;
	__u32 desc_count;
	__u64 offset;
};

/* One stage: cmds[first_cmd, first_cmd + cmd_count), run in parallel */
struct drm_npusim_stage {
	__u32 first_cmd;
	__u32 cmd_count;
};

/* SUBMIT flags */
#define DRM_NPUSIM_SUBMIT_TIMING_ONLY 0x1	/* ring with CH_DOORBELL.timing_only */

#define DRM_NPUSIM_MAX_PRIORITY 1000	/* 0 most urgent ... 1000 */

struct drm_npusim_submit {
	__u64 cmds;		/* in: pointer to cmd_count struct drm_npusim_cmd */
	__u64 stages;		/* in: pointer to stage_count struct drm_npusim_stage */
	__u64 bo_handles;	/* in: pointer to bo_count __u32: every BO the job's DMA touches */
	__u32 cmd_count;
	__u32 stage_count;
	__u32 bo_count;
	__u32 flags;		/* in: DRM_NPUSIM_SUBMIT_* */
	__s32 priority;		/* in: 0 ... DRM_NPUSIM_MAX_PRIORITY */
	__u32 job_id;		/* out: for WAIT */
};

struct drm_npusim_wait {
	__u32 job_id;		/* in */
	__u32 pad;		/* must be zero */
	__s64 timeout_ns;	/* in: relative, < 0 forever; expiry: the ioctl fails, ETIME */
	__s32 status;		/* out: 0 or -errno (EIO, ETIMEDOUT, ECANCELED, ENODEV) */
	__u32 retries;		/* out: command buffers retried after a hang */
	__u64 device_cycles;	/* out: sum of CH_CYCLES of the job's command buffers */
	__u64 energy_pj;	/* out: sum of CH_ENERGY */
	__u64 wall_ns;		/* out: submit to end, guest clock */
	__u64 latency_cycles;	/* out: submit to end, the NPU's free-running cycle counter */
};

#if defined(__cplusplus)
}
#endif

#endif /* __UAPI_NPUSIM_ACCEL_H__ */
