#include "budget_policy.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "npu/common/config.h"

namespace npu::mgr {
namespace {

struct BudgetParams {
  uint32_t max_budget = 4;
  std::array<uint32_t, 3> weights{1, 2, 4};

  void declare(cfg::Schema& s) {
    s.u32("maxBudget", &max_budget, 4, "weight",
          "Largest sum of the weights of the models held at once (default: the GREATER_THAN_2G weight)", 1);
    s.u32("modelSizeWeights.LESS_THAN_1GB", &weights[0], 1, "weight", "Weight of a LESS_THAN_1GB model", 1);
    s.u32("modelSizeWeights.BETWEEN_1GB_AND_2GB", &weights[1], 2, "weight",
          "Weight of a BETWEEN_1GB_AND_2GB model", 1);
    s.u32("modelSizeWeights.GREATER_THAN_2G", &weights[2], 4, "weight", "Weight of a GREATER_THAN_2G model",
          1);
  }
};

}  // namespace

Decision BudgetPolicy::evaluate(const ServiceView& view) {
  const auto& rs = view.requests;
  Decision d;
  d.rulings.resize(rs.size());
  auto last_completed = [&](int uid) {
    auto it = view.last_completed_ns.find(uid);
    return it == view.last_completed_ns.end() ? uint64_t{0} : it->second;
  };
  std::vector<size_t> order(rs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& x = rs[a];
    const auto& y = rs[b];
    return std::make_tuple(static_cast<int>(x.importance), last_completed(x.uid), is_waiting(x.state),
                           x.arrival) < std::make_tuple(static_cast<int>(y.importance), last_completed(y.uid),
                                                        is_waiting(y.state), y.arrival);
  });
  std::vector<bool> ideal(rs.size(), false);
  uint32_t budget = max_budget_;
  uint32_t held = 0;  // weights held now, by holders and by those still unloading
  for (size_t i : order) {
    if (rs[i].state == RequestState::UNLOADING) {
      held += weight(rs[i].request.size);
      continue;  // leaving: not part of the ideal set
    }
    if (holds_memory(rs[i].state)) held += weight(rs[i].request.size);
    if (weight(rs[i].request.size) <= budget) {
      ideal[i] = true;
      budget -= weight(rs[i].request.size);
    }
  }
  // Holders outside the ideal set leave first; waiters inside it load once their weight is free.
  for (size_t i : order) {
    const auto& r = rs[i];
    Ruling& out = d.rulings[i];
    if (!is_waiting(r.state)) {
      out.verdict = r.state == RequestState::UNLOADING || ideal[i] ? Verdict::KEEP : Verdict::UNLOAD;
      continue;
    }
    if (ideal[i] && held + weight(r.request.size) <= max_budget_) {
      out.verdict = Verdict::ADMIT;
      held += weight(r.request.size);
    } else if (ideal[i]) {
      out.verdict = Verdict::WAIT_FOR_UNLOAD;
    } else {
      out.verdict = r.state == RequestState::WAIT_FOR_UNLOAD ? Verdict::CANCEL : Verdict::NOT_PRIORITIZED;
    }
  }
  return d;
}

Result<std::unique_ptr<LoadPolicy>> make_budget_policy(const nlohmann::json& params) {
  BudgetParams p;
  cfg::Schema schema;
  p.declare(schema);
  if (auto r = schema.apply(params, "setPolicy(BUDGET)", {}); !r) return make_error(r.error());
  if (!params.contains("maxBudget")) p.max_budget = p.weights[2];
  return std::unique_ptr<LoadPolicy>(std::make_unique<BudgetPolicy>("BUDGET", p.weights, p.max_budget));
}

std::string explain_budget_policy() {
  BudgetParams p;
  cfg::Schema schema;
  p.declare(schema);
  return schema.explain();
}

}  // namespace npu::mgr
