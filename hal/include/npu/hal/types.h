// NNAPI-shaped HAL types: error statuses, timing, output shapes, device types, priorities, deadlines,
// capabilities and the compilation-cache token.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "npu/common/enum_table.h"

namespace npu::hal {

enum class ErrorStatus {
  NONE,
  DEVICE_UNAVAILABLE,
  GENERAL_FAILURE,
  OUTPUT_INSUFFICIENT_SIZE,
  INVALID_ARGUMENT,
  MISSED_DEADLINE_TRANSIENT,
  MISSED_DEADLINE_PERSISTENT,
  RESOURCE_EXHAUSTED_TRANSIENT,
  RESOURCE_EXHAUSTED_PERSISTENT,
};
inline constexpr enums::Entry<ErrorStatus> kErrorStatusNames[] = {
    {ErrorStatus::NONE, "NONE"},
    {ErrorStatus::DEVICE_UNAVAILABLE, "DEVICE_UNAVAILABLE"},
    {ErrorStatus::GENERAL_FAILURE, "GENERAL_FAILURE"},
    {ErrorStatus::OUTPUT_INSUFFICIENT_SIZE, "OUTPUT_INSUFFICIENT_SIZE"},
    {ErrorStatus::INVALID_ARGUMENT, "INVALID_ARGUMENT"},
    {ErrorStatus::MISSED_DEADLINE_TRANSIENT, "MISSED_DEADLINE_TRANSIENT"},
    {ErrorStatus::MISSED_DEADLINE_PERSISTENT, "MISSED_DEADLINE_PERSISTENT"},
    {ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT, "RESOURCE_EXHAUSTED_TRANSIENT"},
    {ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT, "RESOURCE_EXHAUSTED_PERSISTENT"}};
constexpr const auto& enum_table(ErrorStatus) { return kErrorStatusNames; }
inline const char* to_string(ErrorStatus s) { return enums::to_string(s); }

enum class DeviceType { OTHER = 1, CPU = 2, GPU = 3, ACCELERATOR = 4 };
inline constexpr enums::Entry<DeviceType> kDeviceTypeNames[] = {{DeviceType::OTHER, "OTHER"},
                                                                {DeviceType::CPU, "CPU"},
                                                                {DeviceType::GPU, "GPU"},
                                                                {DeviceType::ACCELERATOR, "ACCELERATOR"}};
constexpr const auto& enum_table(DeviceType) { return kDeviceTypeNames; }
inline const char* to_string(DeviceType t) { return enums::to_string(t); }

// Microseconds; kNoTiming when not measured (NNAPI's UINT64_MAX).
inline constexpr uint64_t kNoTiming = UINT64_MAX;
struct Timing {
  uint64_t time_on_device_us = kNoTiming;
  uint64_t time_in_driver_us = kNoTiming;
};

struct OutputShape {
  std::vector<uint32_t> dimensions;
  bool is_sufficient = true;
};

// A status plus the reason, for errors that carry one.
struct Status {
  ErrorStatus code = ErrorStatus::NONE;
  std::string message;
  bool ok() const { return code == ErrorStatus::NONE; }
};

// NNAPI Priority of a prepared model: mapped onto the driver's job priority (see to_job_priority()).
enum class Priority { LOW, MEDIUM, HIGH };
inline constexpr enums::Entry<Priority> kPriorityNames[] = {
    {Priority::LOW, "LOW"}, {Priority::MEDIUM, "MEDIUM"}, {Priority::HIGH, "HIGH"}};
constexpr const auto& enum_table(Priority) { return kPriorityNames; }
inline const char* to_string(Priority p) { return enums::to_string(p); }
// Job priority on the scheduling HAL's scale (0 = most urgent … 1000): HIGH 0, MEDIUM 500, LOW 1000.
int to_job_priority(Priority p);

// A deadline is an absolute simulated time in ns (NNAPI's OptionalTimePoint); nullopt = none.
using Deadline = std::optional<uint64_t>;

// NNAPI loop timeouts for WHILE: default 2 s, at most 15 s.
inline constexpr uint64_t kDefaultLoopTimeoutNs = 2'000'000'000;
inline constexpr uint64_t kMaxLoopTimeoutNs = 15'000'000'000;

// The 32-byte token that names a model's compilation-cache files (NNAPI's CacheToken).
using CacheToken = std::array<uint8_t, 32>;

// NNAPI Capabilities.PerformanceInfo: time and power of a workload relative to the CPU device
// (lower is better; 1.0 = as the CPU).
struct PerformanceInfo {
  float exec_time = 1.0f;
  float power_usage = 1.0f;
};

// NNAPI Extension (getSupportedExtensions): a vendor extension a device runs, with the operand types it
// defines (models/extensions.h).
struct Extension {
  struct OperandTypeInformation {
    uint16_t type = 0;
    bool is_tensor = false;
    uint32_t byte_size = 0;
  };
  std::string name;
  std::vector<OperandTypeInformation> operand_types;
};

struct Capabilities {
  PerformanceInfo relaxed_float32_to_float16_scalar, relaxed_float32_to_float16_tensor;
  PerformanceInfo if_performance, while_performance;
  // Per operand type (only types the device supports are listed).
  std::vector<std::pair<std::string, PerformanceInfo>> operand_performance;
};

}  // namespace npu::hal
