// npusim: the command line. Subcommands: run (one inference), config (parameters), regmap (register map).
// Every error is one line naming the file, JSON path or argument, and the exit status is non-zero.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cmd_bench.h"
#include "cmd_graph.h"
#include "cmd_import.h"
#include "cmd_regress.h"
#include "cmd_zoo.h"
#include "command.h"
#include "examples.h"
#include "npu/common/digest.h"
#include "npu/common/file_io.h"
#include "npu/common/log.h"
#include "npu/common/suggest.h"
#include "npu/common/version.h"
#include "npu/hal/compilation_cache.h"
#include "npu/hal/op_table.h"
#include "npu/models/builder.h"
#include "npu/models/io_json.h"
#include "npu/models/model_json.h"
#include "npu/models/validate.h"
#include "npu/models/zoo.h"
#include "npu/regmap/descriptors.h"
#include "npu/regmap/npu_regs.h"
#include "npu/sim/npu.h"
#include "npu/system/system.h"
#include "npu/tools/capability_cache.h"
#include "npu/tools/data_files.h"
#include "npu/tools/escaped_error.h"
#include "npu/tools/layers.h"
#include "npu/tools/progress.h"
#include "npu/tools/run_directory.h"
#include "npu/tools/run_model.h"
#include "output_path.h"

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "npusim: %s\n", message.c_str());
  return 1;
}

// Atomic (a temporary renamed over `path`): a failed write leaves no half-written file under the name.
bool write_file(const std::string& path, const std::string& text, std::string* error) {
  auto w = npu::io::write_file_atomic(path, text);
  if (!w) *error = w.error();
  return w.ok();
}

// Seeded example models for demos and smoke tests: NAME.model.json and NAME.inputs.json in `dir`.
int example_command(const std::string& name, const std::string& dir, uint64_t seed) {
  using namespace npu::models;
  auto example = npu::tools::make_example(name, seed);
  if (!example) return fail(example.error());
  // As the README's `--dir /tmp/m`: a folder that does not exist yet is created.
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail(dir + ": cannot create the folder: " + ec.message());
  const std::string base = dir + "/" + name;
  if (auto r = save_model_json(example->model, base + ".model.json", npu::build_json()); !r)
    return fail(r.error());
  std::string error;
  if (!write_file(base + ".inputs.json", dump_json_pretty(npu::with_build(io_to_json(example->inputs))),
                  &error))
    return fail(error);
  std::printf("%s.model.json\n%s.inputs.json\n", base.c_str(), base.c_str());
  return 0;
}

// `npusim config`: the config --hw names, every parameter as resolved (usable as a --hw file itself);
// with --explain, the catalogue of parameters instead (what each is, its default and unit).
int config_command(bool explain, const std::string& hw, const std::vector<std::string>& sets) {
  if (explain) {
    std::fputs(npu::system::explain_system_config().c_str(), stdout);
    return 0;
  }
  auto cfg = npu::system::load_system_config(hw, sets);  // validated as a run would
  if (!cfg) return fail(cfg.error());
  auto resolved = npu::system::resolved_config(hw, sets);
  if (!resolved) return fail(resolved.error());
  std::printf("%s\n", resolved->dump(2).c_str());
  return 0;
}

// Where measured device capabilities are kept: $NPUSIM_CACHE_DIR, else $XDG_CACHE_HOME/npusim, else
// ~/.cache/npusim; empty when none of these is set.
std::filesystem::path capability_cache_dir() {
  if (const char* d = std::getenv("NPUSIM_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::filesystem::path(d) / "npusim";
  if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".cache" / "npusim";
  return {};
}

// The operation x operand-type table (docs/hal.md embeds it), probed against the configured NPU.
int ops_command(const std::string& hw, const std::vector<std::string>& sets) {
  using namespace npu;
  auto cfg = system::load_system_config(hw, sets);
  if (!cfg) return fail(cfg.error());
  hal::NpuTarget target;
  target.array_rows = cfg->npu.channel.array_rows;
  target.array_cols = cfg->npu.channel.array_cols;
  target.sram_bytes = static_cast<uint64_t>(cfg->npu.channel.sram_kib) * 1024;
  target.channels = cfg->npu.channels;
  std::cout << hal::operation_table_markdown(hal::probe_operation_table(target));
  return 0;
}

// Device discovery as NNAPI apps see it (getType, getVersionString, {VENDOR}-{DEVICE_NAME}) and the
// capabilities each device measured on its reference workloads (execution time and energy vs the CPU).
// Measuring takes seconds of simulation, so the rows are cached per resolved hardware config and build
// (which fixes the driver and HAL versions): a changed config or a new build measures again.
int devices_command(const std::string& hw, const std::vector<std::string>& sets) {
  using namespace npu;
  auto cfg = system::load_system_config(hw, sets);
  if (!cfg) return fail(cfg.error());
  auto resolved = system::resolved_config(hw, sets);
  if (!resolved) return fail(resolved.error());
  // "rows 2": rows carry each device's extensions (older cached rows did not).
  const std::string identity =
      resolved->dump() + "\n" + version_line() + "\n" + std::string(git_hash()) + "\nrows 2";
  char key[17];
  std::snprintf(key, sizeof key, "%016llx",
                static_cast<unsigned long long>(digest64(identity.data(), identity.size())));
  const std::filesystem::path dir = capability_cache_dir();
  std::filesystem::path cached = dir.empty() ? dir : dir / (std::string("devices-") + key + ".caps");
  // Signed like the compilation cache (tools/capability_cache.h): a file that fails any check is named
  // in one warning and measured again, never believed.
  std::optional<hal::CacheIdentity> id;
  if (!cached.empty()) {
    auto cache_key = hal::load_or_create_cache_key(hal::default_cache_key_path());
    if (cache_key)
      id = tools::capability_cache_identity(*cache_key, identity);
    else
      std::fprintf(stderr, "npusim devices: warning: capability cache not used: %s\n",
                   cache_key.error().c_str());
  }
  if (!id) cached.clear();
  nlohmann::json rows;
  std::error_code exists_ec;
  if (!cached.empty() &&
      std::filesystem::symlink_status(cached, exists_ec).type() != std::filesystem::file_type::not_found) {
    auto read = tools::read_capability_cache(cached.string(), *id);
    if (read)
      rows = std::move(*read);
    else
      std::fprintf(stderr, "npusim devices: warning: %s; measuring again\n", read.error().c_str());
  }
  if (rows.is_null()) {
    auto sys = system::System::create(*cfg);
    if (!sys) return fail(sys.error());
    rows = nlohmann::json::array();
    auto end = (*sys)->run([&](system::System& s) {
      hal::Device* devices[] = {&s.npu_device(), &s.npu_device(10000, 1000, hal::NpuDevice::Variant::MINIMAL),
                                &s.cpu_device()};
      tools::Progress progress("devices: measuring capabilities", 3);
      uint32_t step = 0;
      for (hal::Device* d : devices) {
        progress.step(++step, d->name());
        const hal::Capabilities caps = d->capabilities();
        nlohmann::json perf = nlohmann::json::array();
        for (const auto& [type, p] : caps.operand_performance)
          perf.push_back({{"type", type}, {"exec_time", p.exec_time}, {"power_usage", p.power_usage}});
        const auto files = d->number_of_cache_files_needed();
        nlohmann::json extensions = nlohmann::json::array();
        for (const hal::Extension& e : d->supported_extensions()) extensions.push_back(e.name);
        rows.push_back({{"name", d->name()},
                        {"type", hal::to_string(d->type())},
                        {"version", d->version_string()},
                        {"cache_files", {files.first, files.second}},
                        {"extensions", extensions},
                        {"operand_performance", perf}});
      }
    });
    if (!end) return fail(end.error());
    if (!cached.empty()) {  // a cache that cannot be written only costs the next call its time
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (!ec) (void)tools::write_capability_cache(cached.string(), *id, rows);
    }
  }
  std::fputs(tools::capability_rows_text(rows).c_str(), stdout);
  return 0;
}

// A register's access kind as the register map and the kernel header spell it.
const char* access_name(npu::regs::Access a) {
  switch (a) {
    case npu::regs::Access::RO:
      return "RO";
    case npu::regs::Access::RW:
      return "RW";
    case npu::regs::Access::W1C:
      return "W1C";
    case npu::regs::Access::WO:
      return "WO";
  }
  return "?";
}

int regmap_command() {
  using namespace npu::regs;
  std::printf(
      "# NPU register map\n\nGenerated by `npusim regmap` from common/include/npu/regmap/npu_regs.h.\n\n"
      "Access: RO ignores writes (the bus answers a command error), WO reads 0, W1C clears the bits written "
      "as 1, RW stores. Fields are `name[high:low]`, as the regs::Field constants of the header place "
      "them.\n\n");
  std::printf(
      "## Global block (offset from MMIO base)\n\n| offset | name | access | reset | description "
      "|\n|---|---|---|---|---|\n");
  for (const auto& r : kGlobalRegisters)
    std::printf("| 0x%03X | %s | %s | 0x%08X | %s |\n", r.offset, std::string(r.name).c_str(),
                access_name(r.access), r.reset, std::string(r.description).c_str());
  std::printf(
      "\n## Thermal, power and DVFS block\n\n| offset | name | access | reset | description "
      "|\n|---|---|---|---|---|\n");
  for (const auto& r : kThermalRegisters)
    std::printf("| 0x%03X | %s | %s | 0x%08X | %s |\n", r.offset, std::string(r.name).c_str(),
                access_name(r.access), r.reset, std::string(r.description).c_str());
  std::printf(
      "\n## Channel block n (offset from 0x%X + n·0x%X, n < %u)\n\n| offset | name | access | reset | "
      "description |\n|---|---|---|---|---|\n",
      kChannelBase, kChannelStride, kMaxChannels);
  for (const auto& r : kChannelRegisters)
    std::printf("| 0x%02X | %s | %s | 0x%08X | %s |\n", r.offset, std::string(r.name).c_str(),
                access_name(r.access), r.reset, std::string(r.description).c_str());
  return 0;
}

// The register map as a kernel-style C header (kernel/npusim/npusim_regs.h is this output, checked by
// the ctest regmap.c_header): offsets, GENMASK/BIT fields, the channel states, errors and fault kinds.
int regmap_c_header() {
  using namespace npu::regs;
  auto upper = [](std::string_view s) {
    std::string u(s);
    for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return u;
  };
  auto reg = [&](std::string_view name, uint32_t offset, const char* access) {
    std::printf("#define NPUSIM_%-28s 0x%03x /* %s */\n", std::string(name).c_str(), offset, access);
  };
  std::printf(
      "/* SPDX-License-Identifier: GPL-2.0 OR MIT */\n"
      "/*\n"
      " * npusim NPU register map. Generated by `npusim regmap --c-header` from\n"
      " * common/include/npu/regmap/npu_regs.h: do not edit; regenerate.\n"
      " */\n"
      "#ifndef NPUSIM_REGS_H\n#define NPUSIM_REGS_H\n\n"
      "#ifdef __KERNEL__ /* user space (the guest runner) uses the plain constants */\n"
      "#include <linux/bits.h>\n#endif\n\n");
  std::printf("#define NPUSIM_ID_VALUE 0x%08x\n\n/* Global block (offset from the MMIO base) */\n",
              kNpuIdValue);
  for (const auto& r : kGlobalRegisters) reg(r.name, r.offset, access_name(r.access));
  std::printf("\n/* Thermal, power and DVFS block */\n");
  for (const auto& r : kThermalRegisters) reg(r.name, r.offset, access_name(r.access));
  std::printf(
      "\n/* Channel block n: NPUSIM_CH_BASE(n) + the channel register's offset */\n"
      "#define NPUSIM_CH_BLOCK 0x%x\n#define NPUSIM_CH_STRIDE 0x%x\n#define NPUSIM_MAX_CHANNELS %u\n"
      "#define NPUSIM_CH_BASE(n) (NPUSIM_CH_BLOCK + (n) * NPUSIM_CH_STRIDE)\n",
      kChannelBase, kChannelStride, kMaxChannels);
  for (const auto& r : kChannelRegisters) reg(r.name, r.offset, access_name(r.access));
  std::printf("\n/* Fields: NPUSIM_<register>_<field> */\n");
  for (const auto& f : kFields) {
    const std::string name = upper(f.reg) + "_" + upper(f.name);
    if (f.field.width == 1)
      std::printf("#define NPUSIM_%-36s BIT(%u)\n", name.c_str(), f.field.shift);
    else
      std::printf("#define NPUSIM_%-36s GENMASK(%u, %u)\n", name.c_str(), f.field.shift + f.field.width - 1,
                  f.field.shift);
  }
  std::printf("\n#define NPUSIM_SAVE_AREA_HEADER %u\n", kSaveAreaHeader);
  // The enums have no name tables in npu_regs.h but FaultKind's; their values are listed here once, and
  // each line checks itself against the C++ enum at compile time.
  std::printf("\n/* CH_STATUS.state */\n");
#define NPUSIM_ENUM_LINE(prefix, type, value) \
  std::printf("#define NPUSIM_%s_%s %u\n", prefix, #value, static_cast<uint32_t>(type::value))
  NPUSIM_ENUM_LINE("CH_STATE", ChannelState, IDLE);
  NPUSIM_ENUM_LINE("CH_STATE", ChannelState, BUSY);
  NPUSIM_ENUM_LINE("CH_STATE", ChannelState, DONE);
  NPUSIM_ENUM_LINE("CH_STATE", ChannelState, ERROR);
  NPUSIM_ENUM_LINE("CH_STATE", ChannelState, PREEMPTED);
  std::printf("\n/* CH_STATUS.error */\n");
  NPUSIM_ENUM_LINE("CH_ERR", ChannelError, NONE);
  NPUSIM_ENUM_LINE("CH_ERR", ChannelError, BAD_DESCRIPTOR);
  NPUSIM_ENUM_LINE("CH_ERR", ChannelError, DMA_FAULT);
  NPUSIM_ENUM_LINE("CH_ERR", ChannelError, SRAM_OVERFLOW);
  NPUSIM_ENUM_LINE("CH_ERR", ChannelError, SRAM_ECC);
  NPUSIM_ENUM_LINE("CH_ERR", ChannelError, INDEX_OUT_OF_RANGE);
#undef NPUSIM_ENUM_LINE
  std::printf("\n/* CH_FAULT_INJECT.kind */\n");
  for (const auto& e : kFaultKindNames)
    std::printf("#define NPUSIM_FAULT_%s %u\n", upper(e.name).c_str(), static_cast<uint32_t>(e.value));
  // The command-buffer descriptor facts a kernel driver needs to validate the device addresses
  // descriptors carry (descriptors.h): size, opcodes, and the byte offsets of the header's opcode and
  // of the DMA fields (DMA_IN/DMA_OUT/DMA_GATHER share the Dma layout up to dev_stride).
  {
    namespace d = npu::desc;
    std::printf("\n/* Command-buffer descriptors (common/include/npu/regmap/descriptors.h) */\n");
    std::printf("#define NPUSIM_DESC_BYTES %u\n", d::kDescriptorBytes);
    std::printf("#define NPUSIM_DESC_OPCODE_COUNT %u\n", d::kOpcodeCount);
    for (const auto& e : d::kOpcodeNames)
      std::printf("#define NPUSIM_OP_%s %u\n", std::string(e.name).c_str(), static_cast<uint32_t>(e.value));
    auto field = [](const char* name, size_t offset, size_t size) {
      std::printf("#define NPUSIM_DESC_%-22s %zu /* u%zu */\n", name, offset, size * 8);
    };
    field("OPCODE", offsetof(d::Header, opcode), sizeof(d::Header::opcode));
    field("DMA_DEV", offsetof(d::Dma, dev), sizeof(d::Dma::dev));
    field("DMA_ROW_BYTES", offsetof(d::Dma, row_bytes), sizeof(d::Dma::row_bytes));
    field("DMA_ROWS", offsetof(d::Dma, rows), sizeof(d::Dma::rows));
    field("DMA_DEV_STRIDE", offsetof(d::Dma, dev_stride), sizeof(d::Dma::dev_stride));
    field("GATHER_TABLE_ROWS", offsetof(d::DmaGather, table_rows), sizeof(d::DmaGather::table_rows));
    static_assert(offsetof(d::DmaGather, dev) == offsetof(d::Dma, dev) &&
                  offsetof(d::DmaGather, row_bytes) == offsetof(d::Dma, row_bytes) &&
                  offsetof(d::DmaGather, rows) == offsetof(d::Dma, rows) &&
                  offsetof(d::DmaGather, dev_stride) == offsetof(d::Dma, dev_stride));
  }
  std::printf("\n#endif /* NPUSIM_REGS_H */\n");
  return 0;
}

// The first word of the command line that is neither an option nor --log's value: the subcommand typed.
std::string typed_subcommand(int argc, char* argv[]) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--log") {
      ++i;
      continue;
    }
    if (a.empty() || a[0] == '-') continue;
    return a;
  }
  return {};
}

}  // namespace

// Help for every subcommand, generic over what is registered: `npusim`, `npusim --help`.
std::string full_help(CLI::App& app) {
  std::string text = app.help();
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    text += "\n" + sub->help(app.get_name());
  return text;
}

namespace {

int npusim_main(int argc, char* argv[]) {
  CLI::App app{"npusim: cycle-approximate NPU simulator with a driver, NNAPI-style HAL and NPU manager",
               "npusim"};
  app.set_help_flag();  // replaced by the generic full help below
  app.set_version_flag("--version", npu::version_line(),
                       "Print the version and the git commit it was built from");
  bool help = false;
  app.add_flag("-h,--help", help, "Explain every subcommand");
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "No progress lines on stderr (shown only on a terminal anyway)");
  app.fallthrough();  // --quiet and --log also after the subcommand: `npusim scenario s.json --quiet`
  std::string log_filter;
  app.add_option("--log", log_filter, "Log tags/components to print (overrides NPUSIM_LOG): all, or a list");

  const npusim::Subcommand run_sub = npusim::register_run_command(app);

  std::string example_name, example_dir = ".";
  uint64_t example_seed = 1;
  auto* example_cmd = app.add_subcommand("example", "Write a seeded example model and inputs");
  example_cmd->add_option("name", example_name, npu::tools::example_names())->required();
  example_cmd->add_option("--dir", example_dir, "Output folder")->capture_default_str();
  example_cmd->add_option("--seed", example_seed, "Random seed")->capture_default_str();

  bool explain = false;
  std::string config_hw = npu::tools::default_hw_config();
  std::vector<std::string> config_sets;
  auto* config_cmd = app.add_subcommand(
      "config", "Print a hardware config with every parameter resolved (bases, presets, --set) as JSON");
  config_cmd->add_option("--hw", config_hw, "Hardware config JSON or a shipped preset's name (large)")
      ->capture_default_str();
  config_cmd->add_option("--set", config_sets, "Override a hardware parameter: path=value (repeatable)");
  config_cmd->add_flag("--explain", explain,
                       "Instead: list every parameter with its default, unit and description");

  bool regmap_c = false;
  auto* regmap_cmd = app.add_subcommand("regmap", "Print the register map as Markdown");
  regmap_cmd->add_flag("--c-header", regmap_c,
                       "Print it as a kernel-style C header instead (kernel/npusim/npusim_regs.h)");

  std::string devices_hw = npu::tools::default_hw_config();
  std::vector<std::string> devices_sets;
  auto* devices_cmd =
      app.add_subcommand("devices", "List the NNAPI devices: name, type, version, capabilities");
  devices_cmd->add_option("--hw", devices_hw, "Hardware config JSON")->capture_default_str();
  devices_cmd->add_option("--set", devices_sets, "Override a hardware parameter: path=value");

  std::string ops_hw = npu::tools::default_hw_config();
  std::vector<std::string> ops_sets;
  auto* ops_cmd = app.add_subcommand(
      "ops", "Print the operation x operand-type table (CPU reference and NPU support) as Markdown");
  ops_cmd->add_option("--hw", ops_hw, "Hardware config JSON")->capture_default_str();
  ops_cmd->add_option("--set", ops_sets, "Override a hardware parameter: path=value");

  const auto zoo = npu::tools::add_zoo_command(app);
  const auto bench = npu::tools::add_bench_command(app);
  int command_exit = -1;
  npu::tools::register_import_commands(app, &command_exit);
  const auto regress = npu::tools::add_regress_command(app);
  const auto graph = npu::tools::add_graph_command(app);

  // Subcommands in their own files (tools/cmd_*.cpp); one line each.
  const std::vector<npusim::Subcommand> registered = {
      npusim::register_scenario_command(app), npusim::register_sweep_command(app),
      npusim::register_measure_command(app),  npusim::register_stress_command(app),
      npusim::register_vp_command(app),  // docs/vp-device.md
      npusim::register_program_command(app),
  };

  if (argc == 1) {
    std::fputs(full_help(app).c_str(), stdout);
    return 0;
  }
  // `npusim SUB [SUB2] ... --help`: that subcommand's help, found before parsing, which would fail
  // first on the subcommand's required arguments.
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg != "-h" && arg != "--help") continue;
    CLI::App* target = &app;
    std::string parents = "npusim", usage_prefix;
    for (int j = 1; j < argc; ++j)
      for (CLI::App* sub : target->get_subcommands([](CLI::App*) { return true; }))
        if (sub->get_name() == argv[j]) {
          usage_prefix = parents;
          parents += " " + sub->get_name();
          target = sub;
          break;
        }
    std::fputs(target == &app ? full_help(app).c_str() : target->help(usage_prefix).c_str(), stdout);
    return 0;
  }
  // A mistyped subcommand ("rnu") is named with the nearest one, before CLI11 would list every word after
  // it as unexpected.
  if (const std::string typed = typed_subcommand(argc, argv); !typed.empty()) {
    std::vector<std::string> names;
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
      names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), typed) == names.end()) {
      std::fprintf(stderr, "npusim: %s: no such command%s (see npusim --help)\n", typed.c_str(),
                   npu::did_you_mean(typed, names).c_str());
      return 2;
    }
  }
  npu::tools::set_command_line(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "npusim: %s (see npusim --help)\n", e.what());
    return 2;
  }
  if (help && !app.get_subcommands().empty()) {
    std::fputs(app.get_subcommands().front()->help().c_str(), stdout);
    return 0;
  }
  if (help || app.get_subcommands().empty()) {
    std::fputs(full_help(app).c_str(), stdout);
    return help ? 0 : 2;
  }
  // --log overrides NPUSIM_LOG; whichever selects the logs, an unknown name is refused naming it.
  const char* env_log = std::getenv("NPUSIM_LOG");
  const std::string log_source = !log_filter.empty() ? "--log" : "NPUSIM_LOG";
  const std::string logs = !log_filter.empty() ? log_filter : env_log ? env_log : "";
  if (const std::string bad = logs.empty() ? "" : npu::log::unknown_selector(logs); !bad.empty())
    return fail(log_source + ": no log is named '" + bad + "' (known: " + npu::log::known_roots() +
                ", or a component such as npu.ch0 or driver.regs)");
  if (!log_filter.empty()) npu::log::set_filter(log_filter);
  npu::tools::set_progress_quiet(quiet);
  if (command_exit >= 0) return command_exit;
  if (run_sub.cli->parsed()) return run_sub.run();
  for (const auto& sub : registered)
    if (sub.cli->parsed()) return sub.run();
  if (const int status = zoo(); status >= 0) return status;
  if (const int status = bench(); status >= 0) return status;
  if (const int status = regress(); status >= 0) return status;
  if (const int status = graph(); status >= 0) return status;
  if (config_cmd->parsed()) return config_command(explain, config_hw, config_sets);
  if (regmap_cmd->parsed()) return regmap_c ? regmap_c_header() : regmap_command();
  if (devices_cmd->parsed()) return devices_command(devices_hw, devices_sets);
  if (ops_cmd->parsed()) return ops_command(ops_hw, ops_sets);
  if (example_cmd->parsed()) return example_command(example_name, example_dir, example_seed);
  return 1;
}

}  // namespace

// The one top-level guard: whatever escapes a command or a SystemC process (which sc_start() rethrows as
// an sc_report) is one line on stderr and exit status 5, never the kernel's "Error: (E549) uncaught
// exception" report on stdout, which sc_elab_and_sim() would print for anything escaping sc_main.
int sc_main(int argc, char* argv[]) {
  // A fatal SystemC report would print on stdout and abort: thrown instead, it reaches the guard.
  sc_core::sc_report_handler::set_actions(sc_core::SC_FATAL, sc_core::SC_THROW);
  try {
    return npusim_main(argc, argv);
  } catch (...) {
    std::fflush(stdout);
    std::fprintf(stderr, "npusim: %s\n", npu::tools::escaped_error_line(std::current_exception()).c_str());
    return npu::tools::kExitEscapedError;
  }
}

// libsystemc's own main() would print its banner before anything can silence it.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
