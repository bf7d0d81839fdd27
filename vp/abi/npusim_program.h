/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * An npusim program file: one model compiled on the host (`npusim program`) into what a client of
 * the kernel driver needs to run it without the HAL: buffer objects with their initial contents,
 * where each input and output operand lives, the command buffers of each job's stages, and the
 * relocations that patch device addresses once the guest has allocated the buffer objects. Written
 * by npusim (C++), read by the guest runner (C). Little-endian; every *_off is a byte offset from
 * the start of the file.
 *
 * Running it: allocate each BO (flags as given), copy init bytes to offset 0 of it; write every
 * input operand's raw bytes at (bo, bo_offset); copy all command buffers into one command BO, and
 * for each relocation store the 64-bit device address of (bo, bo_offset) at byte_offset of command
 * buffer cmd; submit the jobs in order, each job's stages in order (a stage's command buffers may
 * run in parallel, stage k + 1 starts when stage k is complete); read every output operand's raw
 * bytes back.
 */
#ifndef NPUSIM_PROGRAM_H
#define NPUSIM_PROGRAM_H

#include <linux/types.h>

#define NPUSIM_PROGRAM_MAGIC "NPUPROG1" /* 8 bytes, no terminator in the file */
#define NPUSIM_PROGRAM_VERSION 1u
#define NPUSIM_DESCRIPTOR_BYTES 128u

#define NPUSIM_PROGRAM_TIMING_ONLY 0x1u /* command buffers move and compute no data */
#define NPUSIM_PROGRAM_BO_WEIGHTS 0x1u /* place in the weight-memory region */

struct npusim_program_header {
	char magic[8];
	__u32 version;
	__u32 flags;         /* NPUSIM_PROGRAM_TIMING_ONLY */
	char model[64];      /* NUL-terminated name, for reports */
	__u64 file_bytes;    /* the whole file, for a truncation check */
	__u32 bo_count, input_count, output_count, job_count;
	__u32 stage_count, cmd_count, reloc_count, reserved0;
	__u64 bos_off, inputs_off, outputs_off, jobs_off;
	__u64 stages_off, cmds_off, relocs_off;
	/* Σ CH_CYCLES of the in-process run that wrote the file (0: not run) */
	__u64 device_cycles;
};

struct npusim_program_bo {
	__u64 size;
	__u32 flags;         /* NPUSIM_PROGRAM_BO_WEIGHTS */
	__u32 reserved0;
	/* initial contents, copied to offset 0 of the BO; init_bytes == 0: zeroed */
	__u64 init_off;
	__u64 init_bytes;
};

struct npusim_program_io {
	__u32 operand;       /* the model's operand index */
	__u32 bo;
	__u64 bo_offset;
	/* the operand's raw bytes, row-major, as `npusim run` reads and writes them */
	__u64 bytes;
};

struct npusim_program_job {
	__u32 first_stage, stage_count;
	__s32 priority;      /* 0 most urgent ... 1000, as the in-process driver's job priority */
	__u32 reserved0;
};

struct npusim_program_stage {
	__u32 first_cmd, cmd_count;
};

struct npusim_program_cmd {
	__u64 desc_off;      /* descriptors, NPUSIM_DESCRIPTOR_BYTES each */
	__u32 desc_count;
	__u32 reserved0;
};

struct npusim_program_reloc {
	__u32 cmd;           /* command buffer index */
	__u32 byte_offset;   /* of a 64-bit device-address field within that command buffer */
	__u32 bo;            /* the field becomes device address of bo + bo_offset */
	__u32 reserved0;
	__u64 bo_offset;
};

#endif /* NPUSIM_PROGRAM_H */
