// Vocabulary of the NPU manager (android.npumanager): model-load requests, their statuses, app
// importance. Values that AOSP defines (load and request statuses) keep AOSP's numbers.
#pragma once

#include <cstdint>
#include <string>

#include "npu/common/enum_table.h"
#include "npu/common/executor.h"
#include "npu/drv/driver.h"

namespace npu::mgr {

// Clients' callbacks run on an Executor: a simulated thread.
using Executor = npu::Executor;
using ThermalSeverity = drv::ThermalSeverity;

enum class SizeClass { LESS_THAN_1GB, BETWEEN_1GB_AND_2GB, GREATER_THAN_2G };
// NORMAL before BACKGROUND (AOSP); OPPORTUNISTIC (the Android page) only uses memory nobody else wants.
enum class LoadPriority { NORMAL, BACKGROUND, OPPORTUNISTIC };
// onCanLoadModel statuses.
enum class LoadStatus : int { CAN_LOAD_NOW = 0, WAIT_FOR_UNLOAD = 1, NOT_PRIORITIZED = 2 };
// onModelLoadRequestComplete statuses: the request's last callback.
enum class RequestStatus : int { CANCELLED = 3, COMPLETE = 4 };
// Why onRequestUnloadModel was sent.
enum class UnloadReason { MEMORY_PRESSURE, THERMAL };
// ActivityManager importance of an app, most important first.
enum class Importance { FOREGROUND, VISIBLE, SERVICE, BACKGROUND, CACHED };

inline constexpr enums::Entry<SizeClass> kSizeClassNames[] = {
    {SizeClass::LESS_THAN_1GB, "LESS_THAN_1GB"},
    {SizeClass::BETWEEN_1GB_AND_2GB, "BETWEEN_1GB_AND_2GB"},
    {SizeClass::GREATER_THAN_2G, "GREATER_THAN_2G"}};
inline constexpr enums::Entry<LoadPriority> kLoadPriorityNames[] = {
    {LoadPriority::NORMAL, "NORMAL"},
    {LoadPriority::BACKGROUND, "BACKGROUND"},
    {LoadPriority::OPPORTUNISTIC, "OPPORTUNISTIC"}};
inline constexpr enums::Entry<LoadStatus> kLoadStatusNames[] = {
    {LoadStatus::CAN_LOAD_NOW, "CAN_LOAD_NOW"},
    {LoadStatus::WAIT_FOR_UNLOAD, "WAIT_FOR_UNLOAD"},
    {LoadStatus::NOT_PRIORITIZED, "NOT_PRIORITIZED"}};
inline constexpr enums::Entry<RequestStatus> kRequestStatusNames[] = {{RequestStatus::CANCELLED, "CANCELLED"},
                                                                      {RequestStatus::COMPLETE, "COMPLETE"}};
inline constexpr enums::Entry<UnloadReason> kUnloadReasonNames[] = {
    {UnloadReason::MEMORY_PRESSURE, "MEMORY_PRESSURE"}, {UnloadReason::THERMAL, "THERMAL"}};
inline constexpr enums::Entry<Importance> kImportanceNames[] = {{Importance::FOREGROUND, "FOREGROUND"},
                                                                {Importance::VISIBLE, "VISIBLE"},
                                                                {Importance::SERVICE, "SERVICE"},
                                                                {Importance::BACKGROUND, "BACKGROUND"},
                                                                {Importance::CACHED, "CACHED"}};
constexpr const auto& enum_table(SizeClass) { return kSizeClassNames; }
constexpr const auto& enum_table(LoadPriority) { return kLoadPriorityNames; }
constexpr const auto& enum_table(LoadStatus) { return kLoadStatusNames; }
constexpr const auto& enum_table(RequestStatus) { return kRequestStatusNames; }
constexpr const auto& enum_table(UnloadReason) { return kUnloadReasonNames; }
constexpr const auto& enum_table(Importance) { return kImportanceNames; }
inline const char* to_string(SizeClass s) { return enums::to_string(s); }
inline const char* to_string(LoadPriority p) { return enums::to_string(p); }
inline const char* to_string(LoadStatus s) { return enums::to_string(s); }
inline const char* to_string(RequestStatus s) { return enums::to_string(s); }
inline const char* to_string(UnloadReason r) { return enums::to_string(r); }
inline const char* to_string(Importance i) { return enums::to_string(i); }

struct ModelLoadRequest {
  int64_t id = 0;  // unique per client (uid)
  SizeClass size = SizeClass::LESS_THAN_1GB;
  LoadPriority priority = LoadPriority::NORMAL;
  bool operator==(const ModelLoadRequest&) const = default;
};

}  // namespace npu::mgr
