#include "npu/drv/sched_policy.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "npu/common/factory_table.h"

namespace npu::drv {
namespace {

// Preemptive highest-priority-first: the lowest level wins, then the best effective priority, FIFO
// among equals; a waiting buffer may take
// the channel of the running one with the worst level strictly below its own (the latest started
// among equals, which has the least work to lose).
class PriorityPolicy final : public SchedulingPolicy {
 public:
  const char* name() const override { return "priority"; }
  size_t pick(std::span<const TaskView> waiting) const override {
    return static_cast<size_t>(std::min_element(waiting.begin(), waiting.end(),
                                                [](const auto& a, const auto& b) {
                                                  return std::tie(a.level, a.effective_priority, a.order) <
                                                         std::tie(b.level, b.effective_priority, b.order);
                                                }) -
                               waiting.begin());
  }
  std::optional<size_t> victim(const TaskView& candidate, std::span<const TaskView> running) const override {
    std::optional<size_t> best;
    for (size_t i = 0; i < running.size(); ++i) {
      const auto& r = running[i];
      if (r.preempting || r.level <= candidate.level) continue;
      if (!best || std::tie(r.level, r.order) > std::tie(running[*best].level, running[*best].order))
        best = i;
    }
    return best;
  }
};

// Non-preemptive first-come first-served: submit order, priorities ignored.
class FcfsPolicy final : public SchedulingPolicy {
 public:
  const char* name() const override { return "fcfs"; }
  size_t pick(std::span<const TaskView> waiting) const override {
    return static_cast<size_t>(
        std::min_element(waiting.begin(), waiting.end(),
                         [](const auto& a, const auto& b) { return a.order < b.order; }) -
        waiting.begin());
  }
  std::optional<size_t> victim(const TaskView&, std::span<const TaskView>) const override {
    return std::nullopt;
  }
};

// PREMA (Choi and Rhu, HPCA 2020), in the driver's terms. A job's priority class weighs 9 (REALTIME and
// HIGH), 3 (NORMAL) or 1 (LOW). Its tokens grow with its normalised wait:
//     tokens = weight · (1 + waited / predicted remaining time)
// so a starving low-priority job eventually competes. The threshold is the highest weight among the
// waiting jobs; the candidates are those whose tokens reach it, and among them the shortest predicted
// job runs first (FIFO on ties). A candidate may preempt a running buffer of lower weight whose tokens
// have not reached the candidate's weight: one that has (a starving job picked because of its tokens)
// would be a candidate against it and keeps its channel. Without that rule a starved job picked onto a
// channel freed by a kill was killed again at once by the same candidate, forever (found by the PREMA
// mix scenario: millions of kills in two simulated seconds).
class PremaPolicy final : public SchedulingPolicy {
 public:
  const char* name() const override { return "prema"; }
  static double weight(uint32_t level) { return level <= 1 ? 9.0 : level == 2 ? 3.0 : 1.0; }
  static double tokens(const TaskView& t) {
    const double remaining = static_cast<double>(std::max<uint64_t>(t.estimated_remaining_ns, 1));
    return weight(t.level) * (1.0 + static_cast<double>(t.waited_ns) / remaining);
  }
  size_t pick(std::span<const TaskView> waiting) const override {
    double threshold = 0;
    for (const auto& t : waiting) threshold = std::max(threshold, weight(t.level));
    size_t best = waiting.size();
    for (size_t i = 0; i < waiting.size(); ++i) {
      if (tokens(waiting[i]) < threshold) continue;
      if (best == waiting.size() || std::tie(waiting[i].estimated_remaining_ns, waiting[i].order) <
                                        std::tie(waiting[best].estimated_remaining_ns, waiting[best].order))
        best = i;
    }
    return best;
  }
  std::optional<size_t> victim(const TaskView& candidate, std::span<const TaskView> running) const override {
    std::optional<size_t> best;
    for (size_t i = 0; i < running.size(); ++i) {
      const auto& r = running[i];
      if (r.preempting || weight(r.level) >= weight(candidate.level) || tokens(r) >= weight(candidate.level))
        continue;
      if (!best || std::tie(r.level, r.order) > std::tie(running[*best].level, running[*best].order))
        best = i;
    }
    return best;
  }
};

// Round robin with per-level time slices: every waiting buffer takes its turn in the order it (re)entered
// a run queue, priorities ignored for the turn; a running buffer keeps its channel for its level's slice
// (longer for more urgent levels), after which the buffer that has waited longest takes the channel.
class RoundRobinPolicy final : public SchedulingPolicy {
 public:
  explicit RoundRobinPolicy(const SchedulerParams& p) : p_(p) {}
  const char* name() const override { return "rr"; }
  size_t pick(std::span<const TaskView> waiting) const override {
    return static_cast<size_t>(std::min_element(waiting.begin(), waiting.end(),
                                                [](const auto& a, const auto& b) {
                                                  return std::tie(b.queued_wait_ns, a.order) <
                                                         std::tie(a.queued_wait_ns, b.order);
                                                }) -
                               waiting.begin());
  }
  std::optional<size_t> victim(const TaskView&, std::span<const TaskView> running) const override {
    // The buffer furthest past its slice.
    std::optional<size_t> best;
    uint64_t best_over = 0;
    for (size_t i = 0; i < running.size(); ++i) {
      const auto& r = running[i];
      const uint64_t q = quantum(r.level);
      if (r.preempting || r.ran_ns < q) continue;
      if (!best || r.ran_ns - q > best_over) best = i, best_over = r.ran_ns - q;
    }
    return best;
  }
  uint64_t tick_ns() const override {
    return *std::min_element(p_.rr_quantum_ns.begin(), p_.rr_quantum_ns.end()) / 2;
  }

 private:
  uint64_t quantum(uint32_t level) const { return p_.rr_quantum_ns[std::min<uint32_t>(level, 3)]; }
  SchedulerParams p_;
};

// Earliest deadline first: jobs with a deadline by deadline; after them the rest by level, FIFO within
// one. A job with a deadline preempts the running buffer with the latest deadline (no deadline counts
// as the latest) when that is later than its own.
class EdfPolicy final : public SchedulingPolicy {
 public:
  const char* name() const override { return "edf"; }
  static uint64_t key(const TaskView& t) { return t.deadline_ns ? t.deadline_ns : UINT64_MAX; }
  size_t pick(std::span<const TaskView> waiting) const override {
    return static_cast<size_t>(std::min_element(waiting.begin(), waiting.end(),
                                                [](const auto& a, const auto& b) {
                                                  return std::make_tuple(key(a), a.level, a.order) <
                                                         std::make_tuple(key(b), b.level, b.order);
                                                }) -
                               waiting.begin());
  }
  std::optional<size_t> victim(const TaskView& candidate, std::span<const TaskView> running) const override {
    if (!candidate.deadline_ns) return std::nullopt;
    std::optional<size_t> best;
    for (size_t i = 0; i < running.size(); ++i) {
      const auto& r = running[i];
      if (r.preempting || key(r) <= key(candidate)) continue;
      if (!best ||
          std::make_tuple(key(r), r.order) > std::make_tuple(key(running[*best]), running[*best].order))
        best = i;
    }
    return best;
  }
};

// npusim's default scheduler: shortest remaining work first among fair candidates, with deadlines kept by
// slack stealing.
//  - Sharing. Each job holds tokens
//         tokens = weight(level) · (1 + time in system / predicted length) · its app's recent slowdown
//    (the app's slowdown counts because fairness is between apps, not only between jobs; time in system,
//    not only time waited, so a job that has run its first stages does not lose its candidacy at every
//    stage boundary to one that waited meanwhile, which interleaved both jobs and slowed both). The
//    candidates are the jobs whose tokens reach `candidate_share` of the most any waiting job holds, and
//    every job with a deadline; among them the least rank runs first:
//         rank = remaining work · predicted length · √(its app's jobs in `rate_window_ns`)
//    Shortest-remaining-work-first minimises mean slowdown per job, but the metrics are per app: a job of
//    an app that submits few jobs carries more of its app's mean slowdown, so the app's demand (its job
//    rate times its job length) weights the remaining work; the square root because the full weight
//    starved a busy app of short jobs. The threshold keeps a job whose slowdown has grown far beyond the
//    others' from being passed over again. Starved work (waited more than
//    `starvation_bound` times its predicted length) goes ahead of the sharing, longest normalised wait first.
//  - Deadlines (slack stealing). The sharing's choice runs only if, with every predicted length stretched
//    by `deadline_stretch`, each waiting deadline job would still end by its deadline were the chosen
//    buffer and then the deadline jobs run one after another in deadline order on this channel (other
//    channels only help); otherwise the earliest deadline that can still be met runs. So a long deadline
//    job lets short work pass while its slack lasts, and a short one runs first by its length.
//  - Preemption. Deadline work that cannot wait for the first running buffer to end takes a channel from
//    work without a deadline or with a later one. Otherwise a waiting job takes a running one's channel
//    only where it would have been picked over it had both been waiting (the running one is not a
//    candidate against it, or both are and the running one ranks higher: `preempt_ratio` times higher
//    for work without a deadline, where small gains are not worth a checkpoint); never from starved work,
//    and from deadline work only for deadline work due earlier that leaves the running job its deadline.
// Which mechanism a preemption uses is the "adaptive" PreemptionPolicy's choice.
class AdaptivePolicy final : public SchedulingPolicy {
 public:
  explicit AdaptivePolicy(const SchedulerParams& p) : p_(p) {}
  const char* name() const override { return "adaptive"; }
  double weight(const TaskView& t) const { return p_.weight[std::min<uint32_t>(t.level, 3)]; }
  // A span of time in units of the job's predicted length.
  static double in_job_lengths(const TaskView& t, uint64_t ns) {
    return static_cast<double>(ns) / static_cast<double>(std::max<uint64_t>(t.job_total_ns, 1));
  }
  double normalised_wait(const TaskView& t) const { return in_job_lengths(t, t.waited_ns); }
  bool starved(const TaskView& t) const {
    return !t.deadline_ns && normalised_wait(t) >= p_.starvation_bound;
  }
  double tokens(const TaskView& t) const {
    const uint64_t in_system = t.now_ns - std::min(t.now_ns, t.submit_ns);
    return weight(t) * (1.0 + in_job_lengths(t, in_system)) * std::max(t.context_slowdown, 1.0);
  }
  double stretched(uint64_t ns) const { return p_.deadline_stretch * static_cast<double>(ns); }
  // Shortest remaining work weighted by the app's recent demand (its job rate times the job's length); with
  // no rate window, remaining work alone. Not eased by the app's slowdown (the tokens carry it): dividing
  // by it let a paused LLM's buffers run ahead of camera frames (camera p99 10.5 ms against 2.9 ms in
  // sustained_heat scaled to 9 s).
  double rank(const TaskView& t) const {
    const double remaining = static_cast<double>(t.job_remaining_ns);
    if (!p_.rate_window_ns) return remaining;
    const double demand = std::sqrt(static_cast<double>(t.context_recent_jobs)) *
                          static_cast<double>(std::max<uint64_t>(t.job_total_ns, 1));
    return remaining * demand;
  }
  // Deadline work that can still make its deadline if it starts now.
  bool meetable(const TaskView& t) const {
    return t.deadline_ns && static_cast<double>(t.now_ns) + stretched(t.job_remaining_ns) <=
                                static_cast<double>(t.deadline_ns);
  }
  // Whether deadline work `t` would miss its deadline if the whole of `ahead`'s job ran before its own.
  bool misses_after(const TaskView& t, const TaskView& ahead) const {
    return static_cast<double>(t.now_ns) + stretched(ahead.job_remaining_ns + t.job_remaining_ns) >
           static_cast<double>(t.deadline_ns);
  }
  static bool earlier_deadline(const TaskView& a, const TaskView& b) {
    return std::tie(a.deadline_ns, a.level, a.order) < std::tie(b.deadline_ns, b.level, b.order);
  }

  size_t pick(std::span<const TaskView> waiting) const override {
    const size_t chosen = share(waiting);
    std::vector<size_t> deadlines;  // meetable deadline work, earliest deadline first
    for (size_t i = 0; i < waiting.size(); ++i)
      if (meetable(waiting[i])) deadlines.push_back(i);
    if (deadlines.empty()) return chosen;
    std::sort(deadlines.begin(), deadlines.end(),
              [&](size_t a, size_t b) { return earlier_deadline(waiting[a], waiting[b]); });
    if (p_.deadline_stretch <= 0) return waiting[chosen].deadline_ns ? chosen : deadlines.front();
    // Slack stealing: `chosen` first (its buffer, or its whole job if it has a deadline), then the
    // deadline work in deadline order.
    const TaskView& c = waiting[chosen];
    double t = static_cast<double>(c.now_ns) +
               stretched(c.deadline_ns ? c.job_remaining_ns : c.estimated_remaining_ns);
    if (c.deadline_ns && t > static_cast<double>(c.deadline_ns) && meetable(c)) return deadlines.front();
    for (size_t i : deadlines) {
      if (i == chosen) continue;
      t += stretched(waiting[i].job_remaining_ns);
      if (t > static_cast<double>(waiting[i].deadline_ns)) return deadlines.front();
    }
    return chosen;
  }

  std::optional<size_t> victim(const TaskView& candidate, std::span<const TaskView> running) const override {
    // Deadline work that cannot wait for the first running buffer to end.
    bool must_run = false;
    if (meetable(candidate)) {
      double first_free = 1e300;
      for (const auto& r : running) first_free = std::min(first_free, stretched(r.estimated_remaining_ns));
      must_run = p_.deadline_stretch <= 0 ||
                 static_cast<double>(candidate.now_ns) + first_free + stretched(candidate.job_remaining_ns) >
                     static_cast<double>(candidate.deadline_ns);
    }
    std::optional<size_t> best;
    // The running job to give up its channel: among those allowed, the one with the most work left.
    auto worse = [](const TaskView& a, const TaskView& b) {
      return std::tie(a.level, a.job_remaining_ns, a.order) > std::tie(b.level, b.job_remaining_ns, b.order);
    };
    for (size_t i = 0; i < running.size(); ++i) {
      const auto& r = running[i];
      if (r.preempting) continue;
      if (must_run) {
        // From work without a deadline, or with a later one.
        if (r.deadline_ns && r.deadline_ns <= candidate.deadline_ns) continue;
      } else {
        // From starved work only for shorter deadline work; from deadline work only for deadline work due
        // earlier, and only if the running job still meets its own deadline after it; among the rest only
        // for a clear gain.
        if (starved(r) && !(candidate.deadline_ns && candidate.job_remaining_ns < r.job_remaining_ns))
          continue;
        if (r.deadline_ns &&
            (!candidate.deadline_ns || candidate.deadline_ns >= r.deadline_ns || misses_after(r, candidate)))
          continue;
        // Only where the candidate would have been picked over it, had both been waiting, and clearly:
        // work without a deadline must rank `preempt_ratio` times lower, deadline work only lower.
        if (!starved(candidate) && !outranks(candidate, r, candidate.deadline_ns ? 1.0 : p_.preempt_ratio))
          continue;
      }
      if (!best || worse(r, running[*best])) best = i;
    }
    return best;
  }

  // Tokens grow while jobs wait: weigh them again while work runs, not only at submissions and completions.
  uint64_t tick_ns() const override { return p_.recheck_ns; }

  // Backfilling. A buffer that would still run when a better-ranked running job's stage ends must not
  // take a channel that job's next stage needs: the next stage would wait for it, and the two jobs,
  // interleaved stage by stage, slow each other. Starved work, and deadline work without the slack to
  // wait for that job, are never held.
  bool may_hold() const override { return p_.backfill; }
  bool hold(const TaskView& chosen, std::span<const TaskView> running,
            uint32_t free_channels) const override {
    if (starved(chosen)) return false;
    for (const auto& r : running) {
      if (r.job == chosen.job || r.preempting || !r.next_stage_buffers || !outranks(r, chosen)) continue;
      // r's stage ends with its longest running buffer; its next stage has r's channels and the free ones.
      uint64_t stage_left = 0;
      uint32_t its_channels = 0;
      for (const auto& o : running) {
        if (o.job != r.job || o.preempting) continue;
        stage_left = std::max(stage_left, o.estimated_remaining_ns);
        ++its_channels;
      }
      if (chosen.estimated_remaining_ns <= stage_left || r.next_stage_buffers < its_channels + free_channels)
        continue;
      if (chosen.deadline_ns && misses_after(chosen, r)) continue;
      return true;
    }
    return false;
  }

 private:
  // Whether the sharing rule would pick `a` over `b` were both waiting: `b` is not a candidate against it
  // (fairness), or both are and `a` ranks lower, by the factor `margin`. (With a share of at most 1, `a`
  // is always a candidate against a `b` that is not one against it.)
  bool outranks(const TaskView& a, const TaskView& b, double margin = 1.0) const {
    const double share = p_.candidate_share;
    if (!b.deadline_ns && tokens(b) < share * tokens(a)) return true;
    const bool a_candidate = a.deadline_ns || tokens(a) >= share * tokens(b);
    return a_candidate && rank(a) * margin < rank(b);
  }
  // The choice of the sharing rule: starved work first (but shorter deadline work before it), else the
  // shortest candidate by tokens.
  size_t share(std::span<const TaskView> waiting) const {
    const size_t pick = starved_or_shortest_candidate(waiting);
    if (!starved(waiting[pick])) return pick;
    size_t shortest_deadline = pick;
    for (size_t i = 0; i < waiting.size(); ++i)
      if (waiting[i].deadline_ns && waiting[i].job_remaining_ns < waiting[shortest_deadline].job_remaining_ns)
        shortest_deadline = i;
    return shortest_deadline;
  }
  size_t starved_or_shortest_candidate(std::span<const TaskView> waiting) const {
    bool any_starved = false;
    double most_tokens = 0;
    for (const auto& t : waiting) {
      any_starved |= starved(t);
      most_tokens = std::max(most_tokens, tokens(t));
    }
    const double threshold = p_.candidate_share * most_tokens;
    size_t best = waiting.size();
    for (size_t i = 0; i < waiting.size(); ++i) {
      const auto& t = waiting[i];
      // Deadline work is always a candidate: short, it runs first; long, it yields while its slack lasts.
      if (any_starved ? !starved(t) : tokens(t) < threshold && !t.deadline_ns) continue;
      if (best == waiting.size()) {
        best = i;
        continue;
      }
      const auto& b = waiting[best];
      const bool better = any_starved ? std::make_tuple(-normalised_wait(t), t.order) <
                                            std::make_tuple(-normalised_wait(b), b.order)
                                      : std::make_tuple(rank(t), t.order) < std::make_tuple(rank(b), b.order);
      if (better) best = i;
    }
    return best;
  }

  SchedulerParams p_;
};

class FixedMechanism final : public PreemptionPolicy {
 public:
  FixedMechanism(const char* name, PreemptMechanism m) : name_(name), m_(m) {}
  const char* name() const override { return name_; }
  PreemptMechanism choose(const TaskView&, const TaskView&, const PreemptCosts& costs) const override {
    if (m_ == PreemptMechanism::CHECKPOINT && !costs.save_restore) return PreemptMechanism::KILL;
    return m_;
  }

 private:
  const char* name_;
  PreemptMechanism m_;
};

class PredictiveMechanism final : public PreemptionPolicy {
 public:
  const char* name() const override { return "predictive"; }
  PreemptMechanism choose(const TaskView& victim, const TaskView&, const PreemptCosts& costs) const override {
    if (victim.estimated_remaining_ns <= costs.checkpoint_ns) return PreemptMechanism::DRAIN;
    if (!costs.save_restore || costs.kill_lost_ns < costs.checkpoint_ns) return PreemptMechanism::KILL;
    return PreemptMechanism::CHECKPOINT;
  }
};

// The cheapest way to free a channel for `candidate`: drain when the victim will be done sooner than a
// checkpoint would take (save + restore) and waiting for it keeps the candidate's deadline; kill when the
// victim has done less work than a checkpoint costs (restarting loses less); else checkpoint.
class AdaptiveMechanism final : public PreemptionPolicy {
 public:
  const char* name() const override { return "adaptive"; }
  PreemptMechanism choose(const TaskView& victim, const TaskView& candidate,
                          const PreemptCosts& costs) const override {
    const bool deadline_safe = !candidate.deadline_ns || candidate.now_ns + victim.estimated_remaining_ns +
                                                                 candidate.job_remaining_ns <=
                                                             candidate.deadline_ns;
    if (victim.estimated_remaining_ns <= costs.checkpoint_ns && deadline_safe) return PreemptMechanism::DRAIN;
    if (!costs.save_restore || costs.kill_lost_ns < costs.checkpoint_ns) return PreemptMechanism::KILL;
    return PreemptMechanism::CHECKPOINT;
  }
};

// One row per policy: creation and the schema's choices both read these rows.
using SchedulingRow = factory::Row<std::unique_ptr<SchedulingPolicy> (*)(const SchedulerParams&)>;
using PreemptionRow = factory::Row<std::unique_ptr<PreemptionPolicy> (*)()>;

constexpr SchedulingRow kSchedulingPolicies[] = {
    {"priority", "preemptive highest-priority-first, FIFO within a level",
     [](const SchedulerParams&) -> std::unique_ptr<SchedulingPolicy> {
       return std::make_unique<PriorityPolicy>();
     }},
    {"fcfs", "non-preemptive, submit order, priorities ignored",
     [](const SchedulerParams&) -> std::unique_ptr<SchedulingPolicy> {
       return std::make_unique<FcfsPolicy>();
     }},
    {"prema", "PREMA tokens: priority x normalised waiting, shortest predicted job among the candidates",
     [](const SchedulerParams&) -> std::unique_ptr<SchedulingPolicy> {
       return std::make_unique<PremaPolicy>();
     }},
    {"rr", "time slices per level, round robin over every waiting buffer",
     [](const SchedulerParams& p) -> std::unique_ptr<SchedulingPolicy> {
       return std::make_unique<RoundRobinPolicy>(p);
     }},
    {"edf", "earliest deadline first, jobs without a deadline after, by priority",
     [](const SchedulerParams&) -> std::unique_ptr<SchedulingPolicy> {
       return std::make_unique<EdfPolicy>();
     }},
    {"adaptive", "the shortest remaining work among fair candidates, deadlines kept by slack stealing",
     [](const SchedulerParams& p) -> std::unique_ptr<SchedulingPolicy> {
       return std::make_unique<AdaptivePolicy>(p);
     }},
};

constexpr PreemptionRow kPreemptionPolicies[] = {
    {"checkpoint", "save the live SRAM, resume later",
     []() -> std::unique_ptr<PreemptionPolicy> {
       return std::make_unique<FixedMechanism>("checkpoint", PreemptMechanism::CHECKPOINT);
     }},
    {"kill", "drop progress, restart from the first descriptor",
     []() -> std::unique_ptr<PreemptionPolicy> {
       return std::make_unique<FixedMechanism>("kill", PreemptMechanism::KILL);
     }},
    {"drain", "let the running buffer finish",
     []() -> std::unique_ptr<PreemptionPolicy> {
       return std::make_unique<FixedMechanism>("drain", PreemptMechanism::DRAIN);
     }},
    {"predictive", "PREMA's dynamic choice of drain, kill or checkpoint",
     []() -> std::unique_ptr<PreemptionPolicy> { return std::make_unique<PredictiveMechanism>(); }},
    {"adaptive", "the cheapest way per case, deadlines respected",
     []() -> std::unique_ptr<PreemptionPolicy> { return std::make_unique<AdaptiveMechanism>(); }},
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_scheduling_policy(const std::string& name,
                                                         const SchedulerParams& params) {
  const auto* row = factory::find(kSchedulingPolicies, name);
  return row ? row->make(params) : nullptr;
}

std::unique_ptr<PreemptionPolicy> make_preemption_policy(const std::string& name) {
  const auto* row = factory::find(kPreemptionPolicies, name);
  return row ? row->make() : nullptr;
}

const std::vector<std::string>& scheduling_policy_names() {
  static const std::vector<std::string> names = factory::names(kSchedulingPolicies);
  return names;
}

const std::vector<std::string>& preemption_policy_names() {
  static const std::vector<std::string> names = factory::names(kPreemptionPolicies);
  return names;
}

}  // namespace npu::drv
