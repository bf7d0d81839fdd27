// THERMAL_PRIORITY, the service's default: memory by bytes, ranked by app importance and load
// priority, with aging, thermal back-off and pausing of opportunistic work.
//
// Rank (lower is better): importance·2 + (NORMAL 0 | BACKGROUND 1), so foreground NORMAL requests come
// first; OPPORTUNISTIC requests rank after every other one and only ever take memory nobody ranked
// above them wants (they never cause an unload). Aging: a request gains one rank step per aging_step_ms
// it waited (a holder keeps the credit it had when admitted), so nobody starves forever — a long
// waiter eventually displaces holders ranked above it, which then wait and age in turn. Ties keep the
// holder. The highest-ranked requests that fit the weight memory form the ideal set: holders outside it
// are asked to unload (MEMORY_PRESSURE), waiters inside it load as soon as their bytes are free
// (WAIT_FOR_UNLOAD until then), others are NOT_PRIORITIZED.
//
// Thermal: from pause_severity on, uids that hold only OPPORTUNISTIC models have their NPU work paused
// (before throttling at a higher severity would slow foreground work) and no OPPORTUNISTIC request is
// admitted; from unload_severity on, OPPORTUNISTIC and BACKGROUND/CACHED holders are asked to unload
// (THERMAL) and such waiters are NOT_PRIORITIZED. Hysteresis: paused work resumes only once the
// severity stayed at or below resume_severity for resume_hold_ms.
#include <algorithm>
#include <numeric>
#include <tuple>

#include "npu/common/config.h"
#include "npu/mgr/policy.h"

namespace npu::mgr {
namespace {

const std::vector<std::string> kSeverityNames = enums::names<ThermalSeverity>();

// The schema has already checked the name.
ThermalSeverity severity_named(const std::string& name) {
  return enums::parse<ThermalSeverity>(name).value_or(ThermalSeverity::NONE);
}

struct ThermalPriorityParams {
  uint64_t aging_step_ms = 5000;
  std::string pause_severity = "MODERATE";
  std::string unload_severity = "SEVERE";
  std::string resume_severity = "LIGHT";
  uint64_t resume_hold_ms = 1000;

  void declare(cfg::Schema& s) {
    s.u64("agingStepMs", &aging_step_ms, 5000, "ms",
          "Waiting time that improves a request's rank by one step", 1);
    s.choice("pauseSeverity", &pause_severity, "MODERATE", kSeverityNames,
             "From this thermal severity on, opportunistic work is paused and not admitted");
    s.choice("unloadSeverity", &unload_severity, "SEVERE", kSeverityNames,
             "From this severity on, opportunistic and background holders are asked to unload");
    s.choice("resumeSeverity", &resume_severity, "LIGHT", kSeverityNames,
             "Paused work resumes once the severity is at or below this level …");
    s.u64("resumeHoldMs", &resume_hold_ms, 1000, "ms", "… and stayed there this long");
  }
};

class ThermalPriorityPolicy : public LoadPolicy {
 public:
  explicit ThermalPriorityPolicy(const ThermalPriorityParams& p)
      : aging_step_ns_(p.aging_step_ms * 1'000'000),
        pause_at_(severity_named(p.pause_severity)),
        unload_at_(severity_named(p.unload_severity)),
        resume_at_(severity_named(p.resume_severity)),
        resume_hold_ns_(p.resume_hold_ms * 1'000'000) {}
  const char* name() const override { return "THERMAL_PRIORITY"; }
  Decision evaluate(const ServiceView& view) override;

 private:
  int64_t rank(const RequestView& r) const {
    const int64_t base =
        r.request.priority == LoadPriority::OPPORTUNISTIC
            ? 100 + static_cast<int64_t>(r.importance)
            : static_cast<int64_t>(r.importance) * 2 + (r.request.priority == LoadPriority::NORMAL ? 0 : 1);
    return base - static_cast<int64_t>(r.waited_ns / aging_step_ns_);
  }
  bool thermally_excluded(const RequestView& r, ThermalSeverity s) const {
    return s >= unload_at_ &&
           (r.request.priority == LoadPriority::OPPORTUNISTIC || r.importance >= Importance::BACKGROUND);
  }
  void update_pause(const ServiceView& view, Decision& d);

  uint64_t aging_step_ns_;
  ThermalSeverity pause_at_, unload_at_, resume_at_;
  uint64_t resume_hold_ns_;
  bool paused_ = false;
  uint64_t cool_since_ns_ = 0;  // when the severity last fell to resume_at_ or below while paused
  bool cooling_ = false;
};

void ThermalPriorityPolicy::update_pause(const ServiceView& view, Decision& d) {
  if (view.severity >= pause_at_) {
    paused_ = true;
    cooling_ = false;
  } else if (paused_ && view.severity <= resume_at_) {
    if (!cooling_) {
      cooling_ = true;
      cool_since_ns_ = view.now_ns;
    }
    if (view.now_ns - cool_since_ns_ >= resume_hold_ns_) {
      paused_ = false;
      cooling_ = false;
    } else {
      d.reevaluate_at_ns = cool_since_ns_ + resume_hold_ns_;
    }
  } else if (paused_) {
    cooling_ = false;  // between resume and pause levels: stay paused, the hold restarts later
  }
  if (!paused_) return;
  // Uids whose every held model is OPPORTUNISTIC.
  std::map<int, bool> only_opportunistic;
  for (const auto& r : view.requests) {
    if (!holds_memory(r.state)) continue;
    auto [it, fresh] = only_opportunistic.emplace(r.uid, true);
    it->second = it->second && r.request.priority == LoadPriority::OPPORTUNISTIC;
  }
  for (const auto& [uid, only] : only_opportunistic)
    if (only) d.paused_uids.insert(uid);
}

Decision ThermalPriorityPolicy::evaluate(const ServiceView& view) {
  const auto& rs = view.requests;
  Decision d;
  d.rulings.resize(rs.size());
  update_pause(view, d);

  std::vector<size_t> order(rs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::make_tuple(rank(rs[a]), is_waiting(rs[a].state), rs[a].arrival) <
           std::make_tuple(rank(rs[b]), is_waiting(rs[b].state), rs[b].arrival);
  });
  auto blocked = [&](const RequestView& r) {
    return thermally_excluded(r, view.severity) ||
           (is_waiting(r.state) && paused_ && r.request.priority == LoadPriority::OPPORTUNISTIC);
  };
  auto opportunistic_waiter = [](const RequestView& r) {
    return is_waiting(r.state) && r.request.priority == LoadPriority::OPPORTUNISTIC;
  };
  // The ideal set: first everyone but opportunistic waiters, then those into what is left.
  std::vector<bool> ideal(rs.size(), false);
  uint64_t budget = view.capacity_bytes;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i : order) {
      const auto& r = rs[i];
      if (r.state == RequestState::UNLOADING || blocked(r) || opportunistic_waiter(r) != (pass == 1))
        continue;
      if (r.bytes <= budget) {
        ideal[i] = true;
        budget -= r.bytes;
      }
    }
  }
  uint64_t held = 0;
  for (const auto& r : rs)
    if (holds_memory(r.state)) held += r.bytes;
  uint64_t next_aging = 0;
  for (size_t i : order) {
    const auto& r = rs[i];
    Ruling& out = d.rulings[i];
    if (!is_waiting(r.state)) {
      if (r.state != RequestState::UNLOADING && !ideal[i]) {
        out.verdict = Verdict::UNLOAD;
        out.reason =
            thermally_excluded(r, view.severity) ? UnloadReason::THERMAL : UnloadReason::MEMORY_PRESSURE;
      }
      continue;
    }
    if (ideal[i] && held + r.bytes <= view.capacity_bytes) {
      out.verdict = Verdict::ADMIT;
      held += r.bytes;
      continue;
    }
    out.verdict = ideal[i] ? Verdict::WAIT_FOR_UNLOAD : Verdict::NOT_PRIORITIZED;
    if (!ideal[i] && !blocked(r) && !opportunistic_waiter(r)) {
      // Its rank improves at the next aging step: look again then.
      const uint64_t at = view.now_ns + aging_step_ns_ - r.waited_ns % aging_step_ns_;
      next_aging = next_aging ? std::min(next_aging, at) : at;
    }
  }
  if (next_aging && (!d.reevaluate_at_ns || next_aging < d.reevaluate_at_ns)) d.reevaluate_at_ns = next_aging;
  return d;
}

}  // namespace

Result<std::unique_ptr<LoadPolicy>> make_thermal_priority_policy(const nlohmann::json& params) {
  ThermalPriorityParams p;
  cfg::Schema schema;
  p.declare(schema);
  if (auto r = schema.apply(params, "setPolicy(THERMAL_PRIORITY)", {}); !r) return make_error(r.error());
  if (!(severity_named(p.resume_severity) < severity_named(p.pause_severity) &&
        severity_named(p.pause_severity) <= severity_named(p.unload_severity)))
    return make_error(
        "setPolicy(THERMAL_PRIORITY): need resumeSeverity < pauseSeverity <= unloadSeverity, got " +
        p.resume_severity + ", " + p.pause_severity + ", " + p.unload_severity);
  return std::unique_ptr<LoadPolicy>(std::make_unique<ThermalPriorityPolicy>(p));
}

std::string explain_thermal_priority_policy() {
  ThermalPriorityParams p;
  cfg::Schema schema;
  p.declare(schema);
  return schema.explain();
}

}  // namespace npu::mgr
