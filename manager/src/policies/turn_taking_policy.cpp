// TURN_TAKING (AOSP): one model at a time — BUDGET with every size class weighing 1 and a budget of 1.
// The most important uid holds the slot; between equals, the one that completed NPU work most recently
// gives way.
#include "budget_policy.h"

namespace npu::mgr {

Result<std::unique_ptr<LoadPolicy>> make_turn_taking_policy(const nlohmann::json& params) {
  if (!params.empty()) return make_error("setPolicy(TURN_TAKING): takes no parameters, got " + params.dump());
  return std::unique_ptr<LoadPolicy>(
      std::make_unique<BudgetPolicy>("TURN_TAKING", std::array<uint32_t, 3>{1, 1, 1}, 1));
}

}  // namespace npu::mgr
