// The virtual platform's program file (vp/abi/npusim_program.h): a model as the NPU device prepared it
// (hal::Program: its weights image, arena layout and stages of command buffers with their relocations),
// written for a client of the guest's kernel driver that runs it without the HAL; and read back.
// The writer refuses, with one line naming the operation or operand, what such a client cannot run: a CPU
// stage (an operation the NPU cannot run), an IF/WHILE, a graph input or output that is not an arena slot,
// an input given no value. It compiles nothing itself and runs nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/common/result.h"
#include "npu/hal/compiler.h"
#include "npu/hal/device.h"
#include "npu/models/model.h"
#include "npusim_program.h"

namespace npu::tools {

struct ProgramFileSource {
  std::string name;                      // the model's name, for reports (cut to 63 bytes)
  const models::Model* model = nullptr;  // the prepared model (operand indices as the program's)
  const hal::Program* program = nullptr;
  const hal::TensorMap* inputs = nullptr;  // placed in the arena's initial contents; null: none
  int32_t priority = 500;                  // the jobs' driver priority
  uint64_t job_bytes_budget = 0;  // a job's command buffers at most this (as the HAL cuts them); 0: no cut
  uint64_t device_cycles = 0;     // Σ CH_CYCLES of the in-process run
  bool timing_only = false;
};

Result<std::string> write_program_file(const ProgramFileSource& source);

// A program file parsed back, every table whole; descriptor bytes per command buffer.
struct ProgramFile {
  npusim_program_header header{};
  std::vector<npusim_program_bo> bos;
  std::vector<npusim_program_io> inputs, outputs;
  std::vector<npusim_program_job> jobs;
  std::vector<npusim_program_stage> stages;
  std::vector<npusim_program_cmd> cmds;
  std::vector<npusim_program_reloc> relocs;
  std::vector<std::vector<uint8_t>> bo_init;    // per BO, init_bytes long
  std::vector<std::vector<uint8_t>> cmd_bytes;  // per command buffer
};

// Checks the magic, version, sizes and that every offset, index and range lies inside the file or its
// tables; an error names the first field at fault.
Result<ProgramFile> read_program_file(const std::string& bytes);

}  // namespace npu::tools
