// NNAPI-shaped HAL types: error statuses, timing, output shapes, device types.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
const char* to_string(ErrorStatus s);

enum class DeviceType { OTHER = 1, CPU = 2, GPU = 3, ACCELERATOR = 4 };
const char* to_string(DeviceType t);

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

}  // namespace npu::hal
