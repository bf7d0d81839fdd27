// Where npusim finds the files it ships: npu/common/shipped.h, under the names the tools have used.
#pragma once

#include "npu/common/shipped.h"

namespace npu::tools {

using npu::shipped::data_dir;
using npu::shipped::default_hw_config;

}  // namespace npu::tools
