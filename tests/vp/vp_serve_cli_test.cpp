// `npusim vp serve` as QEMU meets it: the binary started as a process of its own, this test the ivshmem
// client (ivshmem_client.h). What it answers, what it writes at the end, and its exit status for a clean
// end, a bad path, an injected fault, a client gone mid-RUN, a signal and bad arguments; the warning for
// an interrupt the guest never acknowledges.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../sim/sim_bench.h"
#include "ivshmem_client.h"

extern char** environ;

namespace {

using namespace npu;
namespace fs = std::filesystem;

struct Served {
  pid_t pid = -1;
  std::string dir, socket, shm, out, log;
};

// Starts `npusim vp serve` on a 256 MiB device memory in a fresh folder; its stderr goes to `log`.
Served start(const std::vector<std::string>& extra = {}) {
  Served s;
  char tmpl[] = "/tmp/npusim-vp-cli-XXXXXX";
  s.dir = ::mkdtemp(tmpl);
  s.socket = s.dir + "/npu.sock";
  s.shm = s.dir + "/bar2";
  s.out = s.dir + "/out";
  s.log = s.dir + "/stderr.txt";
  std::vector<std::string> args = {NPUSIM_BIN,
                                   "vp",
                                   "serve",
                                   "--hw",
                                   NPUSIM_SOURCE_DIR "/configs/npu/default.json",
                                   "--set",
                                   "npu.dram.size_mib=256",
                                   "--set",
                                   "npu.weight_memory.mib=64",
                                   "--socket",
                                   s.socket,
                                   "--shm",
                                   s.shm,
                                   "--out",
                                   s.out};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, s.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  EXPECT_EQ(posix_spawn(&s.pid, NPUSIM_BIN, &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  return s;
}

// The exit status (waits up to 60 s, then kills it and fails).
int wait_exit(const Served& s) {
  for (int i = 0; i < 6000; ++i) {
    int status = 0;
    if (::waitpid(s.pid, &status, WNOHANG) == s.pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(s.pid, SIGKILL);
  ::waitpid(s.pid, nullptr, 0);
  ADD_FAILURE() << "npusim vp serve did not end in 60 s";
  return -1;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json summary(const Served& s) {
  auto j = nlohmann::json::parse(read_text(s.out + "/summary.json"), nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << s.out << "/summary.json";
  return j;
}

// Programs channel `ch` with `cmds` at `cmd_addr` (already in BAR2), enables its interrupt and rings it.
void start_channel(test::IvshmemClient& c, uint32_t ch, uint64_t cmd_addr, size_t count) {
  const uint32_t base = regs::channel_base(ch);
  c.write(regs::IRQ_MASK, regs::IRQ_CHANNELS.bit(ch));
  c.write(base + regs::CH_CMD_BASE_LO, static_cast<uint32_t>(cmd_addr));
  c.write(base + regs::CH_CMD_BASE_HI, static_cast<uint32_t>(cmd_addr >> 32));
  c.write(base + regs::CH_CMD_COUNT, static_cast<uint32_t>(count));
  c.write(base + regs::CH_CMD_START, 0);
  c.write(base + regs::CH_DOORBELL, regs::CH_DOORBELL_START);
}

void put(test::IvshmemClient& c, uint64_t at, const std::vector<desc::Raw>& cmds) {
  std::memcpy(c.bar2() + at, cmds.data(), cmds.size() * desc::kDescriptorBytes);
}

TEST(VpServeCli, ServesRegistersRunAndMsixThenWritesTheRunDirectory) {
  const Served s = start({"--log", "driver.regs,vp"});
  uint64_t cycles = 0, irqs = 0;
  {
    test::IvshmemClient c(s.socket);
    ASSERT_TRUE(c.error.empty()) << c.error;
    ASSERT_TRUE(c.wait_ready());
    EXPECT_EQ(c.mailbox()->dram_bytes, 256ull << 20);
    EXPECT_EQ(c.bar2_bytes(), 512ull << 20);
    EXPECT_EQ(c.read(regs::NPU_ID), regs::kNpuIdValue);
    const auto data = test::pattern(8192, 5);
    std::memcpy(c.bar2() + 0x100000, data.data(), data.size());
    const std::vector<desc::Raw> cmds = {test::dma_in(0x100000, 0, 8192), test::dma_out(0x200000, 0, 8192),
                                         test::fence()};
    put(c, 0x1000, cmds);
    start_channel(c, 0, 0x1000, cmds.size());
    c.run();
    irqs = c.wait_interrupt(10000);
    const uint32_t base = regs::channel_base(0);
    EXPECT_EQ(c.read(base + regs::CH_IRQ_STATUS), regs::CH_IRQ_DONE);
    cycles = c.read(base + regs::CH_CYCLES_LO);
    c.write(base + regs::CH_IRQ_STATUS, regs::CH_IRQ_DONE);
    EXPECT_EQ(std::memcmp(c.bar2() + 0x200000, data.data(), data.size()), 0);
  }  // the client leaves
  EXPECT_EQ(wait_exit(s), 0) << read_text(s.log);
  EXPECT_EQ(irqs, 1u);
  EXPECT_GT(cycles, 0u);
  const auto j = summary(s);
  EXPECT_EQ(j["end"], "client disconnected");
  EXPECT_EQ(j["runs"], 1);
  EXPECT_EQ(j["msix"], 1);
  EXPECT_EQ(j["npu_cycles"], cycles);
  EXPECT_EQ(j["command_buffers"], 1);
  EXPECT_EQ(j["register_reads"], 3);
  EXPECT_EQ(j["register_writes"], 7);
  EXPECT_GT(j["sim_time_us"].get<double>(), 0.0);
  for (const char* f : {"config.json", "stats.json", "trace.json", "summary.json"})
    EXPECT_TRUE(fs::exists(s.out + "/" + f)) << f;
  const std::string trace = read_text(s.out + "/trace.json");
  EXPECT_NE(trace.find("write CH0.CH_DOORBELL"), std::string::npos);
  EXPECT_NE(trace.find("MSI-X"), std::string::npos);
  const std::string log = read_text(s.log);
  EXPECT_NE(log.find("read  NPU_ID"), std::string::npos) << log;
  EXPECT_NE(log.find("[driver.regs]"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(s.socket));
  EXPECT_FALSE(fs::exists(s.shm));
  fs::remove_all(s.dir);
}

// A lone guest is deterministic: the same requests give the same simulated times, trace and stats.
TEST(VpServeCli, SameRequestsGiveTheSameRunTwice) {
  std::string traces[2], stats[2], summaries[2];
  for (int i = 0; i < 2; ++i) {
    const Served s = start();
    {
      test::IvshmemClient c(s.socket);
      ASSERT_TRUE(c.error.empty()) << c.error;
      ASSERT_TRUE(c.wait_ready());
      std::vector<desc::Raw> cmds;
      for (uint32_t k = 0; k < 8; ++k) cmds.push_back(test::dma_in(0x100000 + k * 65536, 0, 65536));
      cmds.push_back(test::dma_out(0x400000, 0, 65536));
      cmds.push_back(test::fence());
      put(c, 0x1000, cmds);
      put(c, 0x9000, {test::dma_in(0x200000, 0, 32768), test::fence()});
      start_channel(c, 0, 0x1000, cmds.size());
      const uint32_t base1 = regs::channel_base(1);
      c.write(regs::IRQ_MASK, regs::IRQ_CHANNELS.bit(0) | regs::IRQ_CHANNELS.bit(1));
      c.write(base1 + regs::CH_CMD_BASE_LO, 0x9000);
      c.write(base1 + regs::CH_CMD_COUNT, 2);
      c.write(base1 + regs::CH_DOORBELL, regs::CH_DOORBELL_START);
      // As a driver would: RUN, then per interrupt read and acknowledge, RUN again until both are done.
      for (int done = 0; done < 2;) {
        c.run();
        const uint32_t pending = c.read(regs::IRQ_STATUS);
        for (uint32_t ch = 0; ch < 2; ++ch)
          if (pending & regs::IRQ_CHANNELS.bit(ch)) {
            const uint32_t b = regs::channel_base(ch);
            c.write(b + regs::CH_IRQ_STATUS, c.read(b + regs::CH_IRQ_STATUS));
            ++done;
          }
        ASSERT_NE(pending, 0u);
      }
    }
    ASSERT_EQ(wait_exit(s), 0) << read_text(s.log);
    traces[i] = read_text(s.out + "/trace.json");
    stats[i] = read_text(s.out + "/stats.json");
    auto j = summary(s);
    EXPECT_EQ(j["command_buffers"], 2);
    summaries[i] = j.dump();
    fs::remove_all(s.dir);
  }
  EXPECT_EQ(summaries[0], summaries[1]);
  EXPECT_EQ(stats[0], stats[1]);
  EXPECT_EQ(traces[0], traces[1]);
}

TEST(VpServeCli, InjectedHangEndsTheRunAtItsLimitAndExits4) {
  const Served s = start({"--set", "npu.faults.kind=hang", "--run-limit-ms", "50"});
  uint64_t irqs = 1;
  uint32_t status = 0;
  {
    test::IvshmemClient c(s.socket);
    ASSERT_TRUE(c.error.empty()) << c.error;
    ASSERT_TRUE(c.wait_ready());
    const std::vector<desc::Raw> cmds = {test::dma_in(0x100000, 0, 4096), test::fence()};
    put(c, 0x1000, cmds);
    start_channel(c, 0, 0x1000, cmds.size());
    c.run();  // answered at --run-limit-ms: the hung channel raises no interrupt
    irqs = c.wait_interrupt(300);
    status = c.read(regs::channel_base(0) + regs::CH_STATUS);
  }
  EXPECT_EQ(wait_exit(s), 4) << read_text(s.log);
  EXPECT_EQ(irqs, 0u);
  EXPECT_EQ(regs::CH_STATUS_STATE.get(status), static_cast<uint32_t>(regs::ChannelState::BUSY));
  EXPECT_EQ(summary(s)["faults"]["faults_injected"], 1);
  // The hung channel keeps the thermal monitor sampling: the RUN ends at --run-limit-ms.
  EXPECT_EQ(summary(s)["runs_at_limit"], 1);
  fs::remove_all(s.dir);
}

// A driver whose interrupt handler never runs: the line stays high and the guest says nothing more. The
// device side warns once, after --ack-timeout-ms of wall clock, counts it and serves on; an interrupt
// acknowledged in time is not counted.
TEST(VpServeCli, InterruptLeftPendingIsReportedAfterTheAckTimeout) {
  const Served s = start({"--ack-timeout-ms", "300"});
  const std::string warning = "is its interrupt handler running?";
  uint64_t irqs = 0, irqs_acked = 0;
  uint32_t line_after_ack = 1;
  std::string log_before, log_after;
  std::chrono::milliseconds waited{0};
  {
    test::IvshmemClient c(s.socket);
    ASSERT_TRUE(c.error.empty()) << c.error;
    ASSERT_TRUE(c.wait_ready());
    const std::vector<desc::Raw> cmds = {test::dma_in(0x100000, 0, 4096), test::fence()};
    put(c, 0x1000, cmds);
    start_channel(c, 0, 0x1000, cmds.size());
    c.run();  // ends at the channel's DONE interrupt
    const auto t0 = std::chrono::steady_clock::now();
    irqs = c.wait_interrupt(2000);
    log_before = read_text(s.log);
    // from here on, not a word to the device until the warning is out
    for (int i = 0; i < 1000 && read_text(s.log).find(warning) == std::string::npos; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
    // a late acknowledgement is still served; then a second buffer, acknowledged at once
    const uint32_t base = regs::channel_base(0);
    c.write(base + regs::CH_IRQ_STATUS, ~0u);
    line_after_ack = c.read(regs::IRQ_STATUS);
    start_channel(c, 0, 0x1000, cmds.size());
    c.run();
    irqs_acked = c.wait_interrupt(2000);
    c.write(base + regs::CH_IRQ_STATUS, ~0u);
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    log_after = read_text(s.log);
  }
  EXPECT_EQ(wait_exit(s), 0) << read_text(s.log);
  EXPECT_EQ(irqs, 1u);
  EXPECT_EQ(irqs_acked, 1u);
  EXPECT_EQ(log_before.find(warning), std::string::npos) << log_before;
  EXPECT_GE(waited.count(), 280) << "warned before --ack-timeout-ms";  // timed from the MSI-X
  const size_t first = log_after.find(warning);
  EXPECT_NE(first, std::string::npos) << log_after;
  EXPECT_EQ(log_after.find(warning, first + 1), std::string::npos) << "warned twice:\n" << log_after;
  EXPECT_EQ(line_after_ack, 0u);
  EXPECT_EQ(summary(s)["unacked_interrupts"], 1);
  EXPECT_NE(read_text(s.log).find("1 interrupt(s) left pending"), std::string::npos) << read_text(s.log);
  fs::remove_all(s.dir);
}

TEST(VpServeCli, ClientGoneWhileRunSimulatesExits5) {
  const Served s = start();
  {
    test::IvshmemClient c(s.socket);
    ASSERT_TRUE(c.error.empty()) << c.error;
    ASSERT_TRUE(c.wait_ready());
    // 2000 DMAs of 128 KiB: about 10 ms of simulated time, five hundred run steps.
    std::vector<desc::Raw> cmds;
    for (int i = 0; i < 2000; ++i) cmds.push_back(test::dma_in(0x1000000, 0, 128 * 1024));
    cmds.push_back(test::fence());
    put(c, 0x1000, cmds);
    start_channel(c, 0, 0x1000, cmds.size());
    c.post(NPUSIM_VP_OP_RUN, 0, 0);
  }  // gone before the answer
  EXPECT_EQ(wait_exit(s), 5) << read_text(s.log);
  EXPECT_EQ(summary(s)["client_gone_mid_request"], true);
  EXPECT_NE(read_text(s.log).find("while RUN was still simulating"), std::string::npos);
  fs::remove_all(s.dir);
}

TEST(VpServeCli, SignalBeforeAnyClientEndsCleanly) {
  const Served s = start();
  for (int i = 0; i < 3000 && !fs::exists(s.socket); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(fs::exists(s.socket));
  ::kill(s.pid, SIGTERM);
  EXPECT_EQ(wait_exit(s), 0) << read_text(s.log);
  EXPECT_EQ(summary(s)["end"], "signal before a client connected");
  EXPECT_FALSE(fs::exists(s.socket));
  EXPECT_FALSE(fs::exists(s.shm));
  fs::remove_all(s.dir);
}

TEST(VpServeCli, BadPathsAndArgumentsExitWithTheirStatus) {
  const std::string bin = NPUSIM_BIN;
  auto status = [](const std::string& cmd) {
    const int st = std::system((cmd + " >/dev/null 2>&1").c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  };
  const std::string base = bin + " vp serve --set npu.dram.size_mib=256 --set npu.weight_memory.mib=64 ";
  EXPECT_EQ(status(base + "--socket /nonexistent-folder/npu.sock --shm /tmp/npusim-vp-unused-bar2"), 3);
  EXPECT_FALSE(fs::exists("/tmp/npusim-vp-unused-bar2"));
  EXPECT_EQ(status(base + "--socket /tmp/npusim-vp-unused.sock --shm /nonexistent-folder/bar2"), 3);
  EXPECT_EQ(status(base + "--shm /tmp/x"), 2);  // --socket missing
  EXPECT_EQ(status(base + "--socket /tmp/a.sock --shm /tmp/b --set npu.no_such=1"), 1);
  const std::string err = [&] {
    FILE* p = ::popen(
        (base + "--socket /nonexistent-folder/npu.sock --shm /tmp/npusim-vp-unused-bar2 2>&1").c_str(), "r");
    std::string text;
    char buf[512];
    while (p && std::fgets(buf, sizeof buf, p)) text += buf;
    if (p) ::pclose(p);
    return text;
  }();
  EXPECT_NE(err.find("/nonexistent-folder/npu.sock"), std::string::npos) << err;
}

}  // namespace
