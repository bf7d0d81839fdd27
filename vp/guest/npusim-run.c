// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npusim-run: runs an npusim program file (vp/abi/npusim_program.h) through the npusim accel driver.
 *
 *   npusim-run [-d /dev/accel/accel0] [-p PRIORITY] [-n REPEAT] [-q] PROGRAM INPUTS.bin OUTPUTS.bin
 *   npusim-run [-d DEVICE] -B     the driver's answers to bad requests, each against the errno it must give
 *
 * INPUTS.bin is every input operand's raw bytes, concatenated in the program's input order (an empty
 * file or "-" for a timing-only program); OUTPUTS.bin gets every output operand's raw bytes in the
 * program's output order. Prints a line per job and a RESULT line per run.
 *
 * Exit: 0 every job completed; 1 bad usage or input (named); 2 the device or an ioctl failed; 3 a job
 * ended with an error (its errno printed).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "npusim_accel.h"
#include "npusim_program.h"
#include "npusim_regs.h"

static const char *prog_path;

static void fail(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "npusim-run: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *read_file(const char *path, uint64_t *size)
{
	struct stat st;
	uint8_t *buf;
	uint64_t done = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		fail(1, "%s: %s", path, strerror(errno));
	*size = (uint64_t)st.st_size;
	buf = malloc(*size ? *size : 1);
	if (!buf)
		fail(1, "%s: out of memory for %" PRIu64 " bytes", path, *size);
	while (done < *size) {
		ssize_t n = read(fd, buf + done, *size - done);

		if (n <= 0)
			fail(1, "%s: read: %s", path, n ? strerror(errno) : "short file");
		done += (uint64_t)n;
	}
	close(fd);
	return buf;
}

/* off + count * each within the file, without overflow */
static void need(uint64_t file, uint64_t off, uint64_t count, uint64_t each, const char *what)
{
	if (off > file || (each && count > (file - off) / each))
		fail(1, "%s: %s (offset %" PRIu64 ", %" PRIu64 " x %" PRIu64 " bytes) beyond the file's %" PRIu64 " bytes",
		     prog_path, what, off, count, each, file);
}

struct bo {
	uint32_t handle;
	uint64_t addr, size;
	uint8_t *map;
};

static int dev_fd;

static void xioctl(unsigned long req, void *arg, const char *what)
{
	int ret;

	do
		ret = ioctl(dev_fd, req, arg);
	while (ret && (errno == EINTR || errno == EAGAIN));
	if (ret)
		fail(2, "%s: %s (errno %d)", what, strerror(errno), errno);
}

static uint64_t param(uint32_t p)
{
	struct drm_npusim_get_param gp = { .param = p };

	xioctl(DRM_IOCTL_NPUSIM_GET_PARAM, &gp, "GET_PARAM");
	return gp.value;
}

/* One bad request: the ioctl must fail with want. */
static int bad(unsigned long req, void *arg, int want, const char *what)
{
	int ret = ioctl(dev_fd, req, arg), got = ret ? errno : 0;

	printf("%-52s %s (errno %d%s%s)\n", what, got == want ? "ok" : "WRONG", got,
	       got == want ? "" : ", want ", got == want ? "" : strerror(want));
	return got != want;
}

static void put32(uint8_t *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* One descriptor at d: opcode, and for the DMA opcodes device address, row bytes, rows, stride. */
static void descriptor(uint8_t *d, uint32_t op, uint64_t dev, uint32_t row_bytes, uint32_t rows, uint32_t stride)
{
	memset(d, 0, NPUSIM_DESC_BYTES);
	put32(d + NPUSIM_DESC_OPCODE, op);
	put32(d + NPUSIM_DESC_DMA_DEV, (uint32_t)dev);
	put32(d + NPUSIM_DESC_DMA_DEV + 4, (uint32_t)(dev >> 32));
	put32(d + NPUSIM_DESC_DMA_ROW_BYTES, row_bytes);
	put32(d + NPUSIM_DESC_DMA_ROWS, rows);
	put32(d + NPUSIM_DESC_DMA_DEV_STRIDE, stride);
	__sync_synchronize();
}

/* A submission the driver must accept, and its job complete. */
static int good(struct drm_npusim_submit *s, const char *what)
{
	struct drm_npusim_wait w = { .timeout_ns = 60ll * 1000000000ll };
	int ret = ioctl(dev_fd, DRM_IOCTL_NPUSIM_SUBMIT, s), got = ret ? errno : 0;

	if (!ret) {
		w.job_id = s->job_id;
		ret = ioctl(dev_fd, DRM_IOCTL_NPUSIM_WAIT, &w);
		got = ret ? errno : -w.status;
	}
	printf("%-52s %s (errno %d)\n", what, got ? "WRONG" : "ok", got);
	return got != 0;
}

/* The driver's checks of ioctl arguments, against a real device. */
static int bad_requests(const char *dev)
{
	struct drm_npusim_bo_create c = { .size = 4096 };
	struct drm_npusim_cmd cmd = { 0 };
	struct drm_npusim_stage st = { 0, 1 };
	struct drm_npusim_submit s = { 0 };
	struct drm_npusim_wait w = { .job_id = 12345, .timeout_ns = 1000 };
	struct drm_npusim_get_param gp = { .param = 999 };
	uint32_t handle, nope = 0xdead, listed[2];
	int fails = 0, other_fd;
	uint64_t data, cmd_addr;
	uint8_t *map;

	fails += bad(DRM_IOCTL_NPUSIM_GET_PARAM, &gp, EINVAL, "GET_PARAM of an unknown parameter");
	c.size = 0;
	fails += bad(DRM_IOCTL_NPUSIM_BO_CREATE, &c, EINVAL, "BO_CREATE of 0 bytes");
	c.size = 4096;
	c.flags = 0x80;
	fails += bad(DRM_IOCTL_NPUSIM_BO_CREATE, &c, EINVAL, "BO_CREATE with an unknown flag");
	c.flags = DRM_NPUSIM_BO_WEIGHTS;
	c.size = param(DRM_NPUSIM_PARAM_WEIGHT_MEM_BYTES) + 4096;
	fails += bad(DRM_IOCTL_NPUSIM_BO_CREATE, &c, ENOSPC, "BO_CREATE of weights larger than their region");
	c.flags = 0;
	c.size = 4096;
	xioctl(DRM_IOCTL_NPUSIM_BO_CREATE, &c, "BO_CREATE");
	handle = c.handle;
	cmd_addr = c.device_addr;
	s.cmds = (uintptr_t)&cmd;
	s.stages = (uintptr_t)&st;
	s.bo_handles = (uintptr_t)&nope;
	s.cmd_count = 1;
	s.stage_count = 1;
	cmd.bo_handle = handle;
	cmd.desc_count = 1;
	s.bo_count = 1;
	fails += bad(DRM_IOCTL_NPUSIM_SUBMIT, &s, ENOENT, "SUBMIT listing a BO handle that does not exist");
	s.bo_handles = (uintptr_t)&handle;
	cmd.desc_count = 33;
	fails += bad(DRM_IOCTL_NPUSIM_SUBMIT, &s, EINVAL, "SUBMIT of 33 descriptors in a 4 KiB BO");
	cmd.desc_count = 1;
	cmd.offset = 64;
	fails += bad(DRM_IOCTL_NPUSIM_SUBMIT, &s, EINVAL, "SUBMIT of a command buffer not 128-byte aligned");
	cmd.offset = 0;
	s.priority = 1001;
	fails += bad(DRM_IOCTL_NPUSIM_SUBMIT, &s, EINVAL, "SUBMIT at priority 1001");
	s.priority = 0;
	st.cmd_count = 2;
	fails += bad(DRM_IOCTL_NPUSIM_SUBMIT, &s, EINVAL, "SUBMIT whose stage covers more buffers than given");
	st.cmd_count = 1;
	s.cmds = 8;
	fails += bad(DRM_IOCTL_NPUSIM_SUBMIT, &s, EFAULT, "SUBMIT with a bad command-buffer pointer");
	fails += bad(DRM_IOCTL_NPUSIM_WAIT, &w, ENOENT, "WAIT for a job that does not exist");

	/* the device addresses descriptors carry: only inside the BOs the submission lists */
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, dev_fd, (off_t)c.mmap_offset);
	c.size = 4096;
	c.flags = 0;
	xioctl(DRM_IOCTL_NPUSIM_BO_CREATE, &c, "BO_CREATE (data)");
	listed[0] = handle;
	listed[1] = c.handle;
	data = c.device_addr;
	/* a BO of another open file: what another process would own */
	other_fd = open(dev, O_RDWR | O_CLOEXEC);
	if (map == MAP_FAILED || other_fd < 0)
		fail(2, "%s: mmap or second open: %s", dev, strerror(errno));
	c.size = 4096;
	if (ioctl(other_fd, DRM_IOCTL_NPUSIM_BO_CREATE, &c))
		fail(2, "BO_CREATE (another file): %s", strerror(errno));
	s.cmds = (uintptr_t)&cmd;
	s.bo_handles = (uintptr_t)listed;
	s.bo_count = 2;
	descriptor(map, NPUSIM_OP_DMA_IN, data + 64, 64, 4, 128);
	fails += good(&s, "SUBMIT of a DMA_IN inside a listed BO, and WAIT");
	descriptor(map, NPUSIM_OP_DMA_IN, c.device_addr, 64, 1, 0);
	fails += bad(DRM_IOCTL_NPUSIM_SUBMIT, &s, EINVAL, "SUBMIT of a DMA_IN from another file's BO");
	descriptor(map, NPUSIM_OP_DMA_OUT, data, 64, 1, 0);
	s.bo_count = 1;
	fails += bad(DRM_IOCTL_NPUSIM_SUBMIT, &s, EINVAL, "SUBMIT of a DMA_OUT to a BO it does not list");
	s.bo_count = 2;
	descriptor(map, NPUSIM_OP_DMA_OUT, data + 4096 - 256, 64, 3, 128);
	fails += bad(DRM_IOCTL_NPUSIM_SUBMIT, &s, EINVAL, "SUBMIT of a DMA_OUT whose last row passes its BO");
	descriptor(map, NPUSIM_OP_DMA_GATHER, data, 64, 1, 64);
	put32(map + NPUSIM_DESC_GATHER_TABLE_ROWS, 65);
	fails += bad(DRM_IOCTL_NPUSIM_SUBMIT, &s, EINVAL, "SUBMIT of a DMA_GATHER whose table passes its BO");
	descriptor(map, NPUSIM_DESC_OPCODE_COUNT, 0, 0, 0, 0);
	fails += bad(DRM_IOCTL_NPUSIM_SUBMIT, &s, EINVAL, "SUBMIT of a descriptor with an unknown opcode");
	descriptor(map + NPUSIM_DESC_BYTES, NPUSIM_OP_DMA_IN, (data > cmd_addr ? data : cmd_addr) + 4096, 64, 1, 0);
	descriptor(map, NPUSIM_OP_NOP, 0, 0, 0, 0);
	cmd.desc_count = 2;
	fails += bad(DRM_IOCTL_NPUSIM_SUBMIT, &s, EINVAL, "SUBMIT whose second descriptor DMAs past both BOs");
	descriptor(map + NPUSIM_DESC_BYTES, NPUSIM_OP_DMA_OUT, data, 4096, 1, 0);
	fails += good(&s, "SUBMIT of a DMA_OUT filling a listed BO, and WAIT");
	close(other_fd);
	printf("BAD-REQUESTS %s\n", fails ? "FAILED" : "ok");
	return fails ? 3 : 0;
}

static void put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/accel/accel0";
	int priority = -1, repeat = 1, quiet = 0, opt, bad_mode = 0;
	uint64_t fsize, isize = 0, obytes = 0, ibytes = 0, cmd_bytes = 0, total_cycles = 0;
	const struct npusim_program_header *h;
	const struct npusim_program_bo *pbos;
	const struct npusim_program_io *ins, *outs;
	const struct npusim_program_job *jobs;
	const struct npusim_program_stage *stages;
	const struct npusim_program_cmd *cmds;
	const struct npusim_program_reloc *relocs;
	uint64_t *cmd_at, wall_min = UINT64_MAX, wall_max = 0, wall_sum = 0, lat_sum = 0;
	uint8_t *file, *inputs = NULL, *cmdbuf;
	struct bo *bos, cbo;
	uint32_t *handles, i, j, k;
	int failed = 0, r;

	while ((opt = getopt(argc, argv, "d:p:n:qB")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'p': priority = atoi(optarg); break;
		case 'n': repeat = atoi(optarg); break;
		case 'q': quiet = 1; break;
		case 'B': bad_mode = 1; break;
		default: goto usage;
		}
	}
	if (bad_mode) {
		dev_fd = open(dev, O_RDWR | O_CLOEXEC);
		if (dev_fd < 0)
			fail(2, "%s: %s", dev, strerror(errno));
		return bad_requests(dev);
	}
	if (argc - optind != 3 || repeat < 1 || priority > DRM_NPUSIM_MAX_PRIORITY) {
usage:
		fprintf(stderr, "usage: npusim-run [-d DEVICE] [-p PRIORITY 0..1000] [-n REPEAT] [-q] PROGRAM INPUTS.bin OUTPUTS.bin\n");
		return 1;
	}
	prog_path = argv[optind];

	/* the program, every table and range checked before anything is used */
	file = read_file(prog_path, &fsize);
	need(fsize, 0, 1, sizeof(*h), "header");
	h = (const void *)file;
	if (memcmp(h->magic, NPUSIM_PROGRAM_MAGIC, 8))
		fail(1, "%s: not an npusim program (magic)", prog_path);
	if (h->version != NPUSIM_PROGRAM_VERSION)
		fail(1, "%s: program version %u, this runner reads %u", prog_path, h->version, NPUSIM_PROGRAM_VERSION);
	if (!memchr(h->model, 0, sizeof(h->model)))
		fail(1, "%s: model name not terminated", prog_path);
	if (h->file_bytes != fsize)
		fail(1, "%s: header says %" PRIu64 " bytes, the file has %" PRIu64 " (truncated?)", prog_path, h->file_bytes, fsize);
	need(fsize, h->bos_off, h->bo_count, sizeof(*pbos), "BO table");
	need(fsize, h->inputs_off, h->input_count, sizeof(*ins), "input table");
	need(fsize, h->outputs_off, h->output_count, sizeof(*outs), "output table");
	need(fsize, h->jobs_off, h->job_count, sizeof(*jobs), "job table");
	need(fsize, h->stages_off, h->stage_count, sizeof(*stages), "stage table");
	need(fsize, h->cmds_off, h->cmd_count, sizeof(*cmds), "command-buffer table");
	need(fsize, h->relocs_off, h->reloc_count, sizeof(*relocs), "relocation table");
	pbos = (const void *)(file + h->bos_off);
	ins = (const void *)(file + h->inputs_off);
	outs = (const void *)(file + h->outputs_off);
	jobs = (const void *)(file + h->jobs_off);
	stages = (const void *)(file + h->stages_off);
	cmds = (const void *)(file + h->cmds_off);
	relocs = (const void *)(file + h->relocs_off);
	if (!h->bo_count || !h->job_count || !h->cmd_count)
		fail(1, "%s: no BOs, jobs or command buffers", prog_path);
	for (i = 0; i < h->bo_count; i++) {
		if (!pbos[i].size)
			fail(1, "%s: BO %u has size 0", prog_path, i);
		if (pbos[i].init_bytes > pbos[i].size)
			fail(1, "%s: BO %u: %" PRIu64 " init bytes > size %" PRIu64, prog_path, i, pbos[i].init_bytes, pbos[i].size);
		need(fsize, pbos[i].init_off, pbos[i].init_bytes, 1, "BO initial contents");
	}
	for (i = 0; i < h->input_count + h->output_count; i++) {
		const struct npusim_program_io *io = i < h->input_count ? &ins[i] : &outs[i - h->input_count];

		if (io->bo >= h->bo_count || io->bo_offset > pbos[io->bo].size ||
		    io->bytes > pbos[io->bo].size - io->bo_offset)
			fail(1, "%s: %s operand %u: BO %u [%" PRIu64 ", +%" PRIu64 ") outside the program's BOs", prog_path,
			     i < h->input_count ? "input" : "output", io->operand, io->bo, io->bo_offset, io->bytes);
		if (i < h->input_count)
			ibytes += io->bytes;
		else
			obytes += io->bytes;
	}
	cmd_at = calloc(h->cmd_count, sizeof(*cmd_at));
	for (i = 0; i < h->cmd_count; i++) {
		if (!cmds[i].desc_count)
			fail(1, "%s: command buffer %u has no descriptors", prog_path, i);
		need(fsize, cmds[i].desc_off, cmds[i].desc_count, NPUSIM_DESCRIPTOR_BYTES, "descriptors");
		cmd_at[i] = cmd_bytes;
		cmd_bytes += (uint64_t)cmds[i].desc_count * NPUSIM_DESCRIPTOR_BYTES;
	}
	for (i = 0; i < h->stage_count; i++)
		if (stages[i].first_cmd > h->cmd_count || !stages[i].cmd_count ||
		    stages[i].cmd_count > h->cmd_count - stages[i].first_cmd)
			fail(1, "%s: stage %u: command buffers [%u, +%u) of %u", prog_path, i, stages[i].first_cmd,
			     stages[i].cmd_count, h->cmd_count);
	for (i = 0; i < h->job_count; i++)
		if (jobs[i].first_stage > h->stage_count || !jobs[i].stage_count ||
		    jobs[i].stage_count > h->stage_count - jobs[i].first_stage)
			fail(1, "%s: job %u: stages [%u, +%u) of %u", prog_path, i, jobs[i].first_stage,
			     jobs[i].stage_count, h->stage_count);
	for (i = 0; i < h->reloc_count; i++)
		if (relocs[i].cmd >= h->cmd_count || relocs[i].bo >= h->bo_count ||
		    (uint64_t)relocs[i].byte_offset + 8 > (uint64_t)cmds[relocs[i].cmd].desc_count * NPUSIM_DESCRIPTOR_BYTES ||
		    relocs[i].bo_offset > pbos[relocs[i].bo].size)
			fail(1, "%s: relocation %u (command buffer %u, byte %u, BO %u + %" PRIu64 ") out of range",
			     prog_path, i, relocs[i].cmd, relocs[i].byte_offset, relocs[i].bo, relocs[i].bo_offset);

	if (strcmp(argv[optind + 1], "-")) {
		inputs = read_file(argv[optind + 1], &isize);
		if (isize != ibytes)
			fail(1, "%s: %" PRIu64 " bytes, the program's %u inputs take %" PRIu64, argv[optind + 1], isize,
			     h->input_count, ibytes);
	} else if (ibytes && !(h->flags & NPUSIM_PROGRAM_TIMING_ONLY)) {
		fail(1, "no inputs given; the program's %u inputs take %" PRIu64 " bytes", h->input_count, ibytes);
	}

	dev_fd = open(dev, O_RDWR | O_CLOEXEC);
	if (dev_fd < 0)
		fail(2, "%s: %s", dev, strerror(errno));
	if (!quiet)
		printf("npu: id 0x%08" PRIx64 " version 0x%08" PRIx64 " %" PRIu64 " channels, %" PRIu64 " MiB device memory, transport %s\n",
		       param(DRM_NPUSIM_PARAM_NPU_ID), param(DRM_NPUSIM_PARAM_VERSION), param(DRM_NPUSIM_PARAM_CHANNELS),
		       param(DRM_NPUSIM_PARAM_DRAM_BYTES) >> 20, param(DRM_NPUSIM_PARAM_TRANSPORT) ? "vp" : "mmio");

	/* buffer objects, with their initial contents */
	bos = calloc(h->bo_count, sizeof(*bos));
	handles = calloc(h->bo_count + 1, sizeof(*handles));
	for (i = 0; i <= h->bo_count; i++) {
		struct drm_npusim_bo_create c = { 0 };
		struct bo *b = i < h->bo_count ? &bos[i] : &cbo;

		c.size = i < h->bo_count ? pbos[i].size : cmd_bytes;
		c.flags = i < h->bo_count && (pbos[i].flags & NPUSIM_PROGRAM_BO_WEIGHTS) ? DRM_NPUSIM_BO_WEIGHTS : 0;
		xioctl(DRM_IOCTL_NPUSIM_BO_CREATE, &c, i < h->bo_count ? "BO_CREATE" : "BO_CREATE (command buffers)");
		b->handle = c.handle;
		b->addr = c.device_addr;
		b->size = c.size;
		b->map = mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_SHARED, dev_fd, (off_t)c.mmap_offset);
		if (b->map == MAP_FAILED)
			fail(2, "mmap of BO %u (%" PRIu64 " bytes): %s", i, c.size, strerror(errno));
		handles[i] = c.handle;
		if (i < h->bo_count) {
			memcpy(b->map, file + pbos[i].init_off, pbos[i].init_bytes);
			memset(b->map + pbos[i].init_bytes, 0, pbos[i].size - pbos[i].init_bytes);
		}
	}
	/* command buffers, relocated to where the BOs landed */
	cmdbuf = malloc(cmd_bytes);
	for (i = 0; i < h->cmd_count; i++)
		memcpy(cmdbuf + cmd_at[i], file + cmds[i].desc_off, (uint64_t)cmds[i].desc_count * NPUSIM_DESCRIPTOR_BYTES);
	for (i = 0; i < h->reloc_count; i++)
		put64(cmdbuf + cmd_at[relocs[i].cmd] + relocs[i].byte_offset,
		      bos[relocs[i].bo].addr + relocs[i].bo_offset);
	memcpy(cbo.map, cmdbuf, cmd_bytes);
	/* inputs */
	for (i = 0, isize = 0; inputs && i < h->input_count; i++) {
		memcpy(bos[ins[i].bo].map + ins[i].bo_offset, inputs + isize, ins[i].bytes);
		isize += ins[i].bytes;
	}

	for (r = 0; r < repeat && !failed; r++) {
		uint64_t t0 = now_ns(), cycles = 0, wall, lat = 0;

		for (j = 0; j < h->job_count && !failed; j++) {
			const struct npusim_program_job *pj = &jobs[j];
			uint32_t n = 0, first = stages[pj->first_stage].first_cmd;
			struct drm_npusim_stage st[pj->stage_count];
			struct drm_npusim_submit s = { 0 };
			struct drm_npusim_wait w = { 0 };
			struct drm_npusim_cmd *uc;

			for (k = 0; k < pj->stage_count; k++)
				n += stages[pj->first_stage + k].cmd_count;
			uc = calloc(n, sizeof(*uc));
			for (k = 0, n = 0; k < pj->stage_count; k++) {
				const struct npusim_program_stage *ps = &stages[pj->first_stage + k];
				uint32_t c;

				st[k].first_cmd = n;
				st[k].cmd_count = ps->cmd_count;
				for (c = 0; c < ps->cmd_count; c++, n++) {
					uc[n].bo_handle = cbo.handle;
					uc[n].desc_count = cmds[ps->first_cmd + c].desc_count;
					uc[n].offset = cmd_at[ps->first_cmd + c];
				}
			}
			(void)first;
			s.cmds = (uintptr_t)uc;
			s.stages = (uintptr_t)st;
			s.bo_handles = (uintptr_t)handles;
			s.cmd_count = n;
			s.stage_count = pj->stage_count;
			s.bo_count = h->bo_count + 1;
			s.flags = (h->flags & NPUSIM_PROGRAM_TIMING_ONLY) ? DRM_NPUSIM_SUBMIT_TIMING_ONLY : 0;
			s.priority = priority >= 0 ? priority : pj->priority;
			xioctl(DRM_IOCTL_NPUSIM_SUBMIT, &s, "SUBMIT");
			w.job_id = s.job_id;
			w.timeout_ns = 600ll * 1000000000ll;
			xioctl(DRM_IOCTL_NPUSIM_WAIT, &w, "WAIT");
			free(uc);
			cycles += (uint64_t)w.device_cycles;
			lat += (uint64_t)w.latency_cycles;
			if (!quiet || w.status)
				printf("job %u: status %d%s%s cycles %" PRIu64 " latency_cycles %" PRIu64 " energy_pj %" PRIu64
				       " retries %u wall_us %" PRIu64 "\n",
				       j, w.status, w.status ? " " : "", w.status ? strerror(-w.status) : "",
				       (uint64_t)w.device_cycles, (uint64_t)w.latency_cycles, (uint64_t)w.energy_pj, w.retries,
				       (uint64_t)w.wall_ns / 1000);
			if (w.status) {
				printf("ERROR job=%u errno=%d (%s)\n", j, -w.status, strerror(-w.status));
				failed = 1;
			}
		}
		wall = now_ns() - t0;
		wall_sum += wall;
		wall_min = wall < wall_min ? wall : wall_min;
		wall_max = wall > wall_max ? wall : wall_max;
		total_cycles = cycles;
		lat_sum += lat;
		if (!quiet)
			printf("run %d: device_cycles %" PRIu64 " latency_cycles %" PRIu64 " wall_us %" PRIu64 "\n", r, cycles,
			       lat, wall / 1000);
	}
	if (failed)
		return 3;

	/* outputs */
	{
		FILE *o = fopen(argv[optind + 2], "wb");

		if (!o)
			fail(1, "%s: %s", argv[optind + 2], strerror(errno));
		for (i = 0; i < h->output_count; i++) {
			uint8_t *tmp = malloc(outs[i].bytes ? outs[i].bytes : 1);

			/* one read of the (write-combined, uncached) mapping into normal memory */
			memcpy(tmp, bos[outs[i].bo].map + outs[i].bo_offset, outs[i].bytes);
			if (fwrite(tmp, 1, outs[i].bytes, o) != outs[i].bytes)
				fail(1, "%s: write failed", argv[optind + 2]);
			free(tmp);
		}
		if (fclose(o))
			fail(1, "%s: %s", argv[optind + 2], strerror(errno));
	}
	printf("RESULT model=%s jobs=%u device_cycles=%" PRIu64 " expected_cycles=%" PRIu64 " repeat=%d wall_us_mean=%" PRIu64
	       " wall_us_min=%" PRIu64 " wall_us_max=%" PRIu64 " latency_cycles_mean=%" PRIu64 " priority=%d output_bytes=%" PRIu64 "\n",
	       h->model, h->job_count, total_cycles, (uint64_t)h->device_cycles, repeat, wall_sum / repeat / 1000, wall_min / 1000,
	       wall_max / 1000, lat_sum / (uint64_t)repeat, priority, obytes);
	return 0;
}
