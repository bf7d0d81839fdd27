// The model-load policy of the `npu` service: one interface, implementations picked by name
// (policies/*.cpp). The service owns every request's state and all callbacks; after each event (a
// request, cancel, load, unload, importance or thermal change, completed NPU work, a timer) it shows
// the policy a snapshot and applies the policy's verdicts. A policy is decision-only: it must not
// call back into the service, and may keep state of its own only across evaluations (hysteresis).
//
// Verdict rules the service applies (anything else is ignored and logged):
//   waiting request (PENDING, WAIT_FOR_UNLOAD, NOT_PRIORITIZED): ADMIT → onCanLoadModel(CAN_LOAD_NOW);
//     WAIT_FOR_UNLOAD / NOT_PRIORITIZED → that status, sent when it changes; CANCEL → ends CANCELLED;
//     KEEP → no news.
//   holder (APPROVED, LOADED): UNLOAD → onRequestUnloadModel(reason), the unload timeout starts; KEEP.
//   UNLOADING: nothing until the client reports or its timeout revokes it.
// A policy that arbitrates memory admits a request only into memory that is free now (holders,
// including UNLOADING ones, still occupy theirs); STATUS_QUO deliberately does not.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/mgr/types.h"

namespace npu::mgr {

enum class RequestState {
  PENDING,          // asked, no answer yet
  WAIT_FOR_UNLOAD,  // told to wait: memory is being freed for it
  NOT_PRIORITIZED,  // told it is outranked; may still be admitted later
  APPROVED,         // told CAN_LOAD_NOW, loading (its memory counts as held)
  LOADED,           // notifyModelLoaded received
  UNLOADING,        // asked to unload, memory still held until notifyModelUnloaded
};
inline constexpr enums::Entry<RequestState> kRequestStateNames[] = {
    {RequestState::PENDING, "PENDING"},
    {RequestState::WAIT_FOR_UNLOAD, "WAIT_FOR_UNLOAD"},
    {RequestState::NOT_PRIORITIZED, "NOT_PRIORITIZED"},
    {RequestState::APPROVED, "APPROVED"},
    {RequestState::LOADED, "LOADED"},
    {RequestState::UNLOADING, "UNLOADING"}};
constexpr const auto& enum_table(RequestState) { return kRequestStateNames; }
inline const char* to_string(RequestState s) { return enums::to_string(s); }
bool is_waiting(RequestState s);
bool holds_memory(RequestState s);

struct RequestView {
  int uid = 0;
  ModelLoadRequest request;
  RequestState state = RequestState::PENDING;
  Importance importance = Importance::BACKGROUND;
  uint64_t bytes = 0;      // weight memory its size class reserves
  uint64_t arrival = 0;    // order of arrival at the service (unique)
  uint64_t waited_ns = 0;  // time spent waiting: so far for a waiter, before admission for a holder
};

struct ServiceView {
  uint64_t now_ns = 0;
  uint64_t capacity_bytes = 0;  // NPU weight memory the service arbitrates
  ThermalSeverity severity = ThermalSeverity::NONE;
  std::vector<RequestView> requests;          // in arrival order
  std::map<int, uint64_t> last_completed_ns;  // per uid: end of its last COMPLETED NPU work
};

enum class Verdict { KEEP, ADMIT, WAIT_FOR_UNLOAD, NOT_PRIORITIZED, CANCEL, UNLOAD };
inline constexpr enums::Entry<Verdict> kVerdictNames[] = {{Verdict::KEEP, "KEEP"},
                                                          {Verdict::ADMIT, "ADMIT"},
                                                          {Verdict::WAIT_FOR_UNLOAD, "WAIT_FOR_UNLOAD"},
                                                          {Verdict::NOT_PRIORITIZED, "NOT_PRIORITIZED"},
                                                          {Verdict::CANCEL, "CANCEL"},
                                                          {Verdict::UNLOAD, "UNLOAD"}};
constexpr const auto& enum_table(Verdict) { return kVerdictNames; }
inline const char* to_string(Verdict v) { return enums::to_string(v); }

struct Ruling {
  Verdict verdict = Verdict::KEEP;
  UnloadReason reason = UnloadReason::MEMORY_PRESSURE;  // for UNLOAD
};

struct Decision {
  std::vector<Ruling> rulings;    // one per ServiceView::requests entry, same order
  std::set<int> paused_uids;      // uids whose NPU work should be paused now (the rest run)
  uint64_t reevaluate_at_ns = 0;  // ask to be evaluated again at this time (0: no need)
};

class LoadPolicy {
 public:
  virtual ~LoadPolicy() = default;
  virtual const char* name() const = 0;
  virtual Decision evaluate(const ServiceView& view) = 0;
};

// Builds a policy by name from its parameters (a JSON object; unknown keys and bad values are errors
// naming the policy and the key). Names: STATUS_QUO, TURN_TAKING, BUDGET, THERMAL_PRIORITY (the
// default policy of the service).
Result<std::unique_ptr<LoadPolicy>> make_policy(const std::string& name, const nlohmann::json& params);
// Every policy with its parameters (default, unit, description), one per line.
std::string explain_policies();
// The policies' names, from their factory table: the schema's choices for manager.policy.
const std::vector<std::string>& policy_names();

// The individual factories and parameter lists (one file each under policies/).
Result<std::unique_ptr<LoadPolicy>> make_status_quo_policy(const nlohmann::json& params);
Result<std::unique_ptr<LoadPolicy>> make_budget_policy(const nlohmann::json& params);
Result<std::unique_ptr<LoadPolicy>> make_turn_taking_policy(const nlohmann::json& params);
Result<std::unique_ptr<LoadPolicy>> make_thermal_priority_policy(const nlohmann::json& params);
std::string explain_budget_policy();
std::string explain_thermal_priority_policy();

}  // namespace npu::mgr
