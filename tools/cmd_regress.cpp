// Regression simulations for CI. A case folder holds case.json (hardware config, overrides, model) and
// expected.json (the stats the case produced when it was last blessed, with tolerances). `npusim regress
// DIR` runs the case, diffs every expected stat against this run and names each one that moved beyond its
// tolerance; `--bless` rewrites expected.json from this run (keeping the tolerances); `--complete` also
// fails a case whose expected.json lacks stats the run has (the ctest cases use it). What it does not
// do: compare stats it was not told to (case.json "compare" prefixes) or judge whether a move is good.
#include "cmd_regress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "examples.h"
#include "npu/common/file_io.h"
#include "npu/common/shipped.h"
#include "npu/models/io_json.h"
#include "npu/models/model_json.h"
#include "npu/models/validate.h"
#include "npu/system/system.h"

namespace npu::tools {
namespace {

using nlohmann::json;

struct Case {
  std::string dir, name, hw;
  std::vector<std::string> sets;
  std::string example;
  uint64_t seed = 1;
  std::string model_file, inputs_file;
  std::vector<std::string> compare{"npu", "driver", "hal", "result"};
};

std::string join(const std::string& dir, const std::string& rel) {
  return rel.empty() || rel[0] == '/' ? rel : dir + "/" + rel;
}

Result<json> read_json(const std::string& path) {
  auto text = models::read_text_file(path);
  if (!text) return make_error(text.error());
  return models::parse_json_text(*text, path);
}

// case.json: {"description": "...", "hw": "<config, relative to the case>", "set": ["path=value", ...],
//             "model": {"example": "<npusim example name>", "seed": 1} | {"file": "m.json", "inputs":
//             "i.json"}, "compare": ["npu", ...]}
Result<Case> load_case(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  Case c;
  c.dir = dir;
  c.name = dir.substr(dir.rfind('/') + 1);
  const std::string path = dir + "/case.json";
  auto doc = read_json(path);
  if (!doc) return make_error(doc.error());
  auto err = [&](const std::string& at, const std::string& what) {
    return make_error(path + ": $." + at + ": " + what);
  };
  if (!doc->is_object()) return make_error(path + ": $: expected an object");
  for (const auto& [key, value] : doc->items()) {
    if (key == "description") continue;
    if (key == "hw") {
      if (!value.is_string()) return err(key, "expected the path of a hardware config, got " + value.dump());
      // An installed case (<data>/tests/regress/NAME) finds its preset among the shipped configs.
      c.hw = shipped::fallback("npu", value.get<std::string>(), join(dir, value.get<std::string>()));
    } else if (key == "set" || key == "compare") {
      std::vector<std::string>& list = key == "set" ? c.sets : c.compare;
      list.clear();
      if (!value.is_array()) return err(key, "expected an array of strings, got " + value.dump());
      for (size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_string()) return err(key + "[" + std::to_string(i) + "]", "expected a string");
        list.push_back(value[i].get<std::string>());
      }
    } else if (key == "model") {
      if (!value.is_object())
        return err(key, "expected {\"example\": name, \"seed\": n} or {\"file\": ..., \"inputs\": ...}");
      for (const auto& [k, v] : value.items()) {
        const std::string at = "model." + k;
        if (k == "seed") {
          if (!v.is_number_unsigned()) return err(at, "expected a non-negative integer, got " + v.dump());
          c.seed = v.get<uint64_t>();
        } else if (k == "example" || k == "file" || k == "inputs") {
          if (!v.is_string()) return err(at, "expected a string, got " + v.dump());
          (k == "example" ? c.example
           : k == "file"  ? c.model_file
                          : c.inputs_file) =
              k == "example" ? v.get<std::string>() : join(dir, v.get<std::string>());
        } else {
          return err(at, "unknown key (example, seed, file, inputs)");
        }
      }
      if (c.example.empty() == c.model_file.empty())
        return err(key, "expected exactly one of example and file");
      if (!c.model_file.empty() && c.inputs_file.empty()) return err(key, "a model file needs \"inputs\"");
    } else {
      return err(key, "unknown key (description, hw, set, model, compare)");
    }
  }
  if (c.hw.empty()) return err("hw", "missing");
  if (c.example.empty() && c.model_file.empty()) return err("model", "missing");
  return c;
}

void flatten(const json& node, const std::string& path, std::map<std::string, json>* out) {
  if (node.is_object()) {
    for (const auto& [k, v] : node.items()) flatten(v, path.empty() ? k : path + "." + k, out);
  } else {
    (*out)[path] = node;
  }
}

bool under(const std::string& path, const std::string& prefix) {
  return path == prefix || (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
                            path[prefix.size()] == '.');
}

// FNV-1a over the output tensors' bytes in index order: any changed output byte changes it.
std::string outputs_digest(const hal::TensorMap& outputs) {
  uint64_t h = 1469598103934665603ull;
  for (const auto& [idx, t] : outputs) {
    for (uint8_t b : t.data) h = (h ^ b) * 1099511628211ull;
    h = (h ^ idx) * 1099511628211ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

// Runs the case; returns every stat of the run (flattened) plus result.* (the execution as the HAL saw it).
Result<std::map<std::string, json>> run_case(const Case& c, bool allow_fast) {
  models::Model model;
  hal::TensorMap inputs;
  if (!c.example.empty()) {
    auto e = make_example(c.example, c.seed);
    if (!e) return make_error(c.dir + "/case.json: $.model.example: " + e.error());
    model = std::move(e->model);
    inputs = std::move(e->inputs);
  } else {
    auto m = models::load_model_json(c.model_file);
    if (!m) return make_error(m.error());
    if (auto v = models::validate_model(*m); !v) return make_error(c.model_file + ": " + v.error());
    auto in = models::load_io_json(c.inputs_file, *m);
    if (!in) return make_error(in.error());
    model = std::move(*m);
    inputs = std::move(*in);
  }
  auto cfg = system::load_system_config(c.hw, c.sets);
  if (!cfg) return make_error(cfg.error());
  // Expected stats are exact mode's: a case run loosely timed would fail (or bless) figures of the wrong
  // model. Fast mode's error against exact is measured by scripts/timing-compare instead.
  if (cfg->npu.timing.fast() && !allow_fast)
    return make_error(c.dir +
                      "/case.json: npu.timing.mode is \"fast\"; regress cases run in exact mode "
                      "(--allow-fast runs it anyway, as scripts/timing-compare does to measure fast mode)");
  auto sys = system::System::create(*cfg);
  if (!sys) return make_error(sys.error());
  hal::ExecutionResult result;
  hal::Status prepare_status;
  std::string placement;
  auto end = (*sys)->run([&](system::System& s) {
    auto prepared = s.npu_device().prepare_model(model);
    prepare_status = prepared.status;
    if (!prepared.status.ok()) return;
    placement = prepared.model->placement();
    result = prepared.model->execute_synchronously(inputs, true);
  });
  if (!end) return make_error(end.error());
  if (!prepare_status.ok())
    return make_error(std::string("prepareModel: ") + hal::to_string(prepare_status.code) + ": " +
                      prepare_status.message);
  if (!result.status.ok())
    return make_error(std::string("execute: ") + hal::to_string(result.status.code) + ": " +
                      result.status.message);
  std::map<std::string, json> got;
  flatten((*sys)->stats().to_json(), "", &got);
  got["result.placement"] = placement;
  got["result.latency_us"] = result.timing.time_in_driver_us;
  got["result.device_us"] = result.timing.time_on_device_us;
  got["result.npu_cycles"] = result.device_cycles;
  got["result.command_buffers"] = result.command_buffers;
  got["result.simulated_end_s"] = *end;
  got["result.outputs_fnv1a"] = outputs_digest(result.outputs);
  return got;
}

struct Tolerance {
  double rel = 0, abs = 0;
};

// The tolerance of `path`: the most specific matching key of expected.json "tolerances" ("default", a
// stat path, or a path prefix whose segments may be "*" for any one segment, e.g. "npu.*.macs").
Tolerance tolerance_of(const json& tolerances, const std::string& path) {
  auto segments = [](const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string seg; std::getline(in, seg, '.');) out.push_back(seg);
    return out;
  };
  const auto p = segments(path);
  Tolerance best;
  int best_score = -1;
  for (const auto& [key, t] : tolerances.items()) {
    int score = 0;
    if (key != "default") {
      const auto k = segments(key);
      if (k.size() > p.size()) continue;
      bool match = true;
      for (size_t i = 0; i < k.size() && match; ++i) {
        match = k[i] == "*" || k[i] == p[i];
        score += k[i] == "*" ? 1 : 2;
      }
      if (!match) continue;
    }
    if (score > best_score) {
      best_score = score;
      best = {t.value("rel", 0.0), t.value("abs", 0.0)};
    }
  }
  return best;
}

std::string number_text(double v) {
  std::ostringstream s;
  s.precision(12);
  s << v;
  return s.str();
}

// Every expected stat that moved beyond its tolerance (or vanished), one line each.
std::vector<std::string> diff(const json& expected_doc, const std::map<std::string, json>& got) {
  std::vector<std::string> moved;
  const json& tolerances = expected_doc.contains("tolerances") ? expected_doc["tolerances"] : json::object();
  for (const auto& [path, want] : expected_doc["stats"].items()) {
    const auto it = got.find(path);
    if (it == got.end()) {
      moved.push_back(path + ": expected " + want.dump() + ", missing from this run");
      continue;
    }
    const json& have = it->second;
    if (!want.is_number() || !have.is_number()) {
      if (want != have)
        moved.push_back(path + ": expected " + want.dump() + ", got " + have.dump() + " (exact)");
      continue;
    }
    const double e = want.get<double>(), g = have.get<double>();
    const Tolerance t = tolerance_of(tolerances, path);
    const double allowed = std::max(t.abs, t.rel * std::fabs(e));
    if (std::fabs(g - e) <= allowed) continue;
    std::string line = path + ": expected " + number_text(e) + ", got " + number_text(g);
    if (e != 0) {
      char pct[32];
      std::snprintf(pct, sizeof pct, " (%+.3g%%)", 100.0 * (g - e) / std::fabs(e));
      line += pct;
    }
    line += ", tolerance ±" + number_text(allowed) + " (rel " + number_text(t.rel) + ", abs " +
            number_text(t.abs) + ")";
    moved.push_back(line);
  }
  return moved;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "npusim regress: %s\n", message.c_str());
  return 1;
}

struct Options {
  std::string dir, expected;
  bool bless = false;
  bool complete = false;    // new stats (ones expected.json lacks) fail the case too
  bool allow_fast = false;  // run a case whose config selects npu.timing.mode=fast (timing-compare)
};

// A case folder as given, or a shipped case by name (`npusim regress conv-float-large`): the source
// tree's tests/regress, installed as <prefix>/share/npusim/tests/regress.
std::string case_dir(const std::string& name_or_dir) {
  std::error_code ec;
  if (std::filesystem::exists(name_or_dir, ec) || name_or_dir.find('/') != std::string::npos)
    return name_or_dir;
  const auto shipped = std::filesystem::path(shipped::data_dir()) / "tests" / "regress" / name_or_dir;
  return std::filesystem::is_directory(shipped, ec) ? shipped.string() : name_or_dir;
}

int regress(const Options& o) {
  auto c = load_case(case_dir(o.dir));
  if (!c) return fail(c.error());
  const std::string expected_path = o.expected.empty() ? c->dir + "/expected.json" : o.expected;
  auto got = run_case(*c, o.allow_fast);
  if (!got) return fail(c->name + ": " + got.error());
  std::map<std::string, json> compared;
  for (const auto& [path, v] : *got) {
    for (const auto& prefix : c->compare) {
      if (under(path, prefix)) compared[path] = v;
    }
  }

  json expected;
  if (auto doc = read_json(expected_path); doc) {
    expected = *doc;
    if (!expected.is_object() || !expected.contains("stats") || !expected["stats"].is_object())
      return fail(expected_path + ": $.stats: expected an object of stat path → value");
    if (expected.contains("tolerances")) {
      for (const auto& [key, t] : expected["tolerances"].items()) {
        if (!t.is_object() || !t.value("rel", json(0.0)).is_number() ||
            !t.value("abs", json(0.0)).is_number())
          return fail(expected_path + ": $.tolerances." + key +
                      ": expected {\"rel\": number, \"abs\": number}");
      }
    }
  } else if (!o.bless) {
    return fail(doc.error() + " (create it with: npusim regress " + o.dir + " --bless)");
  }

  if (o.bless) {
    json out = json::object();
    out["note"] = "Generated by `npusim regress <case> --bless`; edit only the tolerances.";
    // Simulated results are deterministic; the default tolerance lets a small intended modelling change
    // through while anything larger names itself. Work done (MACs, bytes, descriptors) must match exactly.
    out["tolerances"] = expected.contains("tolerances") ? expected["tolerances"]
                                                        : json{{"default", {{"rel", 0.01}, {"abs", 1e-6}}},
                                                               {"npu.*.macs", {{"rel", 0.0}}},
                                                               {"npu.*.dma.bytes_in", {{"rel", 0.0}}},
                                                               {"npu.*.dma.bytes_out", {{"rel", 0.0}}},
                                                               {"result.command_buffers", {{"rel", 0.0}}}};
    out["stats"] = json::object();
    for (const auto& [path, v] : compared) out["stats"][path] = v;
    if (auto w = io::write_file_atomic(expected_path, out.dump(2) + "\n"); !w) return fail(w.error());
    std::printf("regress %s: blessed %zu stats into %s\n", c->name.c_str(), compared.size(),
                expected_path.c_str());
    return 0;
  }

  const auto moved = diff(expected, *got);
  std::vector<std::string> fresh;
  for (const auto& [path, v] : compared)
    if (!expected["stats"].contains(path)) fresh.push_back(path);
  if (moved.empty() && o.complete && !fresh.empty()) {
    std::printf("regress %s: FAIL, %zu stats of this run are not in %s (--complete):\n", c->name.c_str(),
                fresh.size(), expected_path.c_str());
    for (const auto& path : fresh) std::printf("  %s\n", path.c_str());
    std::printf("to add them: npusim regress %s --bless\n", o.dir.c_str());
    return 1;
  }
  if (moved.empty()) {
    std::printf("regress %s: PASS, %zu stats within tolerance", c->name.c_str(), expected["stats"].size());
    if (!fresh.empty())
      std::printf(" (%zu new stats not in %s; --bless to add them)", fresh.size(), expected_path.c_str());
    std::printf("\n");
    return 0;
  }
  std::printf("regress %s: FAIL, %zu of %zu stats moved beyond tolerance:\n", c->name.c_str(), moved.size(),
              expected["stats"].size());
  for (const auto& line : moved) std::printf("  %s\n", line.c_str());
  std::printf("if the change is intended, re-bless: npusim regress %s --bless\n", o.dir.c_str());
  return 1;
}

}  // namespace

std::function<int()> add_regress_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto* cmd =
      app.add_subcommand("regress", "Run a regression case (tests/regress/<case>) and diff its stats");
  cmd->add_option("case", o->dir,
                  "Case folder holding case.json and expected.json, or a shipped case's name "
                  "(tests/regress/<case>, installed under share/npusim)")
      ->required();
  cmd->add_flag("--bless", o->bless, "Write this run's stats as the expected ones (keeps the tolerances)");
  cmd->add_flag(
      "--complete", o->complete,
      "Fail also when this run has stats expected.json lacks (counters added since the last bless)");
  cmd->add_flag("--allow-fast", o->allow_fast,
                "Run the case even if its config selects npu.timing.mode=fast (refused otherwise: expected "
                "stats are exact mode's; scripts/timing-compare uses this to measure fast mode)");
  cmd->add_option("--expected", o->expected, "Expected stats file to use instead of <case>/expected.json");
  return [o, cmd] { return cmd->parsed() ? regress(*o) : -1; };
}

}  // namespace npu::tools
