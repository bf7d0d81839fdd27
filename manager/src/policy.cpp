#include "npu/mgr/policy.h"

#include "npu/common/factory_table.h"

namespace npu::mgr {
namespace {

std::string no_parameters() { return "  (no parameters)\n"; }

struct Factory {
  const char* name;
  Result<std::unique_ptr<LoadPolicy>> (*make)(const nlohmann::json&);
  std::string (*explain)();
};

constexpr Factory kFactories[] = {
    {"STATUS_QUO", make_status_quo_policy, no_parameters},
    {"TURN_TAKING", make_turn_taking_policy, no_parameters},
    {"BUDGET", make_budget_policy, explain_budget_policy},
    {"THERMAL_PRIORITY", make_thermal_priority_policy, explain_thermal_priority_policy},
};

}  // namespace

bool is_waiting(RequestState s) {
  return s == RequestState::PENDING || s == RequestState::WAIT_FOR_UNLOAD ||
         s == RequestState::NOT_PRIORITIZED;
}

bool holds_memory(RequestState s) { return !is_waiting(s); }

Result<std::unique_ptr<LoadPolicy>> make_policy(const std::string& name, const nlohmann::json& params) {
  if (!params.is_object()) return make_error("policy " + name + ": parameters must be a JSON object");
  if (const auto* f = factory::find(kFactories, name)) return f->make(params);
  return make_error("unknown policy '" + name + "' (known: " + factory::joined_names(kFactories) + ")");
}

const std::vector<std::string>& policy_names() {
  static const std::vector<std::string> names = factory::names(kFactories);
  return names;
}

std::string explain_policies() {
  std::string out;
  for (const auto& f : kFactories) out += std::string(f.name) + "\n" + f.explain();
  return out;
}

}  // namespace npu::mgr
