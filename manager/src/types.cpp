#include "npu/mgr/types.h"

namespace npu::mgr {

const char* to_string(SizeClass s) {
  switch (s) {
    case SizeClass::LESS_THAN_1GB:
      return "LESS_THAN_1GB";
    case SizeClass::BETWEEN_1GB_AND_2GB:
      return "BETWEEN_1GB_AND_2GB";
    case SizeClass::GREATER_THAN_2G:
      return "GREATER_THAN_2G";
  }
  return "?";
}

const char* to_string(LoadPriority p) {
  switch (p) {
    case LoadPriority::NORMAL:
      return "NORMAL";
    case LoadPriority::BACKGROUND:
      return "BACKGROUND";
    case LoadPriority::OPPORTUNISTIC:
      return "OPPORTUNISTIC";
  }
  return "?";
}

const char* to_string(LoadStatus s) {
  switch (s) {
    case LoadStatus::CAN_LOAD_NOW:
      return "CAN_LOAD_NOW";
    case LoadStatus::WAIT_FOR_UNLOAD:
      return "WAIT_FOR_UNLOAD";
    case LoadStatus::NOT_PRIORITIZED:
      return "NOT_PRIORITIZED";
  }
  return "?";
}

const char* to_string(RequestStatus s) { return s == RequestStatus::CANCELLED ? "CANCELLED" : "COMPLETE"; }

const char* to_string(UnloadReason r) { return r == UnloadReason::THERMAL ? "THERMAL" : "MEMORY_PRESSURE"; }

const char* to_string(Importance i) {
  switch (i) {
    case Importance::FOREGROUND:
      return "FOREGROUND";
    case Importance::VISIBLE:
      return "VISIBLE";
    case Importance::SERVICE:
      return "SERVICE";
    case Importance::BACKGROUND:
      return "BACKGROUND";
    case Importance::CACHED:
      return "CACHED";
  }
  return "?";
}

}  // namespace npu::mgr
