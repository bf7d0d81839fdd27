// The cases of `npusim stress`, each run in a process of its own (run_stress_case).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <random>

#include "npu/mlts/soak.h"
#include "npu/mlts/stress.h"
#include "npu/system/system.h"
#include "stress_models.h"

namespace npu::mlts {
namespace {

using Clock = std::chrono::steady_clock;
using Body = std::function<void(system::System&, CaseReport&)>;

uint32_t scaled(double base, double scale) {
  return static_cast<uint32_t>(std::max(1.0, std::round(base * scale)));
}

std::string n(uint64_t x) { return std::to_string(x); }

void check(CaseReport& r, const std::string& name, bool passed, const std::string& detail = {}) {
  r.checks.push_back({name, passed, detail});
}

// The leak checks every case ends with, once its clients closed their contexts.
void check_nothing_left(system::System& s, CaseReport& r, uint64_t baseline_bytes) {
  auto& d = s.driver();
  const uint64_t bytes = d.allocated_bytes();
  check(r, "no contexts, buffer objects or fences left",
        d.live_contexts() == 0 && d.live_bos() == 0 && d.unsignalled_fences() == 0,
        n(d.live_contexts()) + " contexts, " + n(d.live_bos()) + " BOs, " + n(d.unsignalled_fences()) +
            " fences");
  check(r, "device memory back to where it started", bytes == baseline_bytes,
        n(bytes) + " bytes allocated, " + n(baseline_bytes) + " before");
  r.figures["live_contexts"] = d.live_contexts();
  r.figures["live_bos"] = d.live_bos();
  r.figures["unsignalled_fences"] = d.unsignalled_fences();
  r.figures["leaked_bytes"] = bytes > baseline_bytes ? bytes - baseline_bytes : 0;
}

// Tallies executions against the CPU reference.
struct Tally {
  uint64_t runs = 0, ok = 0, wrong = 0, failed = 0, wrong_status = 0;
  std::string first_problem;
  // Out of memory is RESOURCE_EXHAUSTED in NNAPI; a lost device or context is GENERAL_FAILURE.
  bool resource_exhausted_allowed = false;
  std::string first_wrong_status;
  void add(const hal::ExecutionResult& e, const hal::TensorMap& want, bool failure_allowed = false) {
    ++runs;
    if (!e.status.ok()) {
      ++failed;
      const bool exhausted = e.status.code == hal::ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT ||
                             e.status.code == hal::ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT;
      if (e.status.code != hal::ErrorStatus::GENERAL_FAILURE && !(exhausted && resource_exhausted_allowed) &&
          !wrong_status++)
        first_wrong_status = std::string(hal::to_string(e.status.code)) + ": " + e.status.message;
      if (first_problem.empty() && !failure_allowed) first_problem = e.status.message;
      return;
    }
    ++ok;
    const std::string diff = stress::output_difference(e.outputs, want);
    if (!diff.empty()) {
      ++wrong;
      if (first_problem.empty()) first_problem = diff;
    }
  }
  void report(CaseReport& r, bool failures_allowed) const {
    r.figures["executions"] = runs;
    r.figures["executions_ok"] = ok;
    r.figures["executions_failed"] = failed;
    r.figures["output_mismatches"] = wrong;
    if (!failures_allowed)
      check(r, "every execution succeeded", failed == 0 && runs > 0,
            n(failed) + " of " + n(runs) + " failed" + (first_problem.empty() ? "" : ": " + first_problem));
    else
      check(r, "every failure is GENERAL_FAILURE", wrong_status == 0,
            n(wrong_status) + " other statuses" + (wrong_status ? ", first " + first_wrong_status : ""));
    check(r, "outputs equal the CPU reference", wrong == 0,
          n(wrong) + " of " + n(ok) + " differ" +
              (wrong && !first_problem.empty() ? ": " + first_problem : ""));
  }
};

// Launches executions of `m` asynchronously and waits for each to report, counting its callbacks.
struct AsyncBatch {
  struct Slot {
    uint32_t callbacks = 0;
    hal::ExecutionResult result;
    size_t answer = 0;
    const stress::Answers* answers = nullptr;
  };
  std::vector<std::shared_ptr<Slot>> slots;
  std::unique_ptr<drv::WaitQueue> wake;
  explicit AsyncBatch(system::System& s) : wake(s.os().make_wait_queue()) {}
  void launch(hal::PreparedModel& m, const stress::Answers& a, size_t k) {
    auto slot = std::make_shared<Slot>();
    slot->answer = k;
    slot->answers = &a;
    slots.push_back(slot);
    hal::Request rq;
    rq.inputs = a.inputs[k];
    const hal::Status st = m.execute_async(std::move(rq), {}, [slot, w = wake.get()](hal::ExecutionResult r) {
      ++slot->callbacks;
      slot->result = std::move(r);
      w->wake_all();
    });
    if (!st.ok()) {
      slot->callbacks = 1;
      slot->result.status = st;
    }
  }
  void wait_all() {
    for (const auto& s : slots)
      while (s->callbacks == 0) wake->wait();
  }
  // Adds every result to `t`; returns how many executions reported other than once.
  uint64_t settle(Tally& t, bool failures_allowed = false) {
    uint64_t not_once = 0;
    for (const auto& s : slots) {
      if (s->callbacks != 1) ++not_once;
      t.add(s->result, s->answers->outputs[s->answer], failures_allowed);
    }
    slots.clear();
    return not_once;
  }
};

// Builds the process's one System from the options and runs `body` as its app.
Result<CaseReport> in_system(const std::string& name, const StressOptions& o, const Body& body) {
  auto cfg = system::load_system_config(o.hw, o.sets);
  if (!cfg) return make_error(cfg.error());
  auto sys = system::System::create(*cfg);
  if (!sys) return make_error(sys.error());
  CaseReport r;
  r.name = name;
  auto end = (*sys)->run([&](system::System& s) { body(s, r); }, 36000.0);
  if (!end) return make_error(end.error());
  r.figures["simulated_s"] = *end;
  return r;
}

// Back-to-back synchronous executions on one prepared model, with each one's simulated and wall latency.
void inference_loop(system::System& s, CaseReport& r, uint32_t count, uint64_t seed,
                    std::vector<double>* sim_us, std::vector<double>* wall_us) {
  const uint64_t baseline = s.driver().allocated_bytes();
  const models::Model model = stress::small_model(seed);
  const stress::Answers answers = stress::reference_answers(s, model, seed, 8);
  auto& device = s.npu_device(40000, 4000);
  auto p = device.prepare_model(model);
  check(r, "the model prepares on the NPU", p.status.ok() && !answers.outputs.empty(), p.status.message);
  if (!p.status.ok() || answers.outputs.empty()) return;
  r.figures["placement"] = p.model->placement();
  Tally t;
  for (uint32_t i = 0; i < count; ++i) {
    const size_t k = i % answers.inputs.size();
    const uint64_t t0 = s.os().now_ns();
    const auto w0 = Clock::now();
    const auto e = p.model->execute_synchronously(answers.inputs[k], false);
    if (wall_us) wall_us->push_back(std::chrono::duration<double, std::micro>(Clock::now() - w0).count());
    if (sim_us) sim_us->push_back(static_cast<double>(s.os().now_ns() - t0) / 1e3);
    t.add(e, answers.outputs[k]);
  }
  t.report(r, false);
  p.model.reset();
  (void)device.close();
  check_nothing_left(s, r, baseline);
}

double mean(const std::vector<double>& v, size_t from, size_t to) {
  double sum = 0;
  for (size_t i = from; i < to; ++i) sum += v[i];
  return to > from ? sum / static_cast<double>(to - from) : 0;
}

Result<CaseReport> inference(const StressOptions& o) {
  return in_system("inference", o, [&](system::System& s, CaseReport& r) {
    std::vector<double> sim;
    inference_loop(s, r, scaled(10000, o.scale), o.seed, &sim, nullptr);
    if (!sim.empty()) r.figures["mean_latency_us"] = mean(sim, 0, sim.size());
  });
}

Result<CaseReport> degradation(const StressOptions& o) {
  return in_system("degradation", o, [&](system::System& s, CaseReport& r) {
    std::vector<double> sim, wall;
    const uint32_t count = std::max<uint32_t>(20, scaled(10000, o.scale));
    inference_loop(s, r, count, o.seed + 1, &sim, &wall);
    if (sim.size() < 20) return;
    const size_t tenth = sim.size() / 10;
    const double sim_first = mean(sim, 0, tenth), sim_last = mean(sim, sim.size() - tenth, sim.size());
    const double wall_first = mean(wall, 0, tenth), wall_last = mean(wall, wall.size() - tenth, wall.size());
    const double sim_ratio = sim_last / sim_first, wall_ratio = wall_last / wall_first;
    r.figures["simulated_first_10pct_us"] = sim_first;
    r.figures["simulated_last_10pct_us"] = sim_last;
    r.figures["simulated_ratio"] = sim_ratio;
    r.figures["wall_first_10pct_us"] = wall_first;
    r.figures["wall_last_10pct_us"] = wall_last;
    r.figures["wall_ratio"] = wall_ratio;
    char d[96];
    std::snprintf(d, sizeof d, "last 10 %% %.1f µs / first 10 %% %.1f µs = %.3f", sim_last, sim_first,
                  sim_ratio);
    // Heat may lower the clock a little; anything more is the stack slowing itself down.
    check(r, "simulated latency does not degrade by more than 25 %", sim_ratio <= 1.25, d);
    std::snprintf(d, sizeof d, "last 10 %% %.0f µs / first 10 %% %.0f µs = %.2f", wall_last, wall_first,
                  wall_ratio);
    // Wall time is noisy on a shared machine: only a growth like a leak's or a quadratic walk fails it.
    check(r, "wall time per execution does not triple", wall_ratio <= 3.0, d);
  });
}

Result<CaseReport> model_loading(const StressOptions& o) {
  return in_system("model-loading", o, [&](system::System& s, CaseReport& r) {
    const uint64_t baseline = s.driver().allocated_bytes();
    auto& device = s.npu_device(40001, 4001);
    const uint32_t count = scaled(1000, o.scale);
    Tally t;
    uint64_t prepare_failures = 0, bytes_drift = 0;
    std::optional<uint64_t> after_first;
    for (uint32_t i = 0; i < count; ++i) {
      const models::Model model = stress::small_model(o.seed + i % 4);
      const stress::Answers answers = stress::reference_answers(s, model, o.seed + i, 1);
      auto p = device.prepare_model(model);
      if (!p.status.ok() || answers.outputs.empty()) {
        ++prepare_failures;
        continue;
      }
      t.add(p.model->execute_synchronously(answers.inputs[0], false), answers.outputs[0]);
      p.model.reset();
      const uint64_t bytes = s.driver().allocated_bytes();
      if (!after_first) after_first = bytes;
      bytes_drift = std::max(bytes_drift, bytes > *after_first ? bytes - *after_first : 0);
    }
    r.figures["prepares"] = count;
    r.figures["prepare_failures"] = prepare_failures;
    check(r, "every preparation succeeded", prepare_failures == 0,
          n(prepare_failures) + " of " + n(count) + " failed");
    check(r, "releasing a model gives its device memory back", bytes_drift == 0,
          n(bytes_drift) + " bytes more after release");
    t.report(r, false);
    (void)device.close();
    check_nothing_left(s, r, baseline);
  });
}

Result<CaseReport> parallel_one_model(const StressOptions& o) {
  return in_system("parallel-one-model", o, [&](system::System& s, CaseReport& r) {
    const uint64_t baseline = s.driver().allocated_bytes();
    const models::Model model = stress::small_model(o.seed);
    const stress::Answers answers = stress::reference_answers(s, model, o.seed, 8);
    auto& device = s.npu_device(40002, 4002);
    auto p = device.prepare_model(model);
    check(r, "the model prepares on the NPU", p.status.ok() && !answers.outputs.empty(), p.status.message);
    if (!p.status.ok() || answers.outputs.empty()) return;
    constexpr uint32_t kInFlight = 16;
    const uint32_t rounds = scaled(200, o.scale);
    Tally t;
    uint64_t not_once = 0;
    AsyncBatch batch(s);
    for (uint32_t round = 0; round < rounds; ++round) {
      for (uint32_t i = 0; i < kInFlight; ++i)
        batch.launch(*p.model, answers, (round + i) % answers.inputs.size());
      batch.wait_all();
      s.os().delay_ns(1'000'000);  // a repeated callback would come in this gap
      not_once += batch.settle(t);
    }
    r.figures["in_flight"] = kInFlight;
    check(r, "every execution reported exactly once", not_once == 0, n(not_once) + " did not");
    t.report(r, false);
    p.model.reset();
    (void)device.close();
    check_nothing_left(s, r, baseline);
  });
}

Result<CaseReport> parallel_many_models(const StressOptions& o) {
  return in_system("parallel-many-models", o, [&](system::System& s, CaseReport& r) {
    const uint64_t baseline = s.driver().allocated_bytes();
    constexpr uint32_t kModels = 8, kEach = 4;
    std::vector<stress::Answers> answers;
    std::vector<hal::NpuDevice*> devices;
    std::vector<std::unique_ptr<hal::PreparedModel>> prepared;
    for (uint32_t m = 0; m < kModels; ++m) {
      const models::Model model =
          m % 2 ? stress::small_model(o.seed + m) : stress::random_chain_model(o.seed + 100 + m);
      answers.push_back(stress::reference_answers(s, model, o.seed + m, 4));
      devices.push_back(&s.npu_device(41000 + static_cast<int>(m), 4100 + static_cast<int>(m)));
      hal::PrepareOptions po;
      po.priority = static_cast<hal::Priority>(m % 3);
      auto p = devices.back()->prepare_model(model, po);
      if (!p.status.ok() || answers.back().outputs.empty()) {
        check(r, "every model prepares", false, "model " + n(m) + ": " + p.status.message);
        return;
      }
      prepared.push_back(std::move(p.model));
    }
    const uint32_t rounds = scaled(80, o.scale);
    Tally t;
    uint64_t not_once = 0;
    AsyncBatch batch(s);
    for (uint32_t round = 0; round < rounds; ++round) {
      for (uint32_t i = 0; i < kEach; ++i)
        for (uint32_t m = 0; m < kModels; ++m) batch.launch(*prepared[m], answers[m], (round + i) % 4);
      batch.wait_all();
      s.os().delay_ns(1'000'000);
      not_once += batch.settle(t);
    }
    r.figures["models"] = kModels;
    r.figures["in_flight"] = kModels * kEach;
    check(r, "every execution reported exactly once", not_once == 0, n(not_once) + " did not");
    t.report(r, false);
    prepared.clear();
    for (auto* d : devices) (void)d->close();
    check_nothing_left(s, r, baseline);
  });
}

// A client goes away (its context is closed, as when its process dies) while its executions are queued
// and running; another client's executions go on.
Result<CaseReport> client_abandon(const StressOptions& o) {
  return in_system("client-abandon", o, [&](system::System& s, CaseReport& r) {
    const uint64_t baseline = s.driver().allocated_bytes();
    const models::Model model = stress::small_model(o.seed);
    const stress::Answers answers = stress::reference_answers(s, model, o.seed, 4);
    auto& survivor = s.npu_device(42000, 4200);
    auto kept = survivor.prepare_model(model);
    check(r, "the model prepares on the NPU", kept.status.ok() && !answers.outputs.empty(),
          kept.status.message);
    if (!kept.status.ok() || answers.outputs.empty()) return;
    const uint32_t rounds = scaled(100, o.scale);
    std::mt19937_64 rng(o.seed);
    Tally survivor_tally, abandoned_tally;
    uint64_t not_once = 0;
    for (uint32_t round = 0; round < rounds; ++round) {
      auto& victim = s.npu_device(42001 + static_cast<int>(round), 4201 + static_cast<int>(round));
      auto p = victim.prepare_model(model);
      if (!p.status.ok()) {
        check(r, "the abandoned client's model prepares", false, p.status.message);
        return;
      }
      AsyncBatch mine(s), theirs(s);
      for (uint32_t i = 0; i < 8; ++i) theirs.launch(*kept.model, answers, i % 4);
      for (uint32_t i = 0; i < 16; ++i) mine.launch(*p.model, answers, i % 4);
      // Each launch costs a binder call (20 µs), so the first executions are done by now and the last are
      // starting: gone at a random point from there, some executions done, some running, some queued.
      s.os().delay_ns(rng() % 200'000);
      if (auto closed = victim.close(); !closed.ok()) {
        check(r, "closing the context succeeds", false, closed.message);
        return;
      }
      mine.wait_all();
      theirs.wait_all();
      s.os().delay_ns(1'000'000);
      not_once += mine.settle(abandoned_tally, true) + theirs.settle(survivor_tally);
      p.model.reset();  // its buffers went with the context
    }
    r.figures["abandoned_clients"] = rounds;
    r.figures["abandoned_executions"] = abandoned_tally.runs;
    r.figures["abandoned_executions_failed"] = abandoned_tally.failed;
    check(r, "every execution reported exactly once", not_once == 0, n(not_once) + " did not");
    check(r, "abandoned executions: a failure is GENERAL_FAILURE, a success is correct",
          abandoned_tally.wrong_status == 0 && abandoned_tally.wrong == 0,
          n(abandoned_tally.wrong_status) + " other statuses, " + n(abandoned_tally.wrong) +
              " wrong outputs" +
              (abandoned_tally.wrong_status ? ", first " + abandoned_tally.first_wrong_status : ""));
    check(r, "some executions were cut off by the close", abandoned_tally.failed > 0,
          n(abandoned_tally.failed) + " of " + n(abandoned_tally.runs));
    survivor_tally.report(r, false);
    kept.model.reset();
    (void)survivor.close();
    check_nothing_left(s, r, baseline);
  });
}

Result<CaseReport> many_contexts(const StressOptions& o) {
  return in_system("many-contexts", o, [&](system::System& s, CaseReport& r) {
    const uint64_t baseline = s.driver().allocated_bytes();
    const models::Model model = stress::small_model(o.seed);
    const stress::Answers answers = stress::reference_answers(s, model, o.seed, 4);
    const uint32_t clients = scaled(256, o.scale);
    std::vector<hal::NpuDevice*> devices;
    std::vector<std::unique_ptr<hal::PreparedModel>> prepared;
    uint64_t prepare_failures = 0;
    for (uint32_t c = 0; c < clients; ++c) {
      devices.push_back(&s.npu_device(43000 + static_cast<int>(c), 4300 + static_cast<int>(c)));
      auto p = devices.back()->prepare_model(model);
      if (p.status.ok())
        prepared.push_back(std::move(p.model));
      else
        ++prepare_failures;
    }
    r.figures["contexts"] = clients;
    r.figures["peak_live_contexts"] = s.driver().live_contexts();
    check(r, "every client prepares", prepare_failures == 0, n(prepare_failures) + " failed");
    Tally t;
    uint64_t not_once = 0;
    AsyncBatch batch(s);
    for (uint32_t round = 0; round < 2; ++round) {
      for (size_t c = 0; c < prepared.size(); ++c) batch.launch(*prepared[c], answers, (c + round) % 4);
      batch.wait_all();
      s.os().delay_ns(1'000'000);
      not_once += batch.settle(t);
    }
    check(r, "every execution reported exactly once", not_once == 0, n(not_once) + " did not");
    t.report(r, false);
    prepared.clear();
    for (auto* d : devices) (void)d->close();
    check_nothing_left(s, r, baseline);
  });
}

Result<CaseReport> random_models(const StressOptions& o) {
  return in_system("random-models", o, [&](system::System& s, CaseReport& r) {
    const uint64_t baseline = s.driver().allocated_bytes();
    auto& device = s.npu_device(44000, 4400);
    const uint32_t count = scaled(300, o.scale);
    Tally t;
    uint64_t refused = 0, on_npu = 0;
    std::string first_refusal;
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t seed = o.seed * 1000 + i;
      const models::Model model = stress::random_chain_model(seed);
      const stress::Answers answers = stress::reference_answers(s, model, seed, 1);
      auto p = device.prepare_model(model);
      if (!p.status.ok() || answers.outputs.empty()) {
        ++refused;
        if (first_refusal.empty()) first_refusal = "seed " + n(seed) + ": " + p.status.message;
        continue;
      }
      on_npu += p.model->placement().rfind("npu", 0) == 0;
      t.add(p.model->execute_synchronously(answers.inputs[0], false), answers.outputs[0]);
    }
    r.figures["models"] = count;
    r.figures["placed_on_npu"] = on_npu;
    check(r, "every random model prepares and runs on the reference", refused == 0,
          n(refused) + " refused" + (first_refusal.empty() ? "" : ", first " + first_refusal));
    t.report(r, false);
    (void)device.close();
    check_nothing_left(s, r, baseline);
  });
}

// Device memory full (a hog context holds all of it) and allocation failures injected into preparations.
Result<CaseReport> memory_pressure(const StressOptions& o) {
  return in_system("memory-pressure", o, [&](system::System& s, CaseReport& r) {
    auto& d = s.driver();
    const uint64_t baseline = d.allocated_bytes();
    const models::Model model = stress::small_model(o.seed);
    const stress::Answers answers = stress::reference_answers(s, model, o.seed, 1);
    // 1. Full: the hog takes every byte of both pools in shrinking pieces.
    auto hog = d.open_context(45000, 4500);
    if (!hog) {
      check(r, "a context opens", false, hog.error());
      return;
    }
    uint64_t hogged = 0;
    for (bool weights : {false, true})
      for (uint64_t piece = 1ull << 30; piece >= 4096; piece /= 2)
        while (auto bo = d.alloc_bo(*hog, piece, weights)) hogged += bo->size;
    r.figures["hogged_bytes"] = hogged;
    auto& device = s.npu_device(45001, 4501);
    Tally full;
    full.resource_exhausted_allowed = true;
    {
      auto p = device.prepare_model(model);
      r.figures["prepare_when_full"] =
          p.status.ok() ? p.model->placement() : std::string(hal::to_string(p.status.code));
      // Refused, or run where memory was found (the CPU fallback): either way no crash and no wrong answer.
      if (p.status.ok())
        full.add(p.model->execute_synchronously(answers.inputs[0], false), answers.outputs[0], true);
    }
    check(r, "with device memory full, a preparation is refused or correct",
          full.wrong == 0 && full.wrong_status == 0, n(full.wrong) + " wrong outputs");
    (void)d.close_context(*hog);
    {
      auto p = device.prepare_model(model);
      const bool ok = p.status.ok() && p.model->placement().rfind("npu", 0) == 0;
      check(r, "once the memory is back, the model prepares on the NPU", ok,
            p.status.ok() ? p.model->placement() : p.status.message);
      if (ok) full.add(p.model->execute_synchronously(answers.inputs[0], false), answers.outputs[0]);
    }
    const uint64_t before_injection = d.allocated_bytes();
    // 2. Injected: every k-th allocation fails, through preparation and execution.
    Tally injected;
    injected.resource_exhausted_allowed = true;
    uint64_t prepares = 0, refused = 0, drift = 0;
    const uint32_t per_rate = scaled(50, o.scale);
    for (uint32_t every : {2u, 3u, 5u, 7u}) {
      d.inject_alloc_failures(every);
      for (uint32_t i = 0; i < per_rate; ++i) {
        ++prepares;
        auto p = device.prepare_model(model);
        if (!p.status.ok()) {
          ++refused;
        } else {
          injected.add(p.model->execute_synchronously(answers.inputs[0], false), answers.outputs[0], true);
        }
        p.model.reset();
        const uint64_t bytes = d.allocated_bytes();
        drift = std::max(drift, bytes > before_injection ? bytes - before_injection : 0);
      }
    }
    d.inject_alloc_failures(0);
    r.figures["injected_alloc_failures"] = d.injected_alloc_failures();
    r.figures["prepares_under_injection"] = prepares;
    r.figures["prepares_refused"] = refused;
    check(r, "allocation failures were injected", d.injected_alloc_failures() > 0,
          n(d.injected_alloc_failures()));
    check(r, "a failed allocation leaks nothing", drift == 0, n(drift) + " bytes left behind");
    check(r, "under injected failures, results are GENERAL_FAILURE, RESOURCE_EXHAUSTED or correct",
          injected.wrong == 0 && injected.wrong_status == 0,
          n(injected.wrong) + " wrong outputs, " + n(injected.wrong_status) + " other statuses" +
              (injected.wrong_status ? ", first " + injected.first_wrong_status : ""));
    (void)device.close();
    check_nothing_left(s, r, baseline);
  });
}

Result<CaseReport> soak(const StressOptions& o) {
  SoakOptions so;
  so.hw = o.hw;
  so.sets = o.sets;
  so.seed = o.seed;
  so.simulated_s = o.soak_s;
  auto c = run_soak(so);
  if (!c) return make_error(c.error());
  CaseReport r;
  r.name = "soak";
  r.figures = soak_json(*c);
  const auto bad = soak_violations(*c);
  check(r, "every soak invariant held", bad.empty(), bad.empty() ? "" : bad.front());
  for (size_t i = 1; i < bad.size(); ++i) check(r, "soak", false, bad[i]);
  return r;
}

// The classifier's own tests: a hang, a crash and a failure on purpose.
Result<CaseReport> test_hang(const StressOptions&) {
  for (;;) pause();
}
Result<CaseReport> test_crash(const StressOptions&) {
  std::fflush(nullptr);
  raise(SIGSEGV);
  return make_error("still alive after SIGSEGV");
}
Result<CaseReport> test_fail(const StressOptions&) {
  CaseReport r;
  r.name = "test-fail";
  check(r, "a check that fails on purpose", false, "1 != 2");
  return r;
}

struct Entry {
  StressCase info;
  Result<CaseReport> (*run)(const StressOptions&);
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> all = {
      {{"inference", "10,000 executions of one prepared model, every output checked"}, inference},
      {{"model-loading", "1,000 prepare / execute / release cycles, memory back each time"}, model_loading},
      {{"parallel-one-model", "16 executions in flight on one prepared model, 200 rounds"},
       parallel_one_model},
      {{"parallel-many-models", "8 models on 8 contexts at 3 priorities, 32 executions in flight, 80 rounds"},
       parallel_many_models},
      {{"client-abandon", "a client's context closed mid-execution, 100 times; another client unharmed"},
       client_abandon},
      {{"many-contexts", "256 client contexts at once, each preparing and running"}, many_contexts},
      {{"random-models", "300 seeded random quantised chains, NPU against the CPU reference"}, random_models},
      {{"memory-pressure", "device memory full, then every k-th allocation failing"}, memory_pressure},
      {{"degradation", "latency of the last 10 % of 10,000 executions against the first 10 %"}, degradation},
      {{"soak", "random hangs, DMA/ECC errors and thermal runaways under 4 tenants (--soak s)"}, soak},
      {{"test-hang", "classifier test: never returns", true}, test_hang},
      {{"test-crash", "classifier test: SIGSEGV", true}, test_crash},
      {{"test-fail", "classifier test: a failing check", true}, test_fail},
  };
  return all;
}

}  // namespace

bool stress_test_cases_enabled() {
  const char* v = std::getenv("NPUSIM_STRESS_TEST_CASES");
  return v && std::string(v) == "1";
}

std::vector<StressCase> stress_cases(bool with_test_cases) {
  std::vector<StressCase> out;
  for (const auto& e : entries())
    if (!e.info.test_only || with_test_cases) out.push_back(e.info);
  return out;
}

Result<CaseReport> run_stress_case(const std::string& name, const StressOptions& o) {
  for (const auto& e : entries()) {
    if (e.info.name != name) continue;
    if (e.info.test_only && !stress_test_cases_enabled())
      return make_error("stress case " + name + " is a classifier test (set NPUSIM_STRESS_TEST_CASES=1)");
    return e.run(o);
  }
  return make_error("no stress case is named \"" + name + "\"");
}

}  // namespace npu::mlts
