#include "npu/scenario/scenario.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "npu/common/shipped.h"
#include "npu/models/model_json.h"
#include "npu/scenario/baselines.h"
#include "npu/scenario/models.h"

namespace npu::scenario {
namespace {

using nlohmann::json;

// Reads one JSON object at `path`: every key must be consumed by a getter or it is reported as unknown
// (finish()). The first error wins; later getters are no-ops, so parsing code reads straight through.
class ObjectReader {
 public:
  ObjectReader(const json& node, std::string path, std::string* error)
      : node_(node), path_(std::move(path)), error_(error) {
    if (!node_.is_object()) fail(path_, "expected an object");
  }

  bool has(const std::string& key) const { return node_.is_object() && node_.contains(key); }
  std::string path_of(const std::string& key) const { return path_ + "." + key; }
  const json* raw(const std::string& key, bool required) {
    seen_.insert(key);
    if (!ok() || !node_.is_object()) return nullptr;
    auto it = node_.find(key);
    if (it == node_.end()) {
      if (required) fail(path_of(key), "required");
      return nullptr;
    }
    return &*it;
  }
  void number(const std::string& key, double* out, double lo, double hi, bool required = false) {
    const json* v = raw(key, required);
    if (!v) return;
    if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < lo ||
        v->get<double>() > hi) {
      fail(path_of(key), "expected a number in [" + fmt(lo) + ", " + fmt(hi) + "]");
      return;
    }
    *out = v->get<double>();
  }
  template <class Int>
  void integer(const std::string& key, Int* out, int64_t lo, int64_t hi, bool required = false) {
    const json* v = raw(key, required);
    if (!v) return;
    if (!v->is_number_integer() || v->get<int64_t>() < lo || v->get<int64_t>() > hi) {
      fail(path_of(key), "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      return;
    }
    *out = static_cast<Int>(v->get<int64_t>());
  }
  void string(const std::string& key, std::string* out, bool required = false) {
    const json* v = raw(key, required);
    if (!v) return;
    if (!v->is_string()) return fail(path_of(key), "expected a string");
    *out = v->get<std::string>();
  }
  // A string that must be one of the names in Enum's table.
  template <class Enum>
  void choice(const std::string& key, Enum* out, bool required = false) {
    std::string s;
    if (!has(key) && !required) {
      seen_.insert(key);
      return;
    }
    string(key, &s, required);
    if (!ok()) return;
    const auto v = enums::parse<Enum>(s);
    if (!v) return fail(path_of(key), "\"" + s + "\" is not one of " + enums::joined_names<Enum>());
    *out = *v;
  }
  void finish() {
    if (!ok() || !node_.is_object()) return;
    for (auto it = node_.begin(); it != node_.end(); ++it)
      if (!seen_.count(it.key())) return fail(path_of(it.key()), "unknown key");
  }
  void fail(const std::string& path, const std::string& what) {
    if (error_->empty()) *error_ = path + ": " + what;
  }
  bool ok() const { return error_->empty(); }

  static std::string join(const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
  }

 private:
  static std::string fmt(double v) {
    if (v >= 1e15) return "inf";
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
    return s;
  }
  const json& node_;
  std::string path_;
  std::string* error_;
  std::set<std::string> seen_;
};

constexpr double kInf = 1e300;

void parse_workload(const json& node, const std::string& path, WorkloadSpec* w, std::string* error) {
  ObjectReader r(node, path, error);
  r.choice("type", &w->kind, true);
  r.number("start_s", &w->start_s, 0, kInf);
  r.number("stop_s", &w->stop_s, 0, kInf);
  r.number("deadline_ms", &w->deadline_ms, 0, kInf);
  if (!r.ok()) return;
  switch (w->kind) {
    case WorkloadKind::PERIODIC:
      r.number("period_ms", &w->period_ms, 0.01, kInf, true);
      break;
    case WorkloadKind::POISSON:
      r.number("rate_hz", &w->rate_hz, 1e-6, 1e6, true);
      break;
    case WorkloadKind::BURSTY:
      r.number("mean_gap_ms", &w->mean_gap_ms, 0.01, kInf, true);
      r.integer("burst_min", &w->burst_min, 1, 1000);
      r.integer("burst_max", &w->burst_max, 1, 1000);
      r.number("burst_spacing_ms", &w->burst_spacing_ms, 0, kInf);
      if (r.ok() && w->burst_max < w->burst_min) r.fail(r.path_of("burst_max"), "must be ≥ burst_min");
      break;
    case WorkloadKind::LLM:
      r.integer("prefill_tokens", &w->prefill_tokens, 1, 8192, true);
      r.integer("prefill_chunk_tokens", &w->prefill_chunk_tokens, 1, 8192);
      r.integer("decode_tokens", &w->decode_tokens, 0, 100000, true);
      r.number("think_ms", &w->think_ms, 0, kInf);
      break;
    case WorkloadKind::BATCH:
      r.integer("jobs", &w->jobs, 0, 10'000'000);
      r.number("gap_ms", &w->gap_ms, 0, kInf);
      break;
  }
  r.finish();
  if (r.ok() && w->stop_s >= 0 && w->stop_s < w->start_s) r.fail(path + ".stop_s", "must be ≥ start_s");
}

void parse_model(const json& node, const std::string& path, ModelSpec* m, std::string* error) {
  if (node.is_string()) {
    m->name = node.get<std::string>();
    if (auto d = decoder_preset(m->name))
      m->decoder = *d;
    else if (!is_builtin_model(m->name))
      *error = path + ": unknown model \"" + m->name + "\" (" + ObjectReader::join(model_names()) + ")";
    return;
  }
  ObjectReader r(node, path, error);
  const json* d = r.raw("decoder", true);
  r.finish();
  if (!r.ok()) return;
  ObjectReader dr(*d, path + ".decoder", error);
  m->name = "decoder";
  dr.integer("layers", &m->decoder.layers, 1, 256, true);
  dr.integer("hidden", &m->decoder.hidden, 16, 65536, true);
  dr.integer("ffn", &m->decoder.ffn, 16, 262144, true);
  dr.integer("kv_heads_ratio", &m->decoder.kv_heads_ratio, 1, 64);
  dr.integer("vocab", &m->decoder.vocab, 0, 1'000'000);
  dr.integer("head_dim", &m->decoder.head_dim, 16, 1024);
  dr.finish();
  if (dr.ok() && m->decoder.hidden % 16) dr.fail(path + ".decoder.hidden", "must be a multiple of 16");
  if (dr.ok() && m->decoder.kv_width() % m->decoder.head_dim)
    dr.fail(path + ".decoder.head_dim",
            "must divide the KV width hidden / kv_heads_ratio = " + std::to_string(m->decoder.kv_width()));
}

void parse_app(const json& node, const std::string& path, AppSpec* a, std::string* error) {
  ObjectReader r(node, path, error);
  r.string("name", &a->name, true);
  r.integer("uid", &a->uid, 10000, 99999, true);
  if (const json* imp = r.raw("importance", false)) {
    // Short form: one importance name for the whole run.
    const json list = imp->is_string() ? json::array({{{"at_s", 0}, {"importance", *imp}}}) : *imp;
    if (!list.is_array() || list.empty()) {
      r.fail(r.path_of("importance"),
             "expected an importance name or a non-empty array of {at_s, importance}");
    } else {
      for (size_t i = 0; i < list.size() && r.ok(); ++i) {
        const std::string ip =
            r.path_of("importance") + (imp->is_string() ? "" : "[" + std::to_string(i) + "]");
        ObjectReader ir(list[i], ip, error);
        ImportanceChange c;
        ir.number("at_s", &c.at_s, 0, kInf, true);
        ir.choice("importance", &c.importance, true);
        ir.finish();
        if (ir.ok() && !a->importance.empty() && c.at_s <= a->importance.back().at_s)
          ir.fail(ip + ".at_s", "must be later than the previous change");
        if (ir.ok() && a->importance.empty() && c.at_s != 0)
          ir.fail(ip + ".at_s", "the first change must be at 0");
        a->importance.push_back(c);
      }
    }
  } else {
    a->importance.push_back({0, mgr::Importance::FOREGROUND});
  }
  if (const json* m = r.raw("model", true)) parse_model(*m, r.path_of("model"), &a->model, error);
  // Default size class from the model's resident weights.
  if (r.ok()) {
    const uint64_t bytes = model_weight_bytes(a->model);
    a->size_class = bytes > (2ull << 30)   ? mgr::SizeClass::GREATER_THAN_2G
                    : bytes > (1ull << 30) ? mgr::SizeClass::BETWEEN_1GB_AND_2GB
                                           : mgr::SizeClass::LESS_THAN_1GB;
  }
  r.choice("size_class", &a->size_class);
  r.choice("load_priority", &a->load_priority);
  r.integer("job_priority", &a->job_priority, 0, 1000);
  r.number("rerequest_delay_ms", &a->rerequest_delay_ms, 0, kInf);
  if (const json* w = r.raw("workload", true)) parse_workload(*w, r.path_of("workload"), &a->workload, error);
  r.finish();
}

}  // namespace

double expected_arrivals(const WorkloadSpec& w, double duration_s) {
  const double end = w.stop_s >= 0 ? std::min(w.stop_s, duration_s) : duration_s;
  const double span = std::max(0.0, end - w.start_s);
  switch (w.kind) {
    case WorkloadKind::PERIODIC:
      return span * 1000.0 / w.period_ms;
    case WorkloadKind::POISSON:
      return span * w.rate_hz;
    case WorkloadKind::BURSTY:
      // Each burst: the gap, then burst_max requests at most, spaced.
      return span * 1000.0 / (w.mean_gap_ms + w.burst_max * w.burst_spacing_ms) * w.burst_max;
    case WorkloadKind::LLM:
    case WorkloadKind::BATCH:
      // Closed loops: the next request waits for the previous one, so the NPU's speed bounds them.
      return w.kind == WorkloadKind::BATCH && w.jobs ? w.jobs : 0;
  }
  return 0;
}

uint64_t DecoderShape::weight_bytes() const {
  const uint64_t h = hidden, kv = hidden / kv_heads_ratio;
  const uint64_t per_layer = h * (h + 2 * kv) + h * h + 3 * h * ffn;  // qkv, out, gate+up+down
  return layers * per_layer + uint64_t{vocab} * h;                    // + the output head
}

Result<Scenario> parse_scenario(const json& doc, const std::string& source, const std::string& dir) {
  std::string error;
  Scenario s;
  s.path = source;
  ObjectReader r(doc, "$", &error);
  r.string("name", &s.name, true);
  r.string("description", &s.description);
  r.integer("seed", &s.seed, 0, INT64_MAX);
  r.number("duration_s", &s.duration_s, 0.001, 3600, true);
  r.number("ambient_c", &s.ambient_c, -40, 80);
  r.number("sample_ms", &s.sample_ms, 0.1, 10000);
  r.string("policy", &s.policy);
  if (r.ok() && !find_baseline(s.policy))
    r.fail("$.policy", "\"" + s.policy + "\" is not one of " + ObjectReader::join(baseline_names()));
  if (const json* hw = r.raw("hardware", false)) {
    ObjectReader hr(*hw, "$.hardware", &error);
    hr.string("config", &s.hardware);
    if (const json* set = hr.raw("set", false)) {
      if (!set->is_object())
        hr.fail("$.hardware.set", "expected an object of \"path\": value");
      else
        for (auto it = set->begin(); it != set->end(); ++it)
          s.hardware_set.push_back(it.key() + "=" + (it->is_string() ? it->get<std::string>() : it->dump()));
    }
    hr.finish();
  }
  if (s.hardware.empty()) s.hardware = "../npu/default.json";
  // A copied scenario's "../npu/default.json" that is not beside the copy is the shipped one.
  if (!s.hardware.empty() && s.hardware.front() != '/')
    s.hardware = shipped::fallback("npu", s.hardware, dir + "/" + s.hardware);
  if (const json* apps = r.raw("apps", true)) {
    if (!apps->is_array() || apps->empty()) r.fail("$.apps", "expected a non-empty array of apps");
    if (r.ok() && apps->size() > kMaxApps)
      r.fail("$.apps",
             std::to_string(apps->size()) + " apps, above the limit of " + std::to_string(kMaxApps));
    for (size_t i = 0; r.ok() && apps->is_array() && i < apps->size(); ++i) {
      AppSpec a;
      const std::string ap = "$.apps[" + std::to_string(i) + "]";
      parse_app((*apps)[i], ap, &a, &error);
      if (!r.ok()) break;
      for (const auto& o : s.apps) {
        if (o.uid == a.uid) r.fail(ap + ".uid", "uid " + std::to_string(a.uid) + " used twice");
        if (o.name == a.name) r.fail(ap + ".name", "name \"" + a.name + "\" used twice");
      }
      s.apps.push_back(std::move(a));
    }
  }
  if (const json* events = r.raw("events", false)) {
    if (!events->is_array()) r.fail("$.events", "expected an array");
    if (r.ok() && events->size() > kMaxEvents)
      r.fail("$.events",
             std::to_string(events->size()) + " events, above the limit of " + std::to_string(kMaxEvents));
    for (size_t i = 0; r.ok() && events->is_array() && i < events->size(); ++i) {
      const std::string ep = "$.events[" + std::to_string(i) + "]";
      ObjectReader er((*events)[i], ep, &error);
      EventSpec e;
      std::string type;
      er.string("type", &type, true);
      if (er.ok() && type != "thermal_runaway")
        er.fail(ep + ".type", "\"" + type + "\" is not one of thermal_runaway");
      er.number("at_s", &e.at_s, 0, kInf, true);
      er.number("duration_s", &e.duration_s, 0, kInf);
      er.number("watts", &e.watts, 0.001, 1000, true);
      er.finish();
      s.events.push_back(e);
    }
  }
  // Points in time past the end would silently never happen: a typo (seconds for milliseconds) or a
  // duration shortened without its events.
  auto past_end = [&](double at_s, const std::string& path) {
    if (r.ok() && at_s >= s.duration_s) {
      std::ostringstream m;
      m << at_s << " s is at or past the end of the run (duration_s " << s.duration_s << ")";
      r.fail(path, m.str());
    }
  };
  for (size_t i = 0; i < s.events.size(); ++i)
    past_end(s.events[i].at_s, "$.events[" + std::to_string(i) + "].at_s");
  for (size_t i = 0; i < s.apps.size(); ++i) {
    const std::string ap = "$.apps[" + std::to_string(i) + "]";
    for (size_t j = 1; j < s.apps[i].importance.size(); ++j)
      past_end(s.apps[i].importance[j].at_s, ap + ".importance[" + std::to_string(j) + "].at_s");
    past_end(s.apps[i].workload.start_s, ap + ".workload.start_s");
  }
  // Requests the workloads will generate: beyond the limit a run takes hours and gigabytes whatever
  // the policy, so the file is refused rather than started.
  double arrivals = 0;
  for (size_t i = 0; r.ok() && i < s.apps.size(); ++i) {
    const double a = expected_arrivals(s.apps[i].workload, s.duration_s);
    arrivals += a;
    if (arrivals > kMaxArrivals) {
      std::ostringstream m;
      m << "the workloads ask for about " << static_cast<uint64_t>(arrivals) << " requests up to this app ("
        << static_cast<uint64_t>(a) << " from it) in " << s.duration_s << " s, above the limit of "
        << static_cast<uint64_t>(kMaxArrivals) << " per scenario (rate x duration)";
      r.fail("$.apps[" + std::to_string(i) + "].workload", m.str());
    }
  }
  r.finish();
  if (!error.empty()) return make_error(source + ": " + error);
  return s;
}

Result<Scenario> load_scenario(const std::string& name_or_path) {
  auto resolved = shipped::resolve("scenarios", name_or_path);  // "camera_llm": the shipped scenario
  if (!resolved) return make_error(resolved.error());
  const std::string& path = *resolved;
  auto text = models::read_text_file(path);
  if (!text) return make_error(text.error());
  auto doc = models::parse_json_text(*text, path);
  if (!doc) return make_error(doc.error());
  const auto slash = path.find_last_of('/');
  return parse_scenario(*doc, path, slash == std::string::npos ? "." : path.substr(0, slash));
}

}  // namespace npu::scenario
