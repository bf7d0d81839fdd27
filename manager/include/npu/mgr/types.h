// Vocabulary of the NPU manager (android.npumanager): model-load requests, their statuses, app
// importance. Values that AOSP defines (load and request statuses) keep AOSP's numbers.
#pragma once

#include <cstdint>
#include <string>

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

const char* to_string(SizeClass s);
const char* to_string(LoadPriority p);
const char* to_string(LoadStatus s);
const char* to_string(RequestStatus s);
const char* to_string(UnloadReason r);
const char* to_string(Importance i);

struct ModelLoadRequest {
  int64_t id = 0;  // unique per client (uid)
  SizeClass size = SizeClass::LESS_THAN_1GB;
  LoadPriority priority = LoadPriority::NORMAL;
  bool operator==(const ModelLoadRequest&) const = default;
};

}  // namespace npu::mgr
