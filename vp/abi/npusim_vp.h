/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The npusim virtual platform's transport: how a guest kernel driver reaches the simulated NPU when
 * it is served as a QEMU ivshmem-doorbell PCI function. Shared, unchanged, by the device side
 * (npusim vp, C++) and the guest's Linux driver (C). On silicon none of this exists: the registers
 * are BAR0 MMIO.
 *
 * ivshmem has no trapped MMIO, so register accesses travel through a mailbox:
 *   BAR2 = [0, dram_bytes)               the NPU's device memory (the model's DRAM, guest-mapped)
 *          [bar2_size - 4 KiB, bar2_size) this mailbox
 * One request at a time (the guest serialises accesses under a lock): the guest fills op, offset
 * and value, then increments req_seq and rings doorbell vector NPUSIM_VP_VEC_MAILBOX of peer
 * NPUSIM_VP_SERVER_PEER (ivshmem BAR0 DOORBELL = peer << 16 | vector). The device performs the
 * access on the simulated register file at the current simulated time, writes value (reads) and
 * status, then sets ack_seq = req_seq. The NPU's level interrupt reaches the guest as MSI-X vector
 * 0 each time the line rises (and again on RUN while it is still high).
 *
 * Time: the simulation is frozen between requests; each access advances it by its bus time, as in
 * process. NPUSIM_VP_OP_RUN says "the driver has nothing more to write now": the device then
 * simulates until its interrupt line is high or nothing is left to simulate, and freezes again;
 * only then is RUN answered (ack_seq), after the MSI-X of a rise during it. A driver issues it
 * after programming work and at the end of its interrupt handling; on silicon it is a no-op.
 */
#ifndef NPUSIM_VP_H
#define NPUSIM_VP_H

#include <linux/types.h>

#define NPUSIM_VP_MAGIC 0x5056504eu /* "NPVP", written by the device when it is ready */
#define NPUSIM_VP_VERSION 1u
#define NPUSIM_VP_MAILBOX_BYTES 4096u /* the last page of BAR2 */
#define NPUSIM_VP_SERVER_PEER 0u      /* the device's ivshmem peer id */
#define NPUSIM_VP_VEC_MAILBOX 0u      /* doorbell vector: a request is in the mailbox */
#define NPUSIM_VP_MSIX_IRQ 0u         /* guest MSI-X vector: the NPU interrupt line rose */

enum npusim_vp_op {
	NPUSIM_VP_OP_READ32 = 1,
	NPUSIM_VP_OP_WRITE32 = 2,
	NPUSIM_VP_OP_RUN = 3,
};

enum npusim_vp_status {
	NPUSIM_VP_OK = 0,
	/* the register file answered an error (e.g. a write to a RO register) */
	NPUSIM_VP_BUS_ERROR = 1,
	NPUSIM_VP_BAD_OP = 2,
};

enum npusim_vp_state {
	NPUSIM_VP_STATE_READY = 1,
	NPUSIM_VP_STATE_STOPPED = 2, /* the device side has ended: no further request is answered */
};

struct npusim_vp_mailbox {
	__u32 magic;         /* device: NPUSIM_VP_MAGIC once serving */
	__u32 version;       /* device: NPUSIM_VP_VERSION */
	__u32 state;         /* device: enum npusim_vp_state */
	__u32 reserved0;
	__u64 dram_bytes;    /* device: size of the device memory at the start of BAR2 */
	__u64 sim_time_ps;   /* device: simulated time after the last request (for logs) */
	__u32 req_seq;       /* guest: incremented once op/offset/value are written */
	__u32 ack_seq;       /* device: = req_seq when the request is done */
	__u32 op;            /* guest: enum npusim_vp_op */
	__u32 offset;        /* guest: register offset from the MMIO base */
	__u32 value;         /* guest: write value; device: read result */
	__u32 status;        /* device: enum npusim_vp_status */
};

#endif /* NPUSIM_VP_H */
