#include "npu/sweep/spec.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>
#include <sstream>

#include "npu/common/shipped.h"
#include "npu/models/model_json.h"
#include "npu/sweep/area.h"
#include "npu/system/system.h"

namespace npu::sweep {
namespace {

using nlohmann::json;

std::string resolve(const std::string& dir, const std::string& p) {
  if (p.empty() || p[0] == '/' || p.rfind("zoo:", 0) == 0 || dir.empty()) return p;
  return std::filesystem::path(dir + "/" + p).lexically_normal().string();
}

// A dotted parameter path as a JSON pointer: each segment escaped (RFC 6901: ~ is ~0, / is ~1), so a
// path holding them names no parameter instead of throwing (~) or aliasing a nested one (/).
std::optional<json> lookup(const json& values, const std::string& dotted) {
  std::string p = "/";
  for (char c : dotted) {
    if (c == '.')
      p += '/';
    else if (c == '~')
      p += "~0";
    else if (c == '/')
      p += "~1";
    else
      p += c;
  }
  const json::json_pointer ptr(p);
  if (!values.contains(ptr)) return std::nullopt;
  return values.at(ptr);
}

// Errors for keys the object may not have.
Result<void> only_keys(const json& obj, const std::set<std::string>& allowed, const std::string& where) {
  for (const auto& [k, v] : obj.items()) {
    (void)v;
    if (!allowed.count(k)) {
      std::string names;
      for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + a;
      return make_error(where + "." + k + ": unknown key (expected " + names + ")");
    }
  }
  return {};
}

Result<double> number(const json& obj, const char* key, const std::string& where) {
  if (!obj.contains(key) || !obj[key].is_number())
    return make_error(where + "." + key + ": expected a number" +
                      (obj.contains(key) ? ", got " + obj[key].dump() : " (missing)"));
  return obj[key].get<double>();
}

// A value of `axis` for its parameter: rounded when the parameter is an integer.
json axis_value(const Axis& axis, double x) {
  if (axis.integer) return json(static_cast<int64_t>(std::llround(x)));
  // 12 significant digits: a log range's points print and digest the same everywhere.
  std::ostringstream s;
  s.precision(12);
  s << x;
  return json(std::stod(s.str()));
}

Result<Axis> parse_axis(const json& a, const std::string& where, const json& base_values,
                        const std::string& base, const std::vector<std::string>& base_set) {
  Axis axis;
  if (!a.is_object())
    return make_error(
        where + ": expected an object {\"param\": ..., \"values\" | \"linear\" | \"log\" | \"min\"/\"max\"}");
  if (auto r = only_keys(a, {"param", "values", "linear", "log", "min", "max", "scale"}, where); !r)
    return make_error(r.error());
  if (!a.contains("param") || !a["param"].is_string())
    return make_error(where + ".param: expected a parameter path (npusim config --explain)");
  axis.param = a["param"].get<std::string>();
  const auto current = lookup(base_values, axis.param);
  if (!current || current->is_object())
    return make_error(where + ".param: unknown parameter \"" + axis.param +
                      "\" (see npusim config --explain)");
  axis.integer = current->is_number_integer();
  int forms = a.contains("values") + a.contains("linear") + a.contains("log") +
              (a.contains("min") || a.contains("max"));
  if (forms != 1) return make_error(where + ": give exactly one of values, linear, log or min/max");
  if (a.contains("values")) {
    if (!a["values"].is_array() || a["values"].empty())
      return make_error(where + ".values: expected a non-empty list");
    for (const auto& v : a["values"]) axis.values.push_back(v);
  } else if (a.contains("linear") || a.contains("log")) {
    const bool log = a.contains("log");
    const std::string w = where + (log ? ".log" : ".linear");
    const json& r = log ? a["log"] : a["linear"];
    if (!r.is_object()) return make_error(w + ": expected {\"from\", \"to\", \"count\"}");
    if (auto k = only_keys(r, {"from", "to", "count"}, w); !k) return make_error(k.error());
    auto from = number(r, "from", w), to = number(r, "to", w), count = number(r, "count", w);
    if (!from) return make_error(from.error());
    if (!to) return make_error(to.error());
    if (!count) return make_error(count.error());
    if (*count < 1 || *count > 1000 || *count != std::floor(*count))
      return make_error(w + ".count: expected an integer in [1, 1000], got " + r["count"].dump());
    if (log && (*from <= 0 || *to <= 0)) return make_error(w + ": a log range needs from and to > 0");
    const int n = static_cast<int>(*count);
    for (int i = 0; i < n; ++i) {
      const double t = n == 1 ? 0.0 : static_cast<double>(i) / (n - 1);
      const double x =
          log ? std::exp(std::log(*from) + t * (std::log(*to) - std::log(*from))) : *from + t * (*to - *from);
      json v = axis_value(axis, x);
      if (std::find(axis.values.begin(), axis.values.end(), v) == axis.values.end()) axis.values.push_back(v);
    }
  } else {
    auto lo = number(a, "min", where), hi = number(a, "max", where);
    if (!lo) return make_error(lo.error());
    if (!hi) return make_error(hi.error());
    if (*hi < *lo) return make_error(where + ": max is below min");
    axis.continuous = true;
    axis.min = *lo;
    axis.max = *hi;
    if (a.contains("scale")) {
      if (a["scale"] != "linear" && a["scale"] != "log")
        return make_error(where + ".scale: expected \"linear\" or \"log\", got " + a["scale"].dump());
      axis.log = a["scale"] == "log";
      if (axis.log && axis.min <= 0) return make_error(where + ": a log scale needs min > 0");
    }
    // Both ends must be legal values of the parameter.
    axis.values = {axis_value(axis, axis.min), axis_value(axis, axis.max)};
  }
  if (a.contains("scale") && !axis.continuous) return make_error(where + ".scale: only with min/max");
  for (size_t i = 0; i < axis.values.size(); ++i) {
    std::vector<std::string> sets = base_set;
    sets.push_back(axis.param + "=" + value_text(axis.values[i]));
    if (auto c = effective_config(base, sets); !c)
      return make_error(where + (a.contains("values") ? ".values[" + std::to_string(i) + "]" : "") + ": " +
                        c.error());
  }
  if (axis.continuous) axis.values.clear();
  return axis;
}

Result<Workload> parse_workload(const json& w, const std::string& where, const std::string& dir) {
  Workload wl;
  if (!w.is_object()) return make_error(where + ": expected an object");
  if (auto r = only_keys(
          w, {"name", "model", "scenario", "mode", "iterations", "seed", "scale", "policy", "isolated"},
          where);
      !r)
    return make_error(r.error());
  if (!w.contains("name") || !w["name"].is_string() || w["name"].get<std::string>().empty())
    return make_error(where + ".name: expected a non-empty string");
  wl.name = w["name"].get<std::string>();
  for (char c : wl.name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      return make_error(where + ".name: use letters, digits, '_', '-' and '.' only, got \"" + wl.name + "\"");
  if (w.contains("model") == w.contains("scenario"))
    return make_error(where + ": give exactly one of model or scenario");
  if (w.contains("model")) {
    if (!w["model"].is_string()) return make_error(where + ".model: expected a path or zoo:NAME");
    wl.model = resolve(dir, w["model"].get<std::string>());
    for (const char* k : {"scale", "policy", "isolated"})
      if (w.contains(k)) return make_error(where + "." + k + ": only for scenario workloads");
    if (w.contains("mode")) {
      if (w["mode"] != "functional" && w["mode"] != "timing")
        return make_error(where + ".mode: expected \"functional\" or \"timing\", got " + w["mode"].dump());
      wl.timing_only = w["mode"] == "timing";
    }
    if (w.contains("iterations")) {
      if (!w["iterations"].is_number_integer() || w["iterations"].get<int64_t>() < 1 ||
          w["iterations"].get<int64_t>() > 10000)
        return make_error(where + ".iterations: expected an integer in [1, 10000], got " +
                          w["iterations"].dump());
      wl.iterations = w["iterations"].get<uint32_t>();
    }
    if (w.contains("seed")) {
      if (!w["seed"].is_number_integer() || w["seed"].get<int64_t>() < 0)
        return make_error(where + ".seed: expected a non-negative integer");
      wl.seed = w["seed"].get<uint64_t>();
    }
  } else {
    if (!w["scenario"].is_string()) return make_error(where + ".scenario: expected a path");
    const std::string rel = w["scenario"].get<std::string>();
    wl.scenario = shipped::fallback("scenarios", rel, resolve(dir, rel));
    for (const char* k : {"mode", "iterations", "seed"})
      if (w.contains(k)) return make_error(where + "." + k + ": only for model workloads");
    if (w.contains("scale")) {
      if (!w["scale"].is_number() || w["scale"].get<double>() < 1e-3 || w["scale"].get<double>() > 100)
        return make_error(where + ".scale: expected a number in [0.001, 100], got " + w["scale"].dump());
      wl.scale = w["scale"].get<double>();
    }
    if (w.contains("policy")) {
      if (!w["policy"].is_string()) return make_error(where + ".policy: expected a baseline name");
      wl.policy = w["policy"].get<std::string>();
    }
    if (w.contains("isolated")) {
      if (!w["isolated"].is_boolean()) return make_error(where + ".isolated: expected true or false");
      wl.isolated = w["isolated"].get<bool>();
    }
  }
  return wl;
}

// Uniform double in [0, 1) from 53 bits of a 64-bit Mersenne twister: the same on every platform.
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

json sample_value(const Axis& axis, double u) {
  if (!axis.continuous) {
    const size_t i =
        std::min(axis.values.size() - 1, static_cast<size_t>(u * static_cast<double>(axis.values.size())));
    return axis.values[i];
  }
  const double x = axis.log ? std::exp(std::log(axis.min) + u * (std::log(axis.max) - std::log(axis.min)))
                            : axis.min + u * (axis.max - axis.min);
  return axis_value(axis, x);
}

}  // namespace

const std::vector<Metric>& metric_catalogue() {
  static const std::vector<Metric> kMetrics = {
      {"latency_p50_us", "us",
       "Median latency: a model's inferences, or a scenario's completed requests (arrival to end)"},
      {"latency_p99_us", "us", "99th-percentile latency (as latency_p50_us)"},
      {"latency_mean_us", "us", "Mean latency (as latency_p50_us)"},
      {"npu_cycles", "cycles", "Busy channel cycles: per inference (models), of the whole run (scenarios)"},
      {"utilisation", "",
       "Busy channel cycles over channels x elapsed cycles (on device for models, the run for scenarios)"},
      {"energy_mj", "mJ",
       "NPU energy, dynamic + leakage: per inference (models), of the whole run (scenarios)"},
      {"peak_junction_c", "C", "Highest NPU junction temperature"},
      {"throttled_s", "s", "Time the clock spent below the fastest DVFS operating point"},
      {"area_mm2", "mm2", "Silicon area of the design (docs/area.md)"},
      {"cpu_ops", "",
       "Models: operations the NPU cannot run on this design, run on the CPU (not in energy_mj)"},
      {"deadline_misses", "", "Scenarios: requests dropped or finished after their deadline, all apps"},
      {"miss_rate", "", "Scenarios: deadline misses over requests with a deadline"},
      {"antt", "", "Scenarios with isolated runs: average normalised turnaround time (lower is better)"},
      {"stp", "", "Scenarios with isolated runs: system throughput (higher is better)"},
      {"fairness", "", "Scenarios with isolated runs: min over max normalised progress"},
  };
  return kMetrics;
}

std::string digest(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (char c : text) {
    h ^= static_cast<uint8_t>(c);
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::vector<std::string> Point::sets() const {
  std::vector<std::string> out;
  for (const auto& [param, value] : values) out.push_back(param + "=" + value_text(value));
  return out;
}

Result<json> effective_config(const std::string& base, const std::vector<std::string>& sets) {
  // The same checks as load_system_config (which also gives the cross-parameter rules), then the values.
  auto cfg = system::load_system_config(base, sets);
  if (!cfg) return make_error(cfg.error());
  return system::resolved_config(base, sets);
}

Result<SweepSpec> load_sweep(const std::string& name_or_path) {
  auto resolved = shipped::resolve("sweeps", name_or_path);  // "small": the shipped sweep
  if (!resolved) return make_error(resolved.error());
  const std::string& path = *resolved;
  auto text = models::read_text_file(path);
  if (!text) return make_error(text.error());
  auto doc = models::parse_json_text(*text, path);
  if (!doc) return make_error(doc.error());
  const auto slash = path.rfind('/');
  return parse_sweep(*doc, path, slash == std::string::npos ? "" : path.substr(0, slash));
}

Result<SweepSpec> parse_sweep(const json& doc, const std::string& source, const std::string& dir) {
  SweepSpec s;
  s.path = source;
  s.dir = dir;
  const std::string root = source + ": $";
  if (!doc.is_object()) return make_error(root + ": expected an object");
  if (auto r = only_keys(
          doc,
          {"name", "description", "base", "set", "axes", "sample", "constraints", "workloads", "metrics"},
          root);
      !r)
    return make_error(r.error());
  if (!doc.contains("name") || !doc["name"].is_string()) return make_error(root + ".name: expected a string");
  s.name = doc["name"].get<std::string>();
  if (doc.contains("description")) {
    if (!doc["description"].is_string()) return make_error(root + ".description: expected a string");
    s.description = doc["description"].get<std::string>();
  }
  if (!doc.contains("base") || !doc["base"].is_string())
    return make_error(root + ".base: expected the path of a hardware config (relative to the sweep file)");
  // A copied sweep's "../npu/default.json" that is not beside the copy is the shipped one.
  s.base =
      shipped::fallback("npu", doc["base"].get<std::string>(), resolve(dir, doc["base"].get<std::string>()));
  if (doc.contains("set")) {
    if (!doc["set"].is_array()) return make_error(root + ".set: expected a list of \"path=value\"");
    for (size_t i = 0; i < doc["set"].size(); ++i) {
      if (!doc["set"][i].is_string())
        return make_error(root + ".set[" + std::to_string(i) + "]: expected \"path=value\"");
      s.base_set.push_back(doc["set"][i].get<std::string>());
    }
  }
  auto base_values = effective_config(s.base, s.base_set);
  if (!base_values)
    return make_error(root + (s.base_set.empty() ? ".base: " : ".set: ") + base_values.error());

  if (!doc.contains("axes") || !doc["axes"].is_array() || doc["axes"].empty())
    return make_error(root + ".axes: expected a non-empty list of axes");
  std::set<std::string> seen;
  for (size_t i = 0; i < doc["axes"].size(); ++i) {
    auto axis = parse_axis(doc["axes"][i], root + ".axes[" + std::to_string(i) + "]", *base_values, s.base,
                           s.base_set);
    if (!axis) return make_error(axis.error());
    if (!seen.insert(axis->param).second)
      return make_error(root + ".axes[" + std::to_string(i) + "].param: \"" + axis->param +
                        "\" is already an axis");
    s.axes.push_back(std::move(*axis));
  }
  if (doc.contains("sample")) {
    const std::string w = root + ".sample";
    const json& sm = doc["sample"];
    if (!sm.is_object()) return make_error(w + ": expected {\"method\", \"count\", \"seed\"}");
    if (auto r = only_keys(sm, {"method", "count", "seed"}, w); !r) return make_error(r.error());
    if (sm.value("method", "") != "random" && sm.value("method", "") != "latin_hypercube")
      return make_error(w + ".method: expected \"random\" or \"latin_hypercube\"");
    s.method = sm["method"].get<std::string>();
    if (!sm.contains("count") || !sm["count"].is_number_integer() || sm["count"].get<int64_t>() < 1 ||
        sm["count"].get<int64_t>() > 100000)
      return make_error(w + ".count: expected an integer in [1, 100000]");
    s.samples = sm["count"].get<uint32_t>();
    if (sm.contains("seed")) {
      if (!sm["seed"].is_number_integer() || sm["seed"].get<int64_t>() < 0)
        return make_error(w + ".seed: expected a non-negative integer");
      s.seed = sm["seed"].get<uint64_t>();
    }
  } else {
    for (size_t i = 0; i < s.axes.size(); ++i)
      if (s.axes[i].continuous)
        return make_error(root + ".axes[" + std::to_string(i) +
                          "]: a min/max axis needs \"sample\" (a grid needs values or a range)");
  }
  if (doc.contains("constraints")) {
    if (!doc["constraints"].is_array())
      return make_error(root + ".constraints: expected a list of expressions");
    for (size_t i = 0; i < doc["constraints"].size(); ++i) {
      const std::string w = root + ".constraints[" + std::to_string(i) + "]";
      const json& c = doc["constraints"][i];
      if (!c.is_string()) return make_error(w + ": expected an expression string");
      auto e = Expr::parse(c.get<std::string>());
      if (!e) return make_error(w + ": " + e.error());
      for (const auto& p : e->parameters()) {
        const auto v = lookup(*base_values, p);
        if (!v || !v->is_number())
          return make_error(w + ": \"" + p + "\" is not a numeric parameter (see npusim config --explain)");
      }
      s.constraints.push_back({c.get<std::string>(), std::move(*e)});
    }
  }
  if (!doc.contains("workloads") || !doc["workloads"].is_array() || doc["workloads"].empty())
    return make_error(root + ".workloads: expected a non-empty list");
  std::set<std::string> names;
  for (size_t i = 0; i < doc["workloads"].size(); ++i) {
    auto w = parse_workload(doc["workloads"][i], root + ".workloads[" + std::to_string(i) + "]", dir);
    if (!w) return make_error(w.error());
    if (!names.insert(w->name).second)
      return make_error(root + ".workloads[" + std::to_string(i) + "].name: \"" + w->name +
                        "\" is used twice");
    s.workloads.push_back(std::move(*w));
  }
  if (doc.contains("metrics")) {
    if (!doc["metrics"].is_array() || doc["metrics"].empty())
      return make_error(root + ".metrics: expected a non-empty list");
    for (size_t i = 0; i < doc["metrics"].size(); ++i) {
      const json& m = doc["metrics"][i];
      bool known = false;
      for (const auto& k : metric_catalogue())
        known = known || (m.is_string() && m.get<std::string>() == k.name);
      if (!known) {
        std::string list;
        for (const auto& k : metric_catalogue()) list += (list.empty() ? "" : ", ") + k.name;
        return make_error(root + ".metrics[" + std::to_string(i) + "]: unknown metric " + m.dump() + " (" +
                          list + ")");
      }
      if (std::find(s.metrics.begin(), s.metrics.end(), m.get<std::string>()) != s.metrics.end())
        return make_error(root + ".metrics[" + std::to_string(i) + "]: listed twice");
      s.metrics.push_back(m.get<std::string>());
    }
  } else {
    s.metrics = {"latency_p50_us", "latency_p99_us",  "npu_cycles",  "utilisation",
                 "energy_mj",      "peak_junction_c", "throttled_s", "area_mm2"};
  }
  json canonical = doc;
  canonical.erase("description");
  s.digest = digest(canonical.dump());
  return s;
}

Result<Expansion> expand(const SweepSpec& s) {
  std::vector<std::vector<json>> candidates;
  if (s.method == "grid") {
    candidates.push_back({});
    for (const auto& axis : s.axes) {
      std::vector<std::vector<json>> next;
      for (const auto& c : candidates)
        for (const auto& v : axis.values) {
          auto n = c;
          n.push_back(v);
          next.push_back(std::move(n));
        }
      candidates = std::move(next);
      if (candidates.size() > 1000000)
        return make_error(s.path + ": $.axes: the grid has over a million points");
    }
  } else {
    std::mt19937_64 rng(s.seed);
    const size_t n = s.samples;
    std::vector<std::vector<double>> u(s.axes.size(), std::vector<double>(n));
    for (size_t a = 0; a < s.axes.size(); ++a) {
      if (s.method == "random") {
        for (size_t i = 0; i < n; ++i) u[a][i] = unit(rng);
      } else {
        // Latin hypercube: one sample in each of n equal strata of every axis, strata shuffled per axis.
        std::vector<size_t> perm(n);
        for (size_t i = 0; i < n; ++i) perm[i] = i;
        for (size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[static_cast<size_t>(rng() % i)]);
        for (size_t i = 0; i < n; ++i)
          u[a][i] = (static_cast<double>(perm[i]) + unit(rng)) / static_cast<double>(n);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      std::vector<json> c;
      for (size_t a = 0; a < s.axes.size(); ++a) c.push_back(sample_value(s.axes[a], u[a][i]));
      candidates.push_back(std::move(c));
    }
  }
  Expansion e;
  e.candidates = static_cast<uint32_t>(candidates.size());
  std::set<std::string> digests;
  for (const auto& c : candidates) {
    Point p;
    for (size_t a = 0; a < s.axes.size(); ++a) p.values.emplace_back(s.axes[a].param, c[a]);
    std::vector<std::string> sets = s.base_set;
    for (const auto& set : p.sets()) sets.push_back(set);
    std::string label;
    for (const auto& set : p.sets()) label += (label.empty() ? "" : " ") + set;
    auto values = effective_config(s.base, sets);
    if (!values) {
      e.rejected.push_back(label + ": " + values.error());
      continue;
    }
    bool ok = true;
    for (const auto& con : s.constraints) {
      auto r = con.expr.evaluate([&](const std::string& path) -> std::optional<double> {
        auto v = lookup(*values, path);
        if (!v || !v->is_number()) return std::nullopt;
        return v->get<double>();
      });
      if (!r) return make_error(s.path + ": constraint \"" + con.text + "\" at " + label + ": " + r.error());
      if (*r == 0) {
        e.rejected.push_back(label + ": fails \"" + con.text + "\"");
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    p.config_digest = digest(values->dump());
    // Samples may repeat a design (categorical axes, integer rounding): it is measured once.
    if (!digests.insert(p.config_digest).second) continue;
    auto cfg = system::load_system_config(s.base, sets);
    if (cfg) p.area_mm2 = design_area(*cfg).total_mm2();
    p.index = static_cast<uint32_t>(e.points.size());
    e.points.push_back(std::move(p));
  }
  return e;
}

}  // namespace npu::sweep
