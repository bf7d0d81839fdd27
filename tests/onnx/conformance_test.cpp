// ONNX backend node tests (Debian's libonnx-testdata) through import → HAL → simulated NPU, for every
// operator the importer maps. Each test directory holds model.onnx (one node) and test_data_set_0 with
// input_k.pb / output_k.pb. Input 0 stays a graph input; the other inputs (weights, shapes, scales) are
// given to the importer as constants, as an exported model would carry them. The NPU device places what
// it cannot run on the CPU reference (counted). Results are compared with the stored outputs as ONNX's own
// backend runner compares node tests (onnx.backend.test.loader: rtol 1e-3, atol 1e-7 for every node test;
// only the real-model tests' data.json may override them): float |e − a| ≤ 1e-7 + 1e-3·|e|, integers
// exactly.
// The test fails on a regression against node_tests_expected.txt ("<test> pass" or "<test> known:
// <reason>"), and on a test the file does not list. NPUSIM_NODE_TESTS_UPDATE=<file> writes the file
// from this run instead.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "npu/models/onnx_import.h"
#include "npu/system/system.h"

namespace {

namespace fs = std::filesystem;
using namespace npu;

const char* kNodeTests = "/usr/share/libonnx-testdata/data/node";

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct NodeTest {
  std::string name, op;
  fs::path dir;
};

// Directories whose model is one node of a mapped operator (the *_expanded variants test function
// bodies, not the operator, and are left out).
std::vector<NodeTest> select_tests() {
  const auto mapped = models::onnx_mapped_operators(true);
  const std::set<std::string> ops(mapped.begin(), mapped.end());
  std::vector<NodeTest> tests;
  for (const auto& e : fs::directory_iterator(kNodeTests)) {
    const std::string name = e.path().filename().string();
    if (name.find("_expanded") != std::string::npos || !fs::exists(e.path() / "model.onnx")) continue;
    onnx::ModelProto m;
    if (!m.ParseFromString(read_bytes(e.path() / "model.onnx")) || m.graph().node_size() != 1) continue;
    const std::string& op = m.graph().node(0).op_type();
    if (ops.count(op)) tests.push_back({name, op, e.path()});
  }
  std::sort(tests.begin(), tests.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return tests;
}

struct Outcome {
  bool pass = false;
  bool on_cpu = false;  // some operation ran on the CPU reference
  std::string reason;
};

// ONNX's node-test tolerances (onnx/backend/test/loader: rtol = 1e-3, atol = 1e-7).
constexpr double kRtol = 1e-3, kAtol = 1e-7;

bool close(const models::Tensor& want, const models::Tensor& got, std::string* why) {
  if (want.dimensions != got.dimensions) {
    *why = "output shape " + models::dims_to_string(got.dimensions) + ", expected " +
           models::dims_to_string(want.dimensions);
    return false;
  }
  const bool is_float = models::is_float_type(want.type);
  for (uint64_t i = 0; i < want.element_count(); ++i) {
    const double e = models::read_element(want.type, want.data, i),
                 a = models::read_element(got.type, got.data, i);
    if (std::isnan(e) && std::isnan(a)) continue;
    const double tol = is_float ? kAtol + kRtol * std::fabs(e) : 0.0;
    if (!(std::fabs(e - a) <= tol)) {
      *why =
          "element " + std::to_string(i) + ": got " + std::to_string(a) + ", expected " + std::to_string(e);
      return false;
    }
  }
  return true;
}

Outcome run_one(system::System& s, const NodeTest& t) {
  Outcome o;
  onnx::ModelProto m;
  m.ParseFromString(read_bytes(t.dir / "model.onnx"));
  const fs::path data = t.dir / "test_data_set_0";
  models::OnnxImportOptions opt;
  opt.cpu_fallback = true;
  std::set<std::string> initializers;
  for (const auto& i : m.graph().initializer()) initializers.insert(i.name());
  int k = 0;
  std::string first_input;
  for (const auto& vi : m.graph().input()) {
    if (initializers.count(vi.name())) continue;
    const fs::path pb = data / ("input_" + std::to_string(k++) + ".pb");
    if (first_input.empty())
      first_input = pb.string();
    else
      opt.constant_inputs[vi.name()] = read_bytes(pb);
  }
  auto imp = models::import_onnx_bytes(read_bytes(t.dir / "model.onnx"), t.name, opt);
  if (!imp) {
    o.reason = imp.error().substr(t.name.size() + 2);
    return o;
  }
  const auto& model = imp->model;
  hal::TensorMap inputs;
  if (model.main.input_indexes.size() != 1) {
    o.reason = "expected one runtime input";
    return o;
  }
  auto x = models::load_onnx_tensor(first_input);
  if (!x) {
    o.reason = x.error();
    return o;
  }
  const auto& desc = model.main.operands[model.main.input_indexes[0]];
  x->scale = desc.scale;
  x->zero_point = desc.zero_point;
  inputs[model.main.input_indexes[0]] = std::move(*x);
  auto prepared = s.npu_device().prepare_model(model);
  if (!prepared.status.ok()) {
    o.reason = "prepareModel: " + prepared.status.message;
    return o;
  }
  o.on_cpu = prepared.model->placement() != "npu";
  auto r = prepared.model->execute_synchronously(inputs, false);
  if (!r.status.ok()) {
    o.reason = "execute: " + r.status.message;
    return o;
  }
  for (size_t i = 0; i < model.main.output_indexes.size(); ++i) {
    auto want = models::load_onnx_tensor((data / ("output_" + std::to_string(i) + ".pb")).string());
    if (!want) {
      o.reason = want.error();
      return o;
    }
    if (!close(*want, r.outputs.at(model.main.output_indexes[i]), &o.reason)) {
      o.reason = "output " + std::to_string(i) + ": " + o.reason;
      return o;
    }
  }
  o.pass = true;
  return o;
}

std::map<std::string, std::string> read_expected(const std::string& path) {
  std::map<std::string, std::string> e;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto sp = line.find(' ');
    e[line.substr(0, sp)] = sp == std::string::npos ? "" : line.substr(sp + 1);
  }
  return e;
}

TEST(OnnxNodeConformance, MappedOperatorsAgainstExpectedPassList) {
  if (!fs::exists(kNodeTests))
    GTEST_SKIP() << kNodeTests << " is absent: install libonnx-testdata (scripts/install-deps)";
  const auto tests = select_tests();
  ASSERT_FALSE(tests.empty());
  std::map<std::string, Outcome> outcomes;
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  auto end = (*sys)->run([&](system::System& s) {
    for (const auto& t : tests) outcomes[t.name] = run_one(s, t);
  });
  ASSERT_TRUE(end.ok()) << end.error();

  struct Tally {
    int pass = 0, total = 0, cpu = 0;
  };
  std::map<std::string, Tally> per_op;
  int pass = 0;
  for (const auto& t : tests) {
    auto& tally = per_op[t.op];
    ++tally.total;
    if (outcomes[t.name].pass) {
      ++tally.pass;
      ++pass;
      if (outcomes[t.name].on_cpu) ++tally.cpu;
    }
  }
  std::printf("ONNX node tests through import -> HAL -> NPU (%s)\n%-20s %9s  %s\n", kNodeTests, "operator",
              "pass/total", "passing with CPU stages (some operation on the CPU reference)");
  for (const auto& [op, t] : per_op) std::printf("%-20s %4d/%-4d  %d\n", op.c_str(), t.pass, t.total, t.cpu);
  std::printf("%-20s %4d/%-4zu\n", "all", pass, tests.size());

  if (const char* update = std::getenv("NPUSIM_NODE_TESTS_UPDATE")) {
    std::ofstream out(update);
    out << "# ONNX node tests of mapped operators: \"pass\" must keep passing; \"known: <reason>\" are\n"
           "# unsupported cases (the importer's or the run's error). Regenerate with\n"
           "# NPUSIM_NODE_TESTS_UPDATE=$PWD/tests/onnx/node_tests_expected.txt "
           "build/tests/onnx/onnx_conformance_test\n";
    for (const auto& t : tests) {
      const auto& o = outcomes[t.name];
      out << t.name << (o.pass ? " pass" : " known: " + o.reason) << "\n";
    }
    return;
  }
  const auto expected = read_expected(NPUSIM_SOURCE_DIR "/tests/onnx/node_tests_expected.txt");
  for (const auto& t : tests) {
    const auto& o = outcomes[t.name];
    const auto it = expected.find(t.name);
    if (it == expected.end()) {
      ADD_FAILURE() << t.name << " (" << t.op << ") is not listed in node_tests_expected.txt ("
                    << (o.pass ? "passes" : o.reason) << ")";
    } else if (it->second == "pass" && !o.pass) {
      ADD_FAILURE() << "REGRESSION " << t.name << " (" << t.op << "): " << o.reason;
    } else if (it->second != "pass" && o.pass) {
      std::printf("now passes (list it as pass): %s\n", t.name.c_str());
    }
  }
}

}  // namespace
