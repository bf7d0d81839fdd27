// The operation x operand-type table: docs/hal.md carries what `npusim ops` prints (regenerate with
// `build/tools/npusim ops` and paste between the op-table markers), and the registry covers NN HAL 1.3.
#include "npu/hal/op_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <sstream>

#include "npu/hal/ops/operation.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/tensor.h"
#include "npu/system/system.h"

namespace npu::hal {
namespace {

using models::OperandType;
using models::OperationType;

// The target `npusim ops` probes by default (configs/npu/default.json).
NpuTarget default_target() {
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  EXPECT_TRUE(cfg.ok()) << cfg.error();
  NpuTarget t;
  if (!cfg.ok()) return t;
  t.array_rows = cfg->npu.channel.array_rows;
  t.array_cols = cfg->npu.channel.array_cols;
  t.sram_bytes = static_cast<uint64_t>(cfg->npu.channel.sram_kib) * 1024;
  t.channels = cfg->npu.channels;
  return t;
}

std::string doc_table() {
  std::ifstream f(NPUSIM_SOURCE_DIR "/docs/hal.md");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string doc = ss.str();
  const std::string begin = "<!-- op-table begin -->\n", end = "<!-- op-table end -->";
  const size_t b = doc.find(begin), e = doc.find(end);
  if (b == std::string::npos || e == std::string::npos || e < b) return "(markers not found in docs/hal.md)";
  return doc.substr(b + begin.size(), e - b - begin.size());
}

TEST(OpTable, DocMatchesGeneratedTable) {
  const std::string generated = operation_table_markdown(probe_operation_table(default_target()));
  EXPECT_EQ(doc_table(), generated) << "docs/hal.md is stale: regenerate it with `npusim ops`";
}

// Every operation with a kernel has at least one operand type the CPU reference accepts, and every
// F32 probe of a float operation is accepted (a probe that validation refuses would hide a cell).
TEST(OpTable, EveryRegisteredOperationHasACpuCell) {
  for (const OpTableRow& row : probe_operation_table(default_target())) {
    if (!row.registered || row.extension) continue;  // extension rows: ExtensionRowsRunOnTheNpuOnly
    bool any = false;
    std::string errors;
    for (size_t i = 0; i < row.cells.size(); ++i) {
      any = any || row.cells[i].cpu;
      errors += "\n  " + std::string(models::to_string(op_table_types()[i])) + ": " + row.cells[i].cpu_error;
    }
    EXPECT_TRUE(any) << models::to_string(row.op) << " has no accepted type:" << errors;
  }
}

// Cells a hand-read of NNAPI's operation docs fixes, so the probes themselves are checked: a builder
// that put the column type in the wrong place would flip one of these.
TEST(OpTable, KnownCellsFromNnapiDocs) {
  const auto rows = probe_operation_table(default_target());
  auto cell = [&](OperationType op, OperandType t) -> const OpTypeCell& {
    const auto& types = op_table_types();
    const size_t col = static_cast<size_t>(std::find(types.begin(), types.end(), t) - types.begin());
    for (const OpTableRow& r : rows)
      if (r.op == op) return r.cells.at(col);
    static const OpTypeCell none;
    return none;
  };
  // ADD: F32, F16, Q8, S8 (1.3 adds INT32); never BOOL8.
  EXPECT_TRUE(cell(OperationType::ADD, OperandType::TENSOR_FLOAT32).cpu);
  EXPECT_TRUE(cell(OperationType::ADD, OperandType::TENSOR_QUANT8_ASYMM).cpu);
  EXPECT_FALSE(cell(OperationType::ADD, OperandType::TENSOR_BOOL8).cpu);
  // CONV_2D takes per-channel filters; FLOOR, a float-only operation, refuses quant8.
  EXPECT_TRUE(cell(OperationType::CONV_2D, OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL).cpu);
  EXPECT_FALSE(cell(OperationType::FLOOR, OperandType::TENSOR_QUANT8_ASYMM).cpu);
  EXPECT_TRUE(cell(OperationType::LOGICAL_AND, OperandType::TENSOR_BOOL8).cpu);
  EXPECT_FALSE(cell(OperationType::LOGICAL_AND, OperandType::TENSOR_FLOAT32).cpu);
  // QUANTIZED_16BIT_LSTM has one form: TENSOR_QUANT8_ASYMM.
  EXPECT_TRUE(cell(OperationType::QUANTIZED_16BIT_LSTM, OperandType::TENSOR_QUANT8_ASYMM).cpu);
  EXPECT_FALSE(cell(OperationType::QUANTIZED_16BIT_LSTM, OperandType::TENSOR_FLOAT32).cpu);
  // The NPU lowers CONV_2D in F32 and Q8; SELECT has no NPU lowering.
  EXPECT_TRUE(cell(OperationType::CONV_2D, OperandType::TENSOR_FLOAT32).npu);
  EXPECT_TRUE(cell(OperationType::CONV_2D, OperandType::TENSOR_QUANT8_ASYMM).npu);
  EXPECT_TRUE(cell(OperationType::SELECT, OperandType::TENSOR_FLOAT32).cpu);
  EXPECT_FALSE(cell(OperationType::SELECT, OperandType::TENSOR_FLOAT32).npu);
}

// Inputs for a probe model: quant8 bytes drawn at random (the signed model's are the unsigned ones
// shifted by 128: byte ^ 0x80), booleans 0/1, floats in [-2, 2], other integers small.
std::map<uint32_t, models::Tensor> probe_inputs(const models::Model& m, bool shift_to_signed, uint32_t seed) {
  std::mt19937 rng(seed);
  std::map<uint32_t, models::Tensor> inputs;
  for (uint32_t idx : m.main.input_indexes) {
    const models::Operand& o = m.main.operands[idx];
    models::Tensor t = models::make_tensor(o, o.dimensions);
    for (uint64_t i = 0; i < t.element_count(); ++i) {
      const uint32_t r = rng();
      switch (o.type) {
        case OperandType::TENSOR_QUANT8_ASYMM:
          t.data[i] = static_cast<uint8_t>(r);
          break;
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
          t.data[i] = static_cast<uint8_t>(r) ^ (shift_to_signed ? 0x80 : 0);
          break;
        case OperandType::TENSOR_BOOL8:
          t.data[i] = r & 1;
          break;
        case OperandType::TENSOR_FLOAT32:
        case OperandType::TENSOR_FLOAT16:
          models::write_element(o.type, t.data, i, (r % 4001) / 1000.0 - 2.0);
          break;
        default:
          models::write_element(o.type, t.data, i, static_cast<double>(r % 3));
      }
    }
    inputs.emplace(idx, std::move(t));
  }
  return inputs;
}

// NN HAL 1.3: for every operation with both quant8 forms, the TENSOR_QUANT8_ASYMM_SIGNED result equals
// the TENSOR_QUANT8_ASYMM one minus 128 (other outputs equal), except the operations NNAPI exempts.
// Every probe of both columns is run on 8 random inputs (the same draws, shifted); an operation whose
// unsigned run fails on a draw (data-dependent errors, e.g. no box kept) must fail signed too.
TEST(OpTable, SignedQuant8EqualsUnsignedShiftedOnEveryProbe) {
  const std::set<OperationType> exempt = {OperationType::CAST, OperationType::HASHTABLE_LOOKUP,
                                          OperationType::LSH_PROJECTION, OperationType::PAD_V2,
                                          OperationType::QUANTIZED_16BIT_LSTM};
  size_t compared_ops = 0, compared_runs = 0;
  for (const OpTableRow& row : probe_operation_table(default_target())) {
    if (exempt.count(row.op) || row.extension) continue;  // no CPU reference for a vendor extension
    const models::Model q8 = operation_probe_model(row.op, OperandType::TENSOR_QUANT8_ASYMM);
    const models::Model s8 = operation_probe_model(row.op, OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
    if (q8.main.operations.empty() || s8.main.operations.empty()) continue;
    if (!ops::validate_operations(q8).ok() || !ops::validate_operations(s8).ok()) continue;
    ++compared_ops;
    for (uint32_t seed = 1; seed <= 8; ++seed) {
      auto u = ops::run_reference(q8, probe_inputs(q8, false, seed));
      auto v = ops::run_reference(s8, probe_inputs(s8, true, seed));
      ASSERT_EQ(u.ok(), v.ok()) << models::to_string(row.op) << " seed " << seed << ": "
                                << (u.ok() ? v.error() : u.error());
      if (!u.ok()) continue;
      ++compared_runs;
      for (const auto& [idx, ut] : *u) {
        const models::Tensor& vt = v->at(idx);
        ASSERT_EQ(ut.dimensions, vt.dimensions) << models::to_string(row.op);
        ASSERT_EQ(ut.data.size(), vt.data.size()) << models::to_string(row.op);
        const bool shifted = ut.type == OperandType::TENSOR_QUANT8_ASYMM;
        for (size_t i = 0; i < ut.data.size(); ++i) {
          const uint8_t expected = shifted ? static_cast<uint8_t>(ut.data[i] ^ 0x80) : ut.data[i];
          ASSERT_EQ(expected, vt.data[i])
              << models::to_string(row.op) << " seed " << seed << " output operand " << idx << " byte " << i;
        }
      }
    }
  }
  // At the time of writing 61 operations have both forms (486 runs); the counts guard against probes going missing.
  EXPECT_GE(compared_ops, 50u);
  EXPECT_GE(compared_runs, 8 * 40u);
  std::cout << "signed = unsigned - 128 over " << compared_ops << " operations, " << compared_runs
            << " runs\n";
}

// Every cell the table marks as lowered by the NPU: the probe model, on 4 random inputs, is placed wholly
// on the NPU and gives the CPU reference's outputs (integer types byte for byte, floats within the fp32
// tolerance), so an "N" in the table is a lowering that runs and agrees, not only one that is accepted.
TEST(OpTable, NpuCellsAgreeWithTheCpuReference) {
  const auto rows = probe_operation_table(default_target());
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  size_t cells = 0;
  auto end = (*sys)->run(
      [&](system::System& s) {
        for (const OpTableRow& row : rows) {
          if (row.extension) continue;  // ExtensionRowsRunOnTheNpuOnly
          for (size_t col = 0; col < row.cells.size(); ++col) {
            if (!row.cells[col].npu) continue;
            const OperandType type = op_table_types()[col];
            const std::string what =
                std::string(models::to_string(row.op)) + " in " + std::string(models::to_string(type));
            const models::Model m = operation_probe_model(row.op, type);
            auto cpu = s.cpu_device().prepare_model(m);
            auto npu = s.npu_device().prepare_model(m);
            ASSERT_TRUE(cpu.status.ok() && npu.status.ok())
                << what << ": " << cpu.status.message << npu.status.message;
            EXPECT_EQ(npu.model->placement(), "npu") << what;
            ++cells;
            for (uint32_t seed = 1; seed <= 4; ++seed) {
              const auto in = probe_inputs(m, false, seed);
              auto a = cpu.model->execute_synchronously(in, false);
              auto b = npu.model->execute_synchronously(in, false);
              ASSERT_TRUE(a.status.ok() && b.status.ok())
                  << what << ": " << a.status.message << b.status.message;
              for (const auto& [idx, want] : a.outputs) {
                const models::Tensor& got = b.outputs.at(idx);
                ASSERT_EQ(want.dimensions, got.dimensions) << what;
                for (uint64_t i = 0; i < want.element_count(); ++i) {
                  const double e = models::read_element(want.type, want.data, i);
                  const double g = models::read_element(got.type, got.data, i);
                  if (std::isnan(e) && std::isnan(g)) continue;  // e.g. LOG of a negative input on both
                  if (models::is_float_type(want.type)) {
                    ASSERT_LE(std::fabs(e - g), 1e-5 + 5 * 1.1920928955078125e-7 * std::fabs(e))
                        << what << " seed " << seed << " element " << i;
                  } else {
                    ASSERT_EQ(e, g) << what << " seed " << seed << " element " << i;
                  }
                }
              }
            }
          }
        }
      },
      600.0);
  ASSERT_TRUE(end.ok()) << end.error();
  EXPECT_GE(cells, 40u);
  std::cout << cells << " NPU cells agree with the CPU reference\n";
}

// The com.npusim.llm rows: a valid form is never a CPU cell (the CPU reference computes no vendor
// extension) and the NPU lowers every one (F32, Q8, S8); on the devices, the CPU device refuses the probe
// with INVALID_ARGUMENT, the NPU device runs it wholly on the NPU, and (no CPU reference to compare with)
// its TENSOR_QUANT8_ASYMM_SIGNED result is the TENSOR_QUANT8_ASYMM one minus 128 on the same draws.
TEST(OpTable, ExtensionRowsRunOnTheNpuOnly) {
  const auto rows = probe_operation_table(default_target());
  size_t extension_rows = 0;
  for (const OpTableRow& row : rows) {
    if (!row.extension) continue;
    ++extension_rows;
    EXPECT_EQ(row.name.rfind("com.npusim.llm:", 0), 0u) << row.name;
    for (size_t col = 0; col < row.cells.size(); ++col) {
      const OpTypeCell& c = row.cells[col];
      const OperandType t = op_table_types()[col];
      const bool main_type = t == OperandType::TENSOR_FLOAT32 || t == OperandType::TENSOR_QUANT8_ASYMM ||
                             t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
      EXPECT_FALSE(c.cpu) << row.name;
      EXPECT_EQ(c.valid, main_type) << row.name << " " << models::to_string(t) << ": " << c.cpu_error;
      EXPECT_EQ(c.npu, main_type) << row.name << " " << models::to_string(t) << ": " << c.npu_reason;
      if (c.valid) {
        EXPECT_EQ(c.cpu_error, "refused: vendor extension com.npusim.llm");
      }
    }
  }
  EXPECT_EQ(extension_rows, 3u);  // RMS_NORM, ROPE, MATMUL
  const std::string md = operation_table_markdown(rows);
  EXPECT_NE(md.find("| com.npusim.llm:MATMUL | N | | | N | N |"), std::string::npos) << md;

  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  auto end = (*sys)->run(
      [&](system::System& s) {
        for (const OpTableRow& row : rows) {
          if (!row.extension) continue;
          std::map<OperandType, std::vector<TensorMap>> results;
          for (const OperandType t : {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_QUANT8_ASYMM,
                                      OperandType::TENSOR_QUANT8_ASYMM_SIGNED}) {
            const std::string what = row.name + " in " + std::string(models::to_string(t));
            const models::Model m = operation_probe_model(row.op, t);
            ASSERT_FALSE(m.main.operations.empty()) << what;
            EXPECT_EQ(s.cpu_device().prepare_model(m).status.code, ErrorStatus::INVALID_ARGUMENT) << what;
            auto npu = s.npu_device().prepare_model(m);
            ASSERT_TRUE(npu.status.ok()) << what << ": " << npu.status.message;
            EXPECT_EQ(npu.model->placement(), "npu") << what;
            for (uint32_t seed = 1; seed <= 4; ++seed) {
              auto r = npu.model->execute_synchronously(
                  probe_inputs(m, t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED, seed), false);
              ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.message;
              results[t].push_back(r.outputs);
            }
          }
          const auto& u = results[OperandType::TENSOR_QUANT8_ASYMM];
          const auto& v = results[OperandType::TENSOR_QUANT8_ASYMM_SIGNED];
          for (size_t k = 0; k < u.size(); ++k)
            for (const auto& [idx, ut] : u[k]) {
              const models::Tensor& vt = v[k].at(idx);
              ASSERT_EQ(ut.data.size(), vt.data.size()) << row.name;
              for (size_t i = 0; i < ut.data.size(); ++i)
                ASSERT_EQ(static_cast<uint8_t>(ut.data[i] ^ 0x80), vt.data[i]) << row.name << " byte " << i;
            }
        }
      },
      600.0);
  ASSERT_TRUE(end.ok()) << end.error();
}

}  // namespace
}  // namespace npu::hal
