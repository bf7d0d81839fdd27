// BUDGET (AOSP BudgetModelLoadingPolicy) and TURN_TAKING (the same with every weight and the budget 1).
// Each size class has a weight (defaults 1, 2, 4); requests may hold memory while their weights sum to
// at most maxBudget (default: the GREATER_THAN_2G weight). Requests are ranked by their uid's
// importance; between uids of equal importance the one whose NPU work completed less recently first
// (so a uid that just finished work makes way for an equal peer: turn taking), then holders before
// waiters, then arrival. The highest-ranked requests that fit form the ideal set: holders outside it
// are asked to unload, waiters inside it may load once their weight is free (WAIT_FOR_UNLOAD until
// then), a waiter that was promised a place and lost it is cancelled (AOSP), others are
// NOT_PRIORITIZED. The weights are the policy's own currency: it does not look at bytes.
#pragma once

#include <array>

#include "npu/mgr/policy.h"

namespace npu::mgr {

class BudgetPolicy : public LoadPolicy {
 public:
  BudgetPolicy(const char* name, std::array<uint32_t, 3> weights, uint32_t max_budget)
      : name_(name), weights_(weights), max_budget_(max_budget) {}
  const char* name() const override { return name_; }
  Decision evaluate(const ServiceView& view) override;

 private:
  uint32_t weight(SizeClass s) const { return weights_[static_cast<size_t>(s)]; }
  const char* name_;
  std::array<uint32_t, 3> weights_;
  uint32_t max_budget_;
};

}  // namespace npu::mgr
