#include "npu/mgr/policy.h"

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

const char* to_string(RequestState s) {
  switch (s) {
    case RequestState::PENDING:
      return "PENDING";
    case RequestState::WAIT_FOR_UNLOAD:
      return "WAIT_FOR_UNLOAD";
    case RequestState::NOT_PRIORITIZED:
      return "NOT_PRIORITIZED";
    case RequestState::APPROVED:
      return "APPROVED";
    case RequestState::LOADED:
      return "LOADED";
    case RequestState::UNLOADING:
      return "UNLOADING";
  }
  return "?";
}

bool is_waiting(RequestState s) {
  return s == RequestState::PENDING || s == RequestState::WAIT_FOR_UNLOAD ||
         s == RequestState::NOT_PRIORITIZED;
}

bool holds_memory(RequestState s) { return !is_waiting(s); }

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::KEEP:
      return "KEEP";
    case Verdict::ADMIT:
      return "ADMIT";
    case Verdict::WAIT_FOR_UNLOAD:
      return "WAIT_FOR_UNLOAD";
    case Verdict::NOT_PRIORITIZED:
      return "NOT_PRIORITIZED";
    case Verdict::CANCEL:
      return "CANCEL";
    case Verdict::UNLOAD:
      return "UNLOAD";
  }
  return "?";
}

Result<std::unique_ptr<LoadPolicy>> make_policy(const std::string& name, const nlohmann::json& params) {
  if (!params.is_object()) return make_error("policy " + name + ": parameters must be a JSON object");
  std::string known;
  for (const auto& f : kFactories) {
    if (name == f.name) return f.make(params);
    known += std::string(known.empty() ? "" : ", ") + f.name;
  }
  return make_error("unknown policy '" + name + "' (known: " + known + ")");
}

std::string explain_policies() {
  std::string out;
  for (const auto& f : kFactories) out += std::string(f.name) + "\n" + f.explain();
  return out;
}

}  // namespace npu::mgr
