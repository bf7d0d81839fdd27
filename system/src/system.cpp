#include "npu/system/system.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "npu/common/file_io.h"
#include "npu/common/log.h"
#include "npu/common/shipped.h"
#include "npu/drv/port/sim_port.h"
#include "npu/models/model_json.h"
#include "npu/sim/npu.h"
#ifdef NPUSIM_WITH_RTL
#include "npu/rtl/rtl_compute_core.h"
#endif

namespace npu::system {

namespace {

#ifdef NPUSIM_WITH_RTL
std::unique_ptr<sim::ComputeCore> make_rtl_core(const sim::ComputeCoreArgs& args, std::string* error) {
  const std::string waves =
      args.waves_prefix.empty() ? "" : args.waves_prefix + "." + args.instance_name + ".vcd";
  const sim::ClockDomain& clock = args.clock;
  try {
    return rtl::make_rtl_compute_core(
        args.instance_name.c_str(), sim::ArrayGeometry{args.channel.array_rows, args.channel.array_cols},
        [&clock] { return clock.period(); }, waves);
  } catch (const std::invalid_argument& e) {
    *error = std::string("npu.channel.compute_core.model=rtl: ") + e.what();
    return nullptr;
  }
}
#else
// Kept as a row without rtl/ so a config naming it stays valid and fails only when built.
std::unique_ptr<sim::ComputeCore> make_rtl_core(const sim::ComputeCoreArgs&, std::string* error) {
  *error = "npu.channel.compute_core.model: \"rtl\" is not available in this build";
  return nullptr;
}
#endif

constexpr sim::ComputeCoreRow kComputeCores[] = {
    sim::kTlmComputeCore,
    {"rtl", "verilated RTL (4x4 and 16x16 arrays; for verification and waveforms)", make_rtl_core},
};

}  // namespace

sim::ComputeCoreTable compute_cores() { return kComputeCores; }

void SystemConfig::declare(cfg::Schema& s) {
  npu.declare(s, compute_cores());
  s.f64("host.cpu_gmacs", &host.cpu_gmacs, 8.0, "GMAC/s", "Host CPU throughput of the reference kernels",
        0.001, 10000.0);
  s.f64("host.memcpy_gbps", &host.memcpy_gbps, 10.0, "GB/s", "Host copies into and out of device memory",
        0.001, 10000.0);
  s.u64("host.ioctl_ns", &driver.ioctl_ns, 2000, "ns", "CPU cost of one driver call");
  s.u64("host.irq_top_half_ns", &driver.irq_top_half_ns, 500, "ns", "CPU cost of the interrupt handler");
  s.u64("host.bottom_half_ns", &driver.bottom_half_ns, 1500, "ns", "CPU cost of handling one channel event");
  driver.declare(s);
  manager.declare(s);
}

namespace {

// One file of a chain of bases: its path as written (for messages) and as the file system names it
// (to recognise it again through "./a.json", "../cfg/a.json" or a link).
struct ChainLink {
  std::string shown, identity;
};

std::string file_identity(const std::string& path) {
  std::error_code ec;
  const auto canonical = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : canonical.string();
}

// Applies the config file at `path` to `schema`: first the file its "base" key names (a path relative to
// this file, itself applied the same way), then this file's own keys. `chain` holds the files being
// applied, to refuse a cycle.
Result<void> apply_config_file(cfg::Schema& schema, const std::string& path, std::vector<ChainLink>& chain) {
  auto text = models::read_text_file(path);
  if (!text) return make_error(text.error());
  auto doc = models::parse_json_text(*text, path);
  if (!doc) return make_error(doc.error());
  if (doc->is_object() && doc->contains("base")) {
    const nlohmann::json& base = (*doc)["base"];
    if (!base.is_string() || base.get<std::string>().empty())
      return make_error(path + ": $.base: expected the path of a config file (relative to this one), got " +
                        io::json_for_message(base, 200));
    const std::string rel = base.get<std::string>();
    const auto slash = path.rfind('/');
    // A copied preset's base ("default.json") that is not beside the copy is the shipped one.
    const std::string base_path = shipped::fallback(
        "npu", rel, rel[0] == '/' || slash == std::string::npos ? rel : path.substr(0, slash + 1) + rel);
    const std::string identity = file_identity(base_path);
    for (size_t i = 0; i < chain.size(); ++i) {
      if (chain[i].identity != identity) continue;
      // The cycle alone, in one line: "a.json -> b.json -> a.json"; no "(the base of ...)" per level.
      std::string cycle;
      for (size_t k = i; k < chain.size(); ++k) cycle += chain[k].shown + " -> ";
      return make_error(path + ": $.base: the bases make a cycle: " + cycle + base_path);
    }
    chain.push_back({base_path, identity});
    auto r = apply_config_file(schema, base_path, chain);
    chain.pop_back();
    if (!r) {
      if (r.error().find(": the bases make a cycle: ") != std::string::npos) return r;
      return make_error(r.error() + " (the base of " + path + ")");
    }
  }
  return schema.apply(*doc, path, {"description", "base"});
}

}  // namespace

// The config file (with its bases) then the overrides, into `schema`.
Result<void> apply_config(cfg::Schema& schema, const std::string& name_or_path,
                          const std::vector<std::string>& overrides) {
  auto resolved = shipped::resolve("npu", name_or_path);  // --hw large: the shipped preset
  if (!resolved) return make_error(resolved.error());
  const std::string& path = *resolved;
  std::vector<ChainLink> chain{{path, file_identity(path)}};
  if (auto r = apply_config_file(schema, path, chain); !r) return r;
  for (const auto& o : overrides)
    if (auto r = schema.set(o); !r) return r;
  return {};
}

Result<SystemConfig> load_system_config(const std::string& path, const std::vector<std::string>& overrides) {
  SystemConfig cfg;
  cfg::Schema schema;
  cfg.declare(schema);
  if (auto r = apply_config(schema, path, overrides); !r) return make_error(r.error());
  if (auto r = cfg.npu.validate(); !r) return make_error(path + ": " + r.error());
  return cfg;
}

Result<nlohmann::json> resolved_config(const std::string& path, const std::vector<std::string>& overrides) {
  SystemConfig cfg;
  cfg::Schema schema;
  cfg.declare(schema);
  if (auto r = apply_config(schema, path, overrides); !r) return make_error(r.error());
  return schema.values();
}

std::string explain_system_config() {
  SystemConfig cfg;
  cfg::Schema schema;
  cfg.declare(schema);
  return schema.explain();
}

namespace {

// The board's description of the NPU for its driver (a device tree's properties): the timing its
// registers do not report.
drv::PlatformData platform_data(const sim::NpuConfig& npu) {
  drv::PlatformData p;
  p.dma_bytes_per_cycle = npu.channel.dma_bytes_per_cycle;
  p.dma_setup_cycles = npu.channel.dma_setup_cycles;
  p.descriptor_fetch_cycles = npu.channel.descriptor_fetch_cycles;
  p.queue_depth = npu.channel.queue_depth;
  p.dram_gbps = npu.dram.bandwidth_gbps;
  p.dram_latency_ns = npu.dram.latency_ns;
  p.fp32_macs_per_cycle = npu.channel.fp32_macs_per_cycle;
  p.vector_pipeline_cycles = npu.channel.vector_pipeline_cycles;
  return p;
}

}  // namespace

Result<std::unique_ptr<System>> System::create(const SystemConfig& cfg) {
  std::unique_ptr<System> s(new System());
  s->cfg_ = cfg;
  if (cfg.thermal_capacity_scale != 1) {
    s->cfg_.npu.thermal.package.capacity_j_per_k *= cfg.thermal_capacity_scale;
    s->cfg_.npu.thermal.skin.capacity_j_per_k *= cfg.thermal_capacity_scale;
  }
  try {
    s->npu_ = std::make_unique<sim::Npu>("npu", s->cfg_.npu, s->stats_,
                                         sim::compute_core_factory(compute_cores(), cfg.waves_path));
  } catch (const std::exception& e) {
    return make_error(e.what());
  }
  // Driver and register log lines carry the simulated time they happened at.
  log::set_clock([] { return static_cast<uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5); });
  s->port_ = std::make_unique<drv::SimPort>("host_port", *s->npu_);
  s->driver_ =
      std::make_unique<drv::Driver>(s->port_->hardware(), s->port_->os(), cfg.driver, platform_data(cfg.npu));
  s->driver_->set_stats(&s->stats_);
  s->cpu_ = std::make_unique<hal::CpuDevice>(s->port_->os(), cfg.host);
  if (cfg.trace) {
    s->npu_->set_tracer(&s->tracer_);
    s->driver_->set_tracer(&s->tracer_);
    s->port_->set_tracer(&s->tracer_);
  }
  return s;
}

System::~System() = default;

drv::Os& System::os() { return port_->os(); }

drv::RegisterBus& System::debug_registers() { return *port_; }

hal::NpuDevice& System::npu_device(int uid, int pid, hal::NpuDevice::Variant variant) {
  // The device compiles for what the driver's probe reports, as on silicon.
  npu_devices_.push_back(std::make_unique<hal::NpuDevice>(*driver_, cfg_.host, uid, pid, variant));
  return *npu_devices_.back();
}

hal::SchedulingHal& System::scheduling_hal() {
  if (!scheduling_hal_) scheduling_hal_ = std::make_unique<hal::SchedulingHal>(*driver_);
  return *scheduling_hal_;
}

Result<mgr::NpuService*> System::npu_service() {
  if (!npu_service_) {
    auto s = mgr::NpuService::create(scheduling_hal(), cfg_.manager, &stats_);
    if (!s) return make_error(s.error());
    npu_service_ = std::move(*s);
    npu_service_->set_tracer(tracer());
  }
  return npu_service_.get();
}

namespace {
// Every unfinished thread spawned during simulation among `objects` and below them, children before
// the thread that spawned them, so none outlives what its spawner owns.
void collect_spawned(const std::vector<sc_core::sc_object*>& objects,
                     std::vector<sc_core::sc_process_handle>* out) {
  for (sc_core::sc_object* o : objects) {
    collect_spawned(o->get_child_objects(), out);
    sc_core::sc_process_handle h(o);
    if (h.valid() && h.dynamic() && !h.terminated()) out->push_back(h);
  }
}
// Kills (unwinding their stacks) every unfinished spawned thread but the calling one and those in
// `keep`; `also` is killed last. Must run inside the simulation: SystemC unwinds a killed thread by
// switching to it.
void kill_unfinished_threads(sc_core::sc_process_handle also,
                             const std::vector<sc_core::sc_process_handle>& keep = {}) {
  const sc_core::sc_process_handle self = sc_core::sc_get_current_process_handle();
  std::vector<sc_core::sc_process_handle> threads;
  collect_spawned(sc_core::sc_get_top_level_objects(), &threads);
  if (also.valid()) threads.push_back(also);
  for (auto& h : threads)
    if (h != self && !h.terminated() && std::find(keep.begin(), keep.end(), h) == keep.end()) h.kill();
}
}  // namespace

void System::kill_spawned_threads(sc_core::sc_process_handle app) {
  // SystemC kills (and unwinds) a thread only from inside the simulation: one delta cycle more, in
  // which a reaper kills every other spawned thread.
  sc_core::sc_spawn(
      // The app was spawned before the simulation started: not a dynamic process, so named apart.
      [app] { kill_unfinished_threads(app); }, "abandoned_run_reaper");
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
}

Result<double> System::run(const std::function<void(System&)>& app, double limit_s) {
  bool finished = false;
  std::string probe_error;
  const sc_core::sc_process_handle app_thread = sc_core::sc_spawn(
      [&] {
        if (auto p = driver_->probe(); !p) {
          probe_error = p.error();
        } else {
          app(*this);
          port_->sync();  // fast mode: the run ends at the app's local time
        }
        finished = true;
        // Threads the app left parked (helpers, callbacks) are never resumed after sc_stop(): unwind them
        // now, while the simulation still runs, so what their stacks hold is destroyed.
        kill_unfinished_threads(sc_core::sc_process_handle());
        sc_core::sc_stop();
      },
      "host_app");
  // sc_stop() ending the run is the normal case, not news.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_start(sc_core::sc_time(limit_s, sc_core::SC_SEC));
  // Abandoned at the limit: SystemC never returns to a suspended thread, so what the app's threads hold
  // on their stacks (prepared models, buffers, callbacks) would never be destroyed. Unwind them.
  if (!finished) kill_spawned_threads(app_thread);
  npu_->finish();
  driver_->update_stats();
  if (!probe_error.empty()) return make_error("driver: " + probe_error);
  if (!finished)
    return make_error("simulation did not finish within " + std::to_string(limit_s) + " s of simulated time");
  return sc_core::sc_time_stamp().to_seconds();
}

Result<double> System::run_another(const std::function<void(System&)>& app, double limit_s,
                                   bool probe_driver) {
  bool finished = false;
  std::string probe_error;
  auto keep = std::make_shared<std::vector<sc_core::sc_process_handle>>();
  const sc_core::sc_process_handle app_thread = sc_core::sc_spawn(
      [&, keep] {
        if (probe_driver && !probed_) {
          if (auto p = driver_->probe(); !p) probe_error = p.error();
          probed_ = probe_error.empty();
        }
        collect_spawned(sc_core::sc_get_top_level_objects(), keep.get());  // the platform's threads
        if (probe_error.empty()) {
          app(*this);
          port_->sync();
        }
        finished = true;
        kill_unfinished_threads(sc_core::sc_process_handle(), *keep);
        sc_core::sc_pause();
      },
      sc_core::sc_gen_unique_name("host_app"));
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_start(sc_core::sc_time(limit_s, sc_core::SC_SEC));
  if (!finished) {
    // At the limit: unwind the app and what it spawned, in one more delta cycle, keeping the platform's.
    sc_core::sc_spawn([app_thread, keep] { kill_unfinished_threads(app_thread, *keep); },
                      sc_core::sc_gen_unique_name("abandoned_input_reaper"));
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  if (!probe_error.empty()) return make_error("driver: " + probe_error);
  if (!finished)
    return make_error("did not finish within " + std::to_string(limit_s) + " s of simulated time");
  return sc_core::sc_time_stamp().to_seconds();
}

}  // namespace npu::system
