// `npusim vp serve --hw FILE [--set k=v] --socket PATH --shm PATH [--out DIR] [--stats F] [--trace F]
// [--json]`: the simulated NPU served to one QEMU guest as an ivshmem-doorbell PCI function (the device
// side of the virtual platform, docs/vp-device.md; transport in vp/abi/npusim_vp.h). The NPU is built from
// the hardware config as `npusim run` builds it (no driver, no HAL: the guest's kernel driver is the
// driver); the results are written when the guest disconnects or on SIGINT/SIGTERM.
// Exit status: 0 served and ended cleanly; 1 a bad config, --set or output path (as `npusim run`); 2 bad
// command-line arguments; 3 the socket or shared-memory file failed (the path is named); 4 the NPU met a
// fault (hang, DMA or ECC error; the guest was served all along); 5 the client left while RUN was still
// simulating (a guest that died mid-job).
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <tuple>

#include "command.h"
#include "npu/common/file_io.h"
#include "npu/common/log.h"
#include "npu/common/version.h"
#include "npu/sim/npu.h"
#include "npu/system/system.h"
#include "npu/tools/data_files.h"
#include "npu/vp/device.h"
#include "npu/vp/ivshmem_server.h"
#include "npu/vp/server.h"
#include "output_path.h"

namespace npusim {
namespace {

struct ServeCli {
  std::string hw = npu::tools::default_hw_config();
  std::vector<std::string> sets;
  std::string socket, shm, out_dir, stats, trace;
  double run_step_us = 20;
  double run_limit_ms = 10000;
  int64_t ack_timeout_ms = 5000;
  bool json = false;
};

int fail(int status, const std::string& message) {
  std::fprintf(stderr, "npusim: vp serve: %s\n", message.c_str());
  return status;
}

// SIGINT / SIGTERM end serving: the handler only writes a byte the serving loop polls for.
int g_stop_pipe[2] = {-1, -1};
void on_stop_signal(int) {
  const char c = 's';
  (void)!::write(g_stop_pipe[1], &c, 1);
}

// What the NPU did, from its stats tree: every channel's cycles, command buffers and faults.
struct DeviceTotals {
  uint64_t npu_cycles = 0, command_buffers = 0, faults_injected = 0, channel_errors = 0, channel_resets = 0;
};
DeviceTotals device_totals(const npu::stats::Registry& stats, uint32_t channels) {
  DeviceTotals t;
  auto count = [&](uint32_t c, const char* leaf) {
    const uint64_t* v = stats.find_counter("npu.ch" + std::to_string(c) + "." + leaf);
    return v ? *v : 0;
  };
  for (uint32_t c = 0; c < channels; ++c) {
    t.npu_cycles += count(c, "busy_cycles");
    t.command_buffers += count(c, "command_buffers");
    t.faults_injected += count(c, "faults_injected");
    t.channel_errors += count(c, "errors");
    t.channel_resets += count(c, "resets");
  }
  return t;
}

int run_serve(ServeCli c) {
  using namespace npu;
  if (!c.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(c.out_dir, ec);
    if (ec || !std::filesystem::is_directory(c.out_dir))
      return fail(1, c.out_dir + ": --out: cannot create the folder" + (ec ? ": " + ec.message() : ""));
    const std::filesystem::path dir(c.out_dir);
    for (auto [flag, name] : {std::pair{&c.stats, "stats.json"}, {&c.trace, "trace.json"}})
      if (flag->empty()) *flag = (dir / name).string();
  }
  for (const std::string* out : {&c.stats, &c.trace})
    if (auto why = unwritable_reason(*out); !why.empty()) return fail(1, why);
  if (c.run_step_us <= 0) return fail(2, "--run-step-us: must be above 0");
  if (c.run_limit_ms <= 0) return fail(2, "--run-limit-ms: must be above 0");
  if (c.ack_timeout_ms < 0) return fail(2, "--ack-timeout-ms: must be 0 (no watch) or above");
  auto cfg = system::load_system_config(c.hw, c.sets);
  if (!cfg) return fail(1, cfg.error());
  auto resolved = system::resolved_config(c.hw, c.sets);
  if (!resolved) return fail(1, resolved.error());
  if (cfg->thermal_capacity_scale != 1) {  // as System::create applies it
    cfg->npu.thermal.package.capacity_j_per_k *= cfg->thermal_capacity_scale;
    cfg->npu.thermal.skin.capacity_j_per_k *= cfg->thermal_capacity_scale;
  }

  stats::Registry stats;
  trace::Tracer tracer;
  std::unique_ptr<sim::Npu> npu;
  try {
    npu = std::make_unique<sim::Npu>("npu", cfg->npu, stats,
                                     sim::compute_core_factory(system::compute_cores(), cfg->waves_path));
  } catch (const std::exception& e) {
    return fail(1, e.what());
  }
  log::set_clock([] { return static_cast<uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5); });
  const uint64_t dram_bytes = npu->dram().size();
  auto server = vp::IvshmemServer::create(c.socket, c.shm, vp::shared_memory_bytes(dram_bytes));
  if (!server) return fail(3, server.error());
  npu->dram().use_external((*server)->memory());
  vp::Device device("vp", *npu);
  if (!c.trace.empty()) {
    npu->set_tracer(&tracer);
    device.set_tracer(&tracer);
  }

  if (::pipe2(g_stop_pipe, O_CLOEXEC) != 0) return fail(3, "pipe: cannot make the signal pipe");
  // The handler stays installed to the end: a signal that comes while the results are written (scripts/vp
  // sends SIGTERM once QEMU has gone) must not cut them short.
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  std::fprintf(stderr, "npusim: vp serve: waiting for QEMU on %s (BAR2 %s, %llu MiB device memory)\n",
               c.socket.c_str(), c.shm.c_str(), static_cast<unsigned long long>(dram_bytes >> 20));

  vp::ServeOptions options;
  options.run_step = sc_core::sc_time(c.run_step_us, sc_core::SC_US);
  options.run_limit = sc_core::sc_time(c.run_limit_ms, sc_core::SC_MS);
  options.ack_timeout = std::chrono::milliseconds(c.ack_timeout_ms);
  options.on_unacked = [](const std::string& warning) {
    std::fprintf(stderr, "npusim: vp serve: warning: %s\n", warning.c_str());
  };
  options.stop_fd = g_stop_pipe[0];
  vp::ServeReport report;
  bool served = false;
  std::string serve_error;
  if (auto a = (*server)->accept_client(g_stop_pipe[0]); a) {
    auto r = vp::serve(device, **server, dram_bytes, options);
    if (r) {
      report = *r;
      served = true;
    } else {
      serve_error = r.error();
    }
  } else if (a.error() != "stopped before a client connected") {
    serve_error = a.error();
  } else {
    report.reason = vp::EndReason::STOPPED;
  }

  // The results, whatever ended serving (a socket error still leaves the stats of what was simulated).
  npu->finish();
  for (auto [leaf, value, description] :
       {std::tuple{"requests", report.requests, "Mailbox requests answered"},
        {"register_reads", report.reads, "READ32 requests"},
        {"register_writes", report.writes, "WRITE32 requests"},
        {"runs", report.runs, "RUN requests"},
        {"bad_requests", report.bad_ops, "Requests with an unknown op (answered BAD_OP)"},
        {"bus_errors", report.bus_errors, "Accesses the register file refused (answered BUS_ERROR)"},
        {"msix", report.msix, "MSI-X interrupts raised in the guest"},
        {"unacked_interrupts", report.unacked_interrupts,
         "Interrupts left pending with no guest request for --ack-timeout-ms"}})
    stats.counter(std::string("vp.") + leaf, "", description) = value;
  const DeviceTotals totals = device_totals(stats, npu->channel_count());
  const double sim_us = sc_core::sc_time_stamp().to_seconds() * 1e6;
  const nlohmann::json made_by = npu::build_json();
  const bool faults = totals.faults_injected || totals.channel_errors;
  nlohmann::json summary = {
      {npu::kBuildKey, made_by},
      {"served", served},
      {"end", served ? (report.reason == vp::EndReason::STOPPED ? "signal" : "client disconnected")
                     : (serve_error.empty() ? "signal before a client connected" : "error")},
      {"sim_time_us", sim_us},
      {"requests", report.requests},
      {"register_reads", report.reads},
      {"register_writes", report.writes},
      {"runs", report.runs},
      {"bad_requests", report.bad_ops},
      {"bus_errors", report.bus_errors},
      {"msix", report.msix},
      {"runs_at_limit", report.runs_at_limit},
      {"unacked_interrupts", report.unacked_interrupts},
      {"npu_cycles", totals.npu_cycles},
      {"command_buffers", totals.command_buffers},
      {"client_gone_mid_request", report.client_gone_mid_request},
      {"faults",
       {{"faults_injected", totals.faults_injected},
        {"channel_errors", totals.channel_errors},
        {"channel_resets", totals.channel_resets}}}};
  if (!serve_error.empty()) summary["error"] = serve_error;
  auto write = [](const std::string& path, const std::string& text) {
    auto w = io::write_file_atomic(path, text);
    if (!w) std::fprintf(stderr, "npusim: vp serve: %s\n", w.error().c_str());
    return w.ok();
  };
  bool written = true;
  if (!c.stats.empty()) {
    nlohmann::json tree = stats.to_json();
    tree[npu::kBuildKey] = made_by;
    written = write(c.stats, tree.dump(2) + "\n") && written;
  }
  if (!c.trace.empty()) {
    nlohmann::json t = tracer.to_json();
    t["metadata"] = {{npu::kBuildKey, made_by}};
    written = write(c.trace, t.dump() + "\n") && written;
  }
  if (!c.out_dir.empty()) {
    const std::filesystem::path dir(c.out_dir);
    (*resolved)[npu::kBuildKey] = made_by;
    written = write((dir / "config.json").string(), resolved->dump(2) + "\n") && written;
    written = write((dir / "summary.json").string(), summary.dump(2) + "\n") && written;
  }
  if (c.json)
    std::printf("%s\n", summary.dump(2).c_str());
  else
    std::fprintf(
        stderr,
        "npusim: vp serve: %s after %.3f us simulated: %llu requests (%llu reads, %llu writes, %llu "
        "RUN, %llu bad), %llu MSI-X, %llu NPU cycles in %llu command buffers\n",
        summary["end"].get<std::string>().c_str(), sim_us, static_cast<unsigned long long>(report.requests),
        static_cast<unsigned long long>(report.reads), static_cast<unsigned long long>(report.writes),
        static_cast<unsigned long long>(report.runs), static_cast<unsigned long long>(report.bad_ops),
        static_cast<unsigned long long>(report.msix), static_cast<unsigned long long>(totals.npu_cycles),
        static_cast<unsigned long long>(totals.command_buffers));
  if (report.unacked_interrupts)
    std::fprintf(stderr,
                 "npusim: vp serve: %llu interrupt(s) left pending by the guest with no request for "
                 "--ack-timeout-ms %lld (unacked_interrupts in the summary)\n",
                 static_cast<unsigned long long>(report.unacked_interrupts),
                 static_cast<long long>(c.ack_timeout_ms));
  if (!serve_error.empty()) return fail(3, serve_error);
  if (!written) return 1;
  if (report.client_gone_mid_request)
    return fail(5, "the client disconnected while RUN was still simulating (the guest died mid-job)");
  if (faults)
    return fail(4, "the NPU met faults: " + std::to_string(totals.faults_injected) + " injected, " +
                       std::to_string(totals.channel_errors) + " command buffers ended by an error, " +
                       std::to_string(totals.channel_resets) + " channel resets");
  return 0;
}

}  // namespace

Subcommand register_vp_command(CLI::App& app) {
  auto c = std::make_shared<ServeCli>();
  auto* vp = app.add_subcommand(
      "vp", "Virtual platform: serve the simulated NPU to a QEMU guest (docs/vp-device.md)");
  vp->require_subcommand(1);
  auto* serve = vp->add_subcommand(
      "serve", "Be the NPU's PCI function (ivshmem-doorbell server) for one QEMU guest until it disconnects");
  serve->add_option("--hw", c->hw, "Hardware config JSON")->capture_default_str();
  serve->add_option("--set", c->sets, "Override a hardware parameter: path=value (repeatable)");
  serve->add_option("--socket", c->socket, "Unix socket QEMU connects to (-chardev socket,path=...)")
      ->required();
  serve->add_option("--shm", c->shm, "Shared-memory file to create: BAR2 (device memory + mailbox)")
      ->required();
  serve->add_option("--out", c->out_dir,
                    "Run directory: config.json, stats.json, trace.json, summary.json at the end");
  serve->add_option("--stats", c->stats, "Where to write the stats tree JSON at the end");
  serve->add_option("--trace", c->trace, "Where to write a Perfetto-loadable trace at the end");
  serve
      ->add_option(
          "--run-step-us", c->run_step_us,
          "Simulated time per step while RUN simulates (the socket and signals are watched between steps)")
      ->capture_default_str();
  serve
      ->add_option("--run-limit-ms", c->run_limit_ms,
                   "Answer a RUN after this much simulated time without an interrupt (a hung channel)")
      ->capture_default_str();
  serve
      ->add_option("--ack-timeout-ms", c->ack_timeout_ms,
                   "Warn (once per interrupt, not fatal) when the NPU interrupt stays pending this long "
                   "(wall clock) with no request from the guest; 0: no watch")
      ->capture_default_str();
  serve->add_flag("--json", c->json, "Print the summary as JSON on stdout at the end");
  return {vp, [c, serve] { return serve->parsed() ? run_serve(*c) : 2; }};
}

}  // namespace npusim
