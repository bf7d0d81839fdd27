// `npusim zoo list [--json]` lists the zoo with parameter and MAC counts read off each graph;
// `npusim zoo write NAME[@N] [--dir D] [--seed S]` writes NAME.model.json (and, for models whose
// weights are real, NAME.inputs.json with seeded inputs) for `npusim run` and other tools.
#include "cmd_zoo.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "npu/common/file_io.h"
#include "npu/common/version.h"
#include "npu/models/builder.h"
#include "npu/models/figures.h"
#include "npu/models/io_json.h"
#include "npu/models/model_json.h"
#include "npu/models/zoo.h"

namespace npu::tools {
namespace {

struct ZooOptions {
  bool json = false;
  std::string name, dir = ".";
  uint64_t seed = 1;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "npusim: %s\n", message.c_str());
  return 1;
}

int list(const ZooOptions& o) {
  nlohmann::json rows = nlohmann::json::array();
  // Columns as wide as the longest name and kind (the *_nnapi names are longer than any fixed width).
  int name_w = 4, kind_w = 4;
  for (const models::ZooEntry& e : models::zoo_entries()) {
    name_w = std::max(name_w, static_cast<int>(e.name.size()));
    kind_w = std::max(kind_w, static_cast<int>(e.kind.size()));
  }
  if (!o.json)
    std::printf("%-*s %-*s %14s %14s  %s\n", name_w, "name", kind_w, "kind", "parameters", "MACs",
                "description");
  for (const models::ZooEntry& e : models::zoo_entries()) {
    auto m = models::zoo_model(e.name, o.seed, /*values=*/false);  // sizes suffice for the figures
    if (!m) return fail(m.error());
    const models::ModelFigures f = models::model_figures(*m);
    if (o.json) {
      rows.push_back({{"name", e.name},
                      {"kind", e.kind},
                      {"timing_only", e.timing_only},
                      {"parameters", f.parameters},
                      {"parameter_bytes", f.parameter_bytes},
                      {"macs", f.macs},
                      {"operations", f.operations},
                      {"description", e.description}});
    } else {
      std::printf("%-*s %-*s %14llu %14llu  %s\n", name_w, e.name.c_str(), kind_w, e.kind.c_str(),
                  static_cast<unsigned long long>(f.parameters), static_cast<unsigned long long>(f.macs),
                  e.description.c_str());
    }
  }
  if (o.json) std::printf("%s\n", rows.dump(2).c_str());
  return 0;
}

int write(const ZooOptions& o) {
  auto m = models::zoo_model(o.name, o.seed);
  if (!m) return fail(m.error());
  std::error_code ec;  // as `npusim example --dir`: a folder that does not exist yet is created
  std::filesystem::create_directories(o.dir, ec);
  if (ec) return fail(o.dir + ": cannot create the folder: " + ec.message());
  const std::string base = o.dir + "/" + o.name;
  if (auto r = models::save_model_json(*m, base + ".model.json", build_json()); !r) return fail(r.error());
  std::printf("%s.model.json\n", base.c_str());
  if (models::find_zoo_entry(o.name)->timing_only) {
    std::printf("(timing-only model: weights are sizes only, no inputs written)\n");
    return 0;
  }
  const std::string inputs = base + ".inputs.json";
  if (auto w = io::write_file_atomic(inputs, models::dump_json_pretty(with_build(
                                                 models::io_to_json(models::random_inputs(*m, o.seed)))));
      !w)
    return fail(w.error());
  std::printf("%s\n", inputs.c_str());
  return 0;
}

}  // namespace

std::function<int()> add_zoo_command(CLI::App& app) {
  auto o = std::make_shared<ZooOptions>();
  auto* zoo = app.add_subcommand("zoo", "The built-in model zoo (use a model as --model zoo:NAME)");
  zoo->require_subcommand(1);
  auto* list_cmd = zoo->add_subcommand("list", "List the zoo's models with parameters and MACs");
  list_cmd->add_flag("--json", o->json, "Machine-readable list");
  auto* write_cmd = zoo->add_subcommand("write", "Write NAME.model.json (and seeded NAME.inputs.json)");
  write_cmd->add_option("name", o->name, "Zoo model name, optionally NAME@N (see zoo list)")->required();
  write_cmd->add_option("--dir", o->dir, "Output folder")->capture_default_str();
  for (CLI::App* c : {list_cmd, write_cmd})
    c->add_option("--seed", o->seed, "Weight/input seed")->capture_default_str();
  return [zoo, list_cmd, write_cmd, o]() {
    if (!zoo->parsed()) return -1;
    if (list_cmd->parsed()) return list(*o);
    return write_cmd->parsed() ? write(*o) : 1;
  };
}

}  // namespace npu::tools
