// The virtual platform's device side without QEMU: the test is the ivshmem client QEMU would be. It
// connects to the server's socket, takes the shared memory and the two eventfds from the setup messages,
// maps BAR2, and drives the NPU through the mailbox of vp/abi/npusim_vp.h as the guest's kernel driver
// would: identification, a command buffer (DMA in, an int8 convolution tile, DMA out) programmed by
// register writes, RUN, the MSI-X eventfd, the channel's cycles. A forked process runs the same command
// buffer on the same config in process (bare-metal firmware on the TLM sockets) for the figures to match.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

#include "../sim/sim_bench.h"
#include "ivshmem_client.h"
#include "npu/sim/dram.h"
#include "npu/vp/device.h"
#include "npu/vp/ivshmem_server.h"
#include "npu/vp/server.h"
#include "npusim_vp.h"

namespace {

using namespace npu;

// Small device memory: a 64 MiB DRAM gives a 128 MiB (sparse) BAR2.
sim::NpuConfig vp_config() { return test::npu_config({"npu.dram.size_mib=64", "npu.weight_memory.mib=16"}); }

constexpr uint32_t kChannel = 1;
constexpr uint64_t kCmd = 0x10000, kWeights = 0x100000, kInput = 0x200000, kOutput = 0x300000;
constexpr uint32_t kOutBytes = 8 * 8 * 16;

// DMA the weights block and an 8×8×64 band in, one 1×1 convolution to 16 channels, DMA the result out.
std::vector<desc::Raw> command_buffer() {
  return {test::dma_in(kWeights, 0, 1216), test::dma_in(kInput, 4096, 4096),
          test::conv1x1(4096, 8, 8, 64, 0, 16, 1024, 1088, 12288), test::dma_out(kOutput, 12288, kOutBytes),
          test::fence()};
}
std::vector<uint8_t> weights() { return test::weights_block(64, 16, 7); }
std::vector<uint8_t> input() { return test::pattern(4096, 8); }

struct Reference {
  uint64_t cycles = 0;
  std::vector<uint8_t> output;
};

// The command buffer run in process, in a child process (its own SystemC kernel).
Reference reference_run() {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The child never returns into the test framework: whatever happens, it exits here.
    ::close(fds[0]);
    try {
      stats::Registry stats;
      sim::Npu npu("npu", vp_config(), stats);
      test::Firmware fw("fw", npu);
      Reference r;
      sc_core::sc_spawn([&] {
        const auto w = weights(), a = input();
        fw.write_mem(kWeights, w.data(), w.size());
        fw.write_mem(kInput, a.data(), a.size());
        fw.run(kChannel, kCmd, command_buffer());
        r.cycles = fw.cycles(kChannel);
        r.output = fw.read_mem(kOutput, kOutBytes);
        sc_core::sc_stop();
      });
      sc_core::sc_start();
      (void)!::write(fds[1], &r.cycles, sizeof r.cycles);
      (void)!::write(fds[1], r.output.data(), r.output.size());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "reference run: %s\n", e.what());
      ::_exit(1);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  Reference r;
  r.output.resize(kOutBytes);
  EXPECT_EQ(::read(fds[0], &r.cycles, sizeof r.cycles), static_cast<ssize_t>(sizeof r.cycles));
  size_t got = 0;
  while (got < r.output.size()) {
    const ssize_t n = ::read(fds[0], r.output.data() + got, r.output.size() - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  EXPECT_EQ(got, r.output.size());
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return r;
}

std::string temp_dir() {
  char tmpl[] = "/tmp/npusim-vp-test-XXXXXX";
  const char* d = ::mkdtemp(tmpl);
  EXPECT_NE(d, nullptr);
  return d ? d : "/tmp";
}

TEST(VpDevice, SharedMemoryIsAPowerOfTwoHoldingDramAndMailbox) {
  EXPECT_EQ(vp::shared_memory_bytes(64ull << 20), 128ull << 20);
  EXPECT_EQ(vp::shared_memory_bytes((64ull << 20) - 4096), 64ull << 20);
  EXPECT_EQ(vp::shared_memory_bytes(12288ull << 20), 16384ull << 20);
  EXPECT_EQ(vp::mailbox_offset(128ull << 20), (128ull << 20) - 4096);
}

// The guest's accesses, in order, on one channel; checked against the in-process run of the same buffer.
TEST(VpDevice, MailboxRegistersRunAndMsixMatchTheInProcessRun) {
  const Reference ref = reference_run();
  ASSERT_GT(ref.cycles, 0u);

  const std::string dir = temp_dir();
  const std::string sock = dir + "/npu.sock", shm = dir + "/bar2";
  stats::Registry stats;
  sim::Npu npu("npu", vp_config(), stats);
  const uint64_t dram = npu.dram().size();
  auto server = vp::IvshmemServer::create(sock, shm, vp::shared_memory_bytes(dram));
  ASSERT_TRUE(server.ok()) << server.error();
  ASSERT_TRUE(npu.dram().use_external((*server)->memory()));
  vp::Device device("vp", npu);

  std::atomic<bool> client_done{false};
  uint64_t cycles = 0, interrupts_after_run = 0, interrupts_after_ack = 0;
  uint32_t id = 0, irq_status = 0, ch_irq = 0, bad_op_status = 0, ro_write_status = 0, irq_after_ack = 0;
  std::vector<uint8_t> output;
  std::string client_error;
  std::thread guest([&] {
    test::IvshmemClient c(sock);
    client_error = c.error;
    if (c.error.empty() && !c.wait_ready()) client_error = "the device never said READY";
    if (client_error.empty()) {
      EXPECT_EQ(c.mailbox()->dram_bytes, dram);
      id = c.read(regs::NPU_ID);
      // Device memory: the guest writes it through BAR2 directly.
      const auto w = weights(), a = input();
      const auto cmds = command_buffer();
      std::memcpy(c.bar2() + kWeights, w.data(), w.size());
      std::memcpy(c.bar2() + kInput, a.data(), a.size());
      std::memcpy(c.bar2() + kCmd, cmds.data(), cmds.size() * desc::kDescriptorBytes);
      const uint32_t base = regs::channel_base(kChannel);
      c.write(regs::IRQ_MASK, regs::IRQ_CHANNELS.bit(kChannel));
      c.write(base + regs::CH_CMD_BASE_LO, static_cast<uint32_t>(kCmd));
      c.write(base + regs::CH_CMD_BASE_HI, 0);
      c.write(base + regs::CH_CMD_COUNT, static_cast<uint32_t>(cmds.size()));
      c.write(base + regs::CH_CMD_START, 0);
      c.write(base + regs::CH_DOORBELL, regs::CH_DOORBELL_START);
      c.run();
      interrupts_after_run = c.wait_interrupt(10000);
      irq_status = c.read(regs::IRQ_STATUS);
      ch_irq = c.read(base + regs::CH_IRQ_STATUS);
      cycles = c.read(base + regs::CH_CYCLES_LO) |
               (static_cast<uint64_t>(c.read(base + regs::CH_CYCLES_HI)) << 32);
      c.write(base + regs::CH_IRQ_STATUS, ch_irq);
      irq_after_ack = c.read(regs::IRQ_STATUS);
      c.run();  // nothing pending: no interrupt
      interrupts_after_ack = c.wait_interrupt(200);
      output.assign(c.bar2() + kOutput, c.bar2() + kOutput + kOutBytes);
      uint32_t v = 0;
      bad_op_status = c.request(77, 0, &v);
      v = 1;
      ro_write_status = c.request(NPUSIM_VP_OP_WRITE32, regs::NPU_ID, &v);
    }
    client_done = true;
  });
  // The client disconnects when its thread ends (the socket closes): serve() returns then.
  auto accepted = (*server)->accept_client();
  Result<vp::ServeReport> report = make_error("not served");
  std::string thrown;
  try {
    if (accepted.ok()) report = vp::serve(device, **server, dram);
  } catch (const std::exception& e) {
    thrown = e.what();
    server->reset();  // the client sees the end and leaves
  }
  guest.join();
  ASSERT_TRUE(accepted.ok()) << accepted.error();
  ASSERT_TRUE(thrown.empty()) << thrown;
  EXPECT_TRUE(client_done);
  ASSERT_TRUE(client_error.empty()) << client_error;
  ASSERT_TRUE(report.ok()) << report.error();

  EXPECT_EQ(id, regs::kNpuIdValue);
  EXPECT_EQ(interrupts_after_run, 1u);
  EXPECT_TRUE(irq_status & regs::IRQ_CHANNELS.bit(kChannel));
  EXPECT_EQ(ch_irq, regs::CH_IRQ_DONE);
  EXPECT_EQ(irq_after_ack, 0u);
  EXPECT_EQ(interrupts_after_ack, 0u);
  EXPECT_EQ(cycles, ref.cycles);
  RecordProperty("ch_cycles", std::to_string(cycles));
  EXPECT_EQ(output, ref.output);
  EXPECT_NE(output, std::vector<uint8_t>(kOutBytes, 0));
  EXPECT_EQ(bad_op_status, static_cast<uint32_t>(NPUSIM_VP_BAD_OP));
  EXPECT_EQ(ro_write_status, static_cast<uint32_t>(NPUSIM_VP_BUS_ERROR));
  EXPECT_EQ(report->reason, vp::EndReason::CLIENT_GONE);
  EXPECT_FALSE(report->client_gone_mid_request);
  EXPECT_EQ(report->runs, 2u);
  EXPECT_EQ(report->msix, 1u);
  EXPECT_EQ(report->bad_ops, 1u);
  EXPECT_EQ(report->bus_errors, 1u);
  EXPECT_EQ(*stats.find_counter("npu.ch1.command_buffers"), 1u);
  server->reset();
  EXPECT_FALSE(std::filesystem::exists(sock));
  EXPECT_FALSE(std::filesystem::exists(shm));
  std::filesystem::remove_all(dir);
}

// The DRAM's external backing: what was written before moves there, reads and writes go there.
TEST(VpDevice, DramExternalBackingHoldsTheData) {
  stats::Registry stats;
  sim::DramConfig cfg{25.6, 100, 1, 4096};
  sim::Dram dram("dram", cfg, stats);
  const uint8_t before[4] = {1, 2, 3, 4};
  dram.write(70000, before, 4);
  std::vector<uint8_t> backing(dram.size(), 0);
  EXPECT_FALSE(dram.use_external(nullptr));
  ASSERT_TRUE(dram.use_external(backing.data()));
  EXPECT_TRUE(dram.external());
  EXPECT_EQ(std::memcmp(backing.data() + 70000, before, 4), 0);
  const uint8_t after[3] = {9, 8, 7};
  dram.write(dram.size() - 3, after, 3);
  EXPECT_EQ(std::memcmp(backing.data() + dram.size() - 3, after, 3), 0);
  backing[12345] = 42;  // another writer (the guest)
  uint8_t got = 0;
  dram.read(12345, &got, 1);
  EXPECT_EQ(got, 42);
  uint8_t zero = 1;
  dram.read(5, &zero, 1);
  EXPECT_EQ(zero, 0);
}

}  // namespace
