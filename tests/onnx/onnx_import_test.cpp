// ONNX importer on hand-built ModelProtos: operator mapping (checked by the NNAPI operations it emits)
// and numerics (the imported model on the HAL's CPU reference against direct NCHW loops written here,
// an oracle independent of the importer), layout conversion, constant folding, BatchNormalization
// folding, activation fusion, unmapped-operator errors and a seeded corruption fuzz.
#include "npu/models/onnx_import.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <limits>
#include <random>

#include "npu/hal/ops/reference_executor.h"
#include "npu/models/validate.h"

namespace {

using npu::models::OperationType;

// --- ModelProto construction ---------------------------------------------------------------------------

struct Graph {
  onnx::ModelProto m;
  explicit Graph(int64_t opset = 13) {
    m.set_ir_version(7);
    auto* o = m.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
  }
  onnx::GraphProto* g() { return m.mutable_graph(); }
  void io(bool input, const std::string& name, const std::vector<int64_t>& dims, int32_t type = 1) {
    auto* vi = input ? g()->add_input() : g()->add_output();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  void init(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& v) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(1);
    for (int64_t d : dims) t->add_dims(d);
    for (float f : v) t->add_float_data(f);
  }
  void init_i64(const std::string& name, const std::vector<int64_t>& v) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(7);
    t->add_dims(static_cast<int64_t>(v.size()));
    for (int64_t i : v) t->add_int64_data(i);
  }
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& in,
                        const std::vector<std::string>& out, const std::string& name = "") {
    auto* n = g()->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + std::to_string(g()->node_size()) : name);
    for (const auto& s : in) n->add_input(s);
    for (const auto& s : out) n->add_output(s);
    return n;
  }
  std::string bytes() const { return m.SerializeAsString(); }
};

void ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t i : v) a->add_ints(i);
}
void int1(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

std::vector<float> random_floats(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& f : v) f = d(rng);
  return v;
}

npu::models::Tensor float_tensor(const std::vector<uint32_t>& dims, const std::vector<float>& v) {
  npu::models::Tensor t;
  t.dimensions = dims;
  t.data.resize(v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i) npu::models::write_element(t.type, t.data, i, v[i]);
  return t;
}

std::vector<float> floats(const npu::models::Tensor& t) {
  std::vector<float> v(t.element_count());
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(npu::models::read_element(t.type, t.data, i));
  return v;
}

// Imports, validates and runs on the CPU reference with one float input; returns output 0.
std::vector<float> run_imported(const Graph& gr, const std::vector<uint32_t>& in_dims,
                                const std::vector<float>& x, npu::models::OnnxImported* imported = nullptr) {
  auto r = npu::models::import_onnx_bytes(gr.bytes(), "test.onnx");
  EXPECT_TRUE(r.ok()) << r.error();
  if (!r.ok()) return {};
  EXPECT_TRUE(npu::models::validate_model(r->model).ok());
  auto ops = npu::hal::ops::validate_operations(r->model);
  EXPECT_TRUE(ops.ok()) << ops.error();
  auto out =
      npu::hal::ops::run_reference(r->model, {{r->model.main.input_indexes[0], float_tensor(in_dims, x)}});
  EXPECT_TRUE(out.ok()) << out.error();
  if (imported) *imported = *r;
  if (!out.ok()) return {};
  return floats(out->at(r->model.main.output_indexes[0]));
}

std::vector<OperationType> op_types(const npu::models::Model& m) {
  std::vector<OperationType> t;
  for (const auto& o : m.main.operations) t.push_back(o.type);
  return t;
}

// Direct NCHW convolution (the oracle): w [M, C/g, kh, kw], pads top/left, stride s.
std::vector<float> conv_nchw(const std::vector<float>& x, int n, int c, int h, int w,
                             const std::vector<float>& wt, int m, int kh, int kw, const std::vector<float>& b,
                             int group, int pad, int stride, int oh, int ow) {
  std::vector<float> y(static_cast<size_t>(n * m * oh * ow));
  const int cg = c / group, mg = m / group;
  for (int ni = 0; ni < n; ++ni)
    for (int mi = 0; mi < m; ++mi)
      for (int yi = 0; yi < oh; ++yi)
        for (int xi = 0; xi < ow; ++xi) {
          double acc = b.empty() ? 0 : b[static_cast<size_t>(mi)];
          const int g = mi / mg;
          for (int ci = 0; ci < cg; ++ci)
            for (int ky = 0; ky < kh; ++ky)
              for (int kx = 0; kx < kw; ++kx) {
                const int iy = yi * stride - pad + ky, ix = xi * stride - pad + kx;
                if (iy < 0 || ix < 0 || iy >= h || ix >= w) continue;
                acc += x[static_cast<size_t>(((ni * c + g * cg + ci) * h + iy) * w + ix)] *
                       wt[static_cast<size_t>(((mi * cg + ci) * kh + ky) * kw + kx)];
              }
          y[static_cast<size_t>(((ni * m + mi) * oh + yi) * ow + xi)] = static_cast<float>(acc);
        }
  return y;
}

void expect_near_all(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol + 1e-5f * std::fabs(want[i])) << "element " << i;
}

// --- Tests ---------------------------------------------------------------------------------------------

TEST(OnnxImport, ConvBatchNormReluFoldsAndMatchesDirectNchwConvolution) {
  Graph gr;
  gr.io(true, "x", {1, 3, 8, 8});
  gr.io(false, "y", {1, 4, 8, 8});
  const auto w = random_floats(4 * 3 * 3 * 3, 1), b = random_floats(4, 2);
  gr.init("w", {4, 3, 3, 3}, w);
  gr.init("b", {4}, b);
  const std::vector<float> gamma = {1.5f, 0.5f, -1.0f, 2.0f}, beta = {0.1f, -0.2f, 0.3f, 0.0f},
                           mean = {0.05f, -0.1f, 0.2f, 0.0f}, var = {1.0f, 0.25f, 4.0f, 0.5f};
  gr.init("gamma", {4}, gamma);
  gr.init("beta", {4}, beta);
  gr.init("mean", {4}, mean);
  gr.init("var", {4}, var);
  auto* c = gr.node("Conv", {"x", "w", "b"}, {"c"});
  ints(c, "pads", {1, 1, 1, 1});
  ints(c, "kernel_shape", {3, 3});
  gr.node("BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, {"bn"});
  gr.node("Relu", {"bn"}, {"y"});
  const auto x = random_floats(3 * 64, 3);
  npu::models::OnnxImported imp;
  const auto got = run_imported(gr, {1, 3, 8, 8}, x, &imp);
  // NCHW in → NHWC (TRANSPOSE), one CONV_2D with BatchNormalization and Relu folded in, back to NCHW.
  EXPECT_EQ(op_types(imp.model), (std::vector<OperationType>{OperationType::TRANSPOSE, OperationType::CONV_2D,
                                                             OperationType::TRANSPOSE}));
  auto want = conv_nchw(x, 1, 3, 8, 8, w, 4, 3, 3, b, 1, 1, 1, 8, 8);
  for (size_t i = 0; i < want.size(); ++i) {
    const size_t ch = (i / 64) % 4;
    const float v = (want[i] - mean[ch]) / std::sqrt(var[ch] + 1e-5f) * gamma[ch] + beta[ch];
    want[i] = std::max(0.0f, v);
  }
  expect_near_all(got, want, 1e-4f);
}

TEST(OnnxImport, DepthwiseAndGroupedConvolutionsMatchDirectComputation) {
  for (int group : {4, 2}) {
    Graph gr;
    gr.io(true, "x", {1, 4, 7, 7});
    const int m = group == 4 ? 8 : 4;  // depthwise with multiplier 2; two groups of 2 → 2
    gr.io(false, "y", {1, m, 4, 4});
    const auto w = random_floats(static_cast<size_t>(m * (4 / group) * 9), 10 + group);
    const auto b = random_floats(static_cast<size_t>(m), 20 + group);
    gr.init("w", {m, 4 / group, 3, 3}, w);
    gr.init("b", {m}, b);
    auto* c = gr.node("Conv", {"x", "w", "b"}, {"y"});
    ints(c, "pads", {1, 1, 1, 1});
    ints(c, "strides", {2, 2});
    int1(c, "group", group);
    const auto x = random_floats(4 * 49, 30);
    npu::models::OnnxImported imp;
    const auto got = run_imported(gr, {1, 4, 7, 7}, x, &imp);
    const auto types = op_types(imp.model);
    const auto count = [&](OperationType t) { return std::count(types.begin(), types.end(), t); };
    if (group == 4) {
      EXPECT_EQ(count(OperationType::DEPTHWISE_CONV_2D), 1) << "group " << group;
    } else {
      EXPECT_EQ(count(OperationType::CONV_2D), 2);
      EXPECT_EQ(count(OperationType::STRIDED_SLICE), 2);
      EXPECT_EQ(count(OperationType::CONCATENATION), 1);
    }
    expect_near_all(got, conv_nchw(x, 1, 4, 7, 7, w, m, 3, 3, b, group, 1, 2, 4, 4), 1e-4f);
  }
}

TEST(OnnxImport, TransposesAroundAConvolutionCostNothing) {
  // NHWC graph input → Transpose to NCHW → Conv → Transpose back: the NNAPI model is one CONV_2D.
  Graph gr;
  gr.io(true, "x", {1, 6, 6, 2});
  gr.io(false, "y", {1, 6, 6, 3});
  const auto w = random_floats(3 * 2, 5);
  gr.init("w", {3, 2, 1, 1}, w);
  ints(gr.node("Transpose", {"x"}, {"t"}), "perm", {0, 3, 1, 2});
  gr.node("Conv", {"t", "w"}, {"c"});
  ints(gr.node("Transpose", {"c"}, {"y"}), "perm", {0, 2, 3, 1});
  const auto x = random_floats(72, 6);
  npu::models::OnnxImported imp;
  const auto got = run_imported(gr, {1, 6, 6, 2}, x, &imp);
  EXPECT_EQ(op_types(imp.model), std::vector<OperationType>{OperationType::CONV_2D});
  std::vector<float> want(108);
  for (int p = 0; p < 36; ++p)
    for (int o = 0; o < 3; ++o)
      want[static_cast<size_t>(p * 3 + o)] =
          x[static_cast<size_t>(p * 2)] * w[static_cast<size_t>(o * 2)] +
          x[static_cast<size_t>(p * 2 + 1)] * w[static_cast<size_t>(o * 2 + 1)];
  expect_near_all(got, want, 1e-5f);
}

TEST(OnnxImport, ShapeChainsAndConstantOfShapeFoldAtImport) {
  // y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])) ; z = Concat(y, ConstantOfShape([2,3]))
  Graph gr(13);
  gr.io(true, "x", {2, 3, 2});
  gr.io(false, "z", {2, 9});
  gr.init_i64("zero", {0});
  gr.init_i64("minus1", {-1});
  gr.init_i64("pad_shape", {2, 3});
  gr.init_i64("axes", {0});
  gr.node("Shape", {"x"}, {"s"});
  int1(gr.node("Gather", {"s", "zero"}, {"n"}), "axis", 0);  // indices [0] → shape [1]
  int1(gr.node("Concat", {"n", "minus1"}, {"shape"}), "axis", 0);
  gr.node("Reshape", {"x", "shape"}, {"y"});
  gr.node("ConstantOfShape", {"pad_shape"}, {"pad"});
  int1(gr.node("Concat", {"y", "pad"}, {"z"}), "axis", 1);
  const auto x = random_floats(12, 7);
  npu::models::OnnxImported imp;
  const auto got = run_imported(gr, {2, 3, 2}, x, &imp);
  EXPECT_EQ(op_types(imp.model),
            (std::vector<OperationType>{OperationType::RESHAPE, OperationType::CONCATENATION}));
  EXPECT_EQ(imp.folded_nodes, 4u);  // Shape, Gather, Concat (shape), ConstantOfShape
  std::vector<float> want;
  for (int r = 0; r < 2; ++r) {
    for (int k = 0; k < 6; ++k) want.push_back(x[static_cast<size_t>(r * 6 + k)]);
    for (int k = 0; k < 3; ++k) want.push_back(0.0f);
  }
  expect_near_all(got, want, 0.0f);
}

TEST(OnnxImport, GemmThenSoftmaxMatchesDirectComputation) {
  Graph gr(13);
  gr.io(true, "x", {2, 5});
  gr.io(false, "y", {2, 3});
  const auto w = random_floats(3 * 5, 8), c = random_floats(3, 9);
  gr.init("w", {3, 5}, w);  // transB = 1: [N, K]
  gr.init("c", {3}, c);
  auto* g = gr.node("Gemm", {"x", "w", "c"}, {"h"});
  int1(g, "transB", 1);
  gr.node("Softmax", {"h"}, {"y"});
  const auto x = random_floats(10, 11);
  const auto got = run_imported(gr, {2, 5}, x);
  std::vector<float> want;
  for (int r = 0; r < 2; ++r) {
    std::vector<double> h(3);
    double sum = 0;
    for (int o = 0; o < 3; ++o) {
      h[static_cast<size_t>(o)] = c[static_cast<size_t>(o)];
      for (int k = 0; k < 5; ++k)
        h[static_cast<size_t>(o)] += x[static_cast<size_t>(r * 5 + k)] * w[static_cast<size_t>(o * 5 + k)];
    }
    const double mx = *std::max_element(h.begin(), h.end());
    for (double& v : h) sum += (v = std::exp(v - mx));
    for (double v : h) want.push_back(static_cast<float>(v / sum));
  }
  expect_near_all(got, want, 1e-6f);
}

TEST(OnnxImport, LeakyReluDecomposesAndMaxIsMaximumExactly) {
  Graph gr(13);
  gr.io(true, "x", {1, 10});
  gr.io(false, "y", {1, 10});
  gr.init("k", {10}, random_floats(10, 12));
  auto* a = gr.node("LeakyRelu", {"x"}, {"l"});
  a->add_attribute()->set_name("alpha");
  a->mutable_attribute(0)->set_type(onnx::AttributeProto::FLOAT);
  a->mutable_attribute(0)->set_f(0.2f);
  gr.node("Max", {"l", "k"}, {"y"});
  const auto x = random_floats(10, 13), k = random_floats(10, 12);
  const auto got = run_imported(gr, {1, 10}, x);
  std::vector<float> want;
  for (size_t i = 0; i < 10; ++i) want.push_back(std::max(x[i] > 0 ? x[i] : 0.2f * x[i], k[i]));
  expect_near_all(got, want, 1e-6f);
}

TEST(OnnxImport, UnmappedOperatorIsOneErrorNamingOpAndNode) {
  Graph gr;
  gr.io(true, "x", {1, 4});
  gr.io(false, "y", {1, 4});
  gr.node("Erf", {"x"}, {"y"}, "my_erf");
  auto r = npu::models::import_onnx_bytes(gr.bytes(), "erf.onnx");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "erf.onnx: node 0 'my_erf' (Erf): operator Erf is not supported by the importer");
}

// Div by a runtime divisor has no NPU path: an error without cpu_fallback, DIV on the CPU with it (Div
// by a constant imports as MUL by the reciprocal, see PowLogReduceMaxAndRuntimeClipMatchDirectFormula).
TEST(OnnxImport, CpuOnlyOperatorNeedsCpuFallback) {
  Graph gr;
  gr.io(true, "x", {1, 4});
  gr.io(true, "d", {1, 4});
  gr.io(false, "y", {1, 4});
  gr.node("Div", {"x", "d"}, {"y"}, "halve");
  auto strict = npu::models::import_onnx_bytes(gr.bytes(), "div.onnx");
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(
      strict.error().find("node 0 'halve' (Div): Div by a runtime tensor is not mapped to an NPU operation"),
      std::string::npos)
      << strict.error();
  npu::models::OnnxImportOptions opt;
  opt.cpu_fallback = true;
  auto r = npu::models::import_onnx_bytes(gr.bytes(), "div.onnx", opt);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->cpu_only_nodes, std::vector<std::string>{"Div 'halve'"});
  auto out = npu::hal::ops::run_reference(
      r->model, {{r->model.main.input_indexes[0], float_tensor({1, 4}, {1, 1, 1, 1})},
                 {r->model.main.input_indexes[1], float_tensor({1, 4}, {1, 2, 4, 8})}});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(floats(out->begin()->second), (std::vector<float>{1.0f, 0.5f, 0.25f, 0.125f}));
}

TEST(OnnxImport, MalformedFilesGiveOneErrorNeverACrash) {
  EXPECT_EQ(npu::models::import_onnx_bytes("not a model", "junk.onnx").error(),
            "junk.onnx: not a valid ONNX model (protobuf parse failed)");
  EXPECT_FALSE(npu::models::import_onnx_file("/nonexistent/m.onnx").ok());
  // Seeded corruptions of a small valid model: byte flips, truncations and insertions. Each import
  // either succeeds with a model that passes validation or returns an error message.
  Graph gr;
  gr.io(true, "x", {1, 3, 8, 8});
  gr.io(false, "y", {1, 4, 4, 4});
  gr.init("w", {4, 3, 3, 3}, random_floats(108, 1));
  gr.init_i64("shape", {1, 4, 4, 4});
  auto* c = gr.node("Conv", {"x", "w"}, {"c"});
  ints(c, "pads", {1, 1, 1, 1});
  ints(c, "strides", {2, 2});
  gr.node("Relu", {"c"}, {"r"});
  gr.node("Reshape", {"r", "shape"}, {"y"});
  const std::string good = gr.bytes();
  ASSERT_TRUE(npu::models::import_onnx_bytes(good, "good.onnx").ok());
  std::mt19937_64 rng(2026);
  int accepted = 0, rejected = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::string bad = good;
    const int kind = trial % 4;
    if (kind == 0 || kind == 3) {
      const int flips = 1 + static_cast<int>(rng() % 8);
      for (int f = 0; f < flips; ++f) bad[rng() % bad.size()] = static_cast<char>(rng());
    } else if (kind == 1) {
      bad.resize(rng() % bad.size());
    } else {
      bad.insert(rng() % bad.size(), std::string(1 + rng() % 6, static_cast<char>(rng())));
    }
    auto r = npu::models::import_onnx_bytes(bad, "fuzz.onnx");
    if (r.ok()) {
      ++accepted;
      EXPECT_TRUE(npu::models::validate_model(r->model).ok()) << "trial " << trial;
      (void)npu::hal::ops::validate_operations(r->model);  // must return, whatever it says
    } else {
      ++rejected;
      EXPECT_EQ(r.error().rfind("fuzz.onnx: ", 0), 0u) << r.error();
    }
  }
  std::printf("fuzz: 400 corrupted models, %d imported, %d rejected with an error\n", accepted, rejected);
  EXPECT_GT(rejected, 0);
}

// Found by fuzzing: a Squeeze of a runtime value to rank 0 gave an invalid model (an NNAPI tensor of rank
// 0); a constant squeezed to a scalar still imports, validates and computes.
TEST(OnnxImport, SqueezeToRankZeroIsAnErrorNotAnInvalidModel) {
  Graph runtime;
  runtime.io(true, "x", {1});
  runtime.io(false, "y", {});
  runtime.node("Squeeze", {"x"}, {"y"});
  auto r = npu::models::import_onnx_bytes(runtime.bytes(), "s.onnx");
  ASSERT_FALSE(r.ok()) << "imported a rank-0 runtime tensor; validate: "
                       << (npu::models::validate_model(r->model).ok() ? "ok" : "invalid");
  EXPECT_NE(r.error().find("rank 0"), std::string::npos) << r.error();

  Graph constant;
  constant.io(true, "x", {3});
  constant.io(false, "y", {3});
  constant.init("c", {1}, {2.5f});
  constant.node("Squeeze", {"c"}, {"s"});
  constant.node("Add", {"x", "s"}, {"y"});
  EXPECT_EQ(run_imported(constant, {3}, {1, 2, 3}), (std::vector<float>{3.5f, 4.5f, 5.5f}));
}

// Found by fuzzing: integers held by tensors (axes, shapes, pads) converted from double to int64 without a
// range check (undefined behaviour past int64, and the error named a wrapped value).
TEST(OnnxImport, IntegersOutsideInt64AreAnError) {
  {
    Graph gr;
    gr.io(true, "x", {2, 3});
    gr.io(false, "y", {1, 2, 3});
    gr.init_i64("axes", {std::numeric_limits<int64_t>::max()});
    gr.node("Unsqueeze", {"x", "axes"}, {"y"});
    auto r = npu::models::import_onnx_bytes(gr.bytes(), "a.onnx");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("axes: "), std::string::npos) << r.error();
    EXPECT_NE(r.error().find("int64 range"), std::string::npos) << r.error();
  }
  for (float bad : {9.3e18f, -1e30f, std::numeric_limits<float>::quiet_NaN(), 2.5f}) {
    Graph gr;
    gr.io(true, "x", {2, 3});
    gr.io(false, "y", {6});
    gr.init("shape", {1}, {bad});
    gr.node("Reshape", {"x", "shape"}, {"y"});
    auto r = npu::models::import_onnx_bytes(gr.bytes(), "r.onnx");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().find("shape entry: "), std::string::npos) << r.error();
  }
}

// Found by fuzzing: a node listing fewer outputs than its operator defines (a Shape with none) read past
// the end of the protobuf field.
TEST(OnnxImport, NodeWithoutItsOutputsIsAnError) {
  Graph gr;
  gr.io(true, "x", {2, 3});
  gr.io(false, "y", {2, 3});
  gr.node("Shape", {"x"}, {});
  gr.node("Relu", {"x"}, {"y"});
  auto r = npu::models::import_onnx_bytes(gr.bytes(), "o.onnx");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("has no output"), std::string::npos) << r.error();
}

// --- Audio-model constructs (openWakeWord melspectrogram, Silero VAD) ---------------------------------

void str1(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

npu::models::OnnxImported import_ok(const Graph& gr, const npu::models::OnnxImportOptions& opt = {}) {
  auto r = npu::models::import_onnx_bytes(gr.bytes(), "test.onnx", opt);
  EXPECT_TRUE(r.ok()) << r.error();
  if (!r.ok()) return {};
  auto ops = npu::hal::ops::validate_operations(r->model);
  EXPECT_TRUE(ops.ok()) << ops.error();
  return std::move(*r);
}

// Runs an imported model on the CPU reference with float inputs (in graph-input order); all outputs.
std::vector<std::vector<float>> run_all(
    const npu::models::OnnxImported& imp,
    const std::vector<std::pair<std::vector<uint32_t>, std::vector<float>>>& in) {
  std::map<uint32_t, npu::models::Tensor> inputs;
  for (size_t i = 0; i < in.size(); ++i)
    inputs[imp.model.main.input_indexes.at(i)] = float_tensor(in[i].first, in[i].second);
  auto out = npu::hal::ops::run_reference(imp.model, inputs);
  EXPECT_TRUE(out.ok()) << out.error();
  std::vector<std::vector<float>> v;
  if (out.ok())
    for (uint32_t o : imp.model.main.output_indexes) v.push_back(floats(out->at(o)));
  return v;
}

// 1-D convolution [N, C, L] (STFT-style stride and kernel, padding) and a depthwise one after it,
// against direct loops: y[m][t] = b[m] + Σ_c Σ_k w[m][c][k] · x[c][t·s + k − pad].
TEST(OnnxImportAudio, OneDimensionalConvolutionsMatchDirectLoops) {
  const int64_t C = 2, L = 20, M = 3, K = 4, S = 3, P = 1;
  Graph gr(13);
  gr.io(true, "x", {1, C, L});
  const int64_t T = (L + 2 * P - K) / S + 1;  // 7
  gr.io(false, "z", {1, M, T});
  const auto w = random_floats(M * C * K, 21), b = random_floats(M, 22), dw = random_floats(M * 3, 23);
  gr.init("w", {M, C, K}, w);
  gr.init("b", {M}, b);
  gr.init("dw", {M, 1, 3}, dw);
  auto* c = gr.node("Conv", {"x", "w", "b"}, {"y"});
  ints(c, "strides", {S});
  ints(c, "pads", {P, P});
  ints(c, "kernel_shape", {K});
  auto* d = gr.node("Conv", {"y", "dw"}, {"z"});
  int1(d, "group", M);
  ints(d, "pads", {1, 1});
  const auto x = random_floats(C * L, 24);
  npu::models::OnnxImported imp;
  const auto got = run_imported(gr, {1, C, L}, x, &imp);
  std::vector<float> y(M * T), want(M * T);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t t = 0; t < T; ++t) {
      double acc = b[m];
      for (int64_t ch = 0; ch < C; ++ch)
        for (int64_t k = 0; k < K; ++k) {
          const int64_t i = t * S + k - P;
          if (i >= 0 && i < L) acc += w[(m * C + ch) * K + k] * x[ch * L + i];
        }
      y[m * T + t] = static_cast<float>(acc);
    }
  for (int64_t m = 0; m < M; ++m)
    for (int64_t t = 0; t < T; ++t) {
      double acc = 0;
      for (int64_t k = 0; k < 3; ++k)
        if (t + k - 1 >= 0 && t + k - 1 < T) acc += dw[m * 3 + k] * y[m * T + t + k - 1];
      want[m * T + t] = static_cast<float>(acc);
    }
  expect_near_all(got, want, 1e-5f);
  const auto types = op_types(imp.model);
  EXPECT_EQ(std::count(types.begin(), types.end(), OperationType::CONV_2D), 1);
  EXPECT_EQ(std::count(types.begin(), types.end(), OperationType::DEPTHWISE_CONV_2D), 1);
  // Channels-last in between: only the graph input [1, C, L] and output [1, M, T] are transposed.
  EXPECT_EQ(std::count(types.begin(), types.end(), OperationType::TRANSPOSE), 2);
}

// The melspectrogram's tail: power (Pow 2), Log, ·10 / ln 10, the global ReduceMax (keepdims 0) and a
// Clip whose minimum is that maximum − 80, a runtime value: y = max(10·log10(x²), max(…) − 80).
TEST(OnnxImportAudio, PowLogReduceMaxAndRuntimeClipMatchDirectFormula) {
  Graph gr(13);
  gr.io(true, "x", {1, 1, 4, 3});
  gr.io(false, "y", {1, 1, 4, 3});
  gr.init("two", {}, {2.0f});
  gr.init("ten", {}, {10.0f});
  gr.init("ln10", {}, {2.3025851f});
  gr.init("eighty", {}, {80.0f});
  gr.init("tiny", {}, {1e-10f});
  gr.node("Pow", {"x", "two"}, {"p"});
  gr.node("Clip", {"p", "tiny"}, {"pc"});
  gr.node("Log", {"pc"}, {"l"});
  gr.node("Mul", {"l", "ten"}, {"m"});
  gr.node("Div", {"m", "ln10"}, {"db"});
  int1(gr.node("ReduceMax", {"db"}, {"mx"}), "keepdims", 0);
  gr.node("Sub", {"mx", "eighty"}, {"floor"});
  gr.node("Clip", {"db", "floor"}, {"y"});
  std::vector<float> x = random_floats(12, 31);
  x[5] = 0.0f;   // log of the 1e-10 floor: -100 dB, clipped to max − 80
  x[7] = 1e-3f;  // -60 dB
  npu::models::OnnxImported imp;
  const auto got = run_imported(gr, {1, 1, 4, 3}, x, &imp);
  std::vector<float> db;
  for (float v : x) db.push_back(10.0f * std::log(std::max(v * v, 1e-10f)) / 2.3025851f);
  const float floor = *std::max_element(db.begin(), db.end()) - 80.0f;
  std::vector<float> want;
  for (float v : db) want.push_back(std::max(v, floor));
  expect_near_all(got, want, 1e-4f);
  const auto types = op_types(imp.model);
  for (auto t : {OperationType::LOG, OperationType::REDUCE_MAX, OperationType::MAXIMUM})
    EXPECT_NE(std::find(types.begin(), types.end(), t), types.end()) << npu::models::to_string(t);
  EXPECT_EQ(std::find(types.begin(), types.end(), OperationType::DIV),
            types.end());  // Div by a constant: MUL
}

// ONNX LSTM (gates i, o, f, c; B = Wb ‖ Rb) over 3 steps with initial states, against the ONNX formulas:
// i = σ(Wi x + Ri h + bi), f = σ(…), c̃ = tanh(…), o = σ(…), c' = f·c + i·c̃, h' = o·tanh(c').
TEST(OnnxImportAudio, LstmUnrolledMatchesOnnxFormulas) {
  const int64_t T = 3, I = 2, H = 3;
  Graph gr(14);
  gr.io(true, "x", {T, 1, I});
  gr.io(true, "h0", {1, 1, H});
  gr.io(true, "c0", {1, 1, H});
  gr.io(false, "y", {T, 1, 1, H});
  gr.io(false, "yh", {1, 1, H});
  gr.io(false, "yc", {1, 1, H});
  const auto W = random_floats(4 * H * I, 41), R = random_floats(4 * H * H, 42), B = random_floats(8 * H, 43);
  gr.init("W", {1, 4 * H, I}, W);
  gr.init("R", {1, 4 * H, H}, R);
  gr.init("B", {1, 8 * H}, B);
  int1(gr.node("LSTM", {"x", "W", "R", "B", "", "h0", "c0"}, {"y", "yh", "yc"}), "hidden_size", H);
  const auto x = random_floats(T * I, 44), h0 = random_floats(H, 45), c0 = random_floats(H, 46);
  const auto imp = import_ok(gr);
  const auto got = run_all(imp, {{{T, 1, I}, x}, {{1, 1, H}, h0}, {{1, 1, H}, c0}});
  ASSERT_EQ(got.size(), 3u);
  auto sig = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
  std::vector<double> h(h0.begin(), h0.end()), c(c0.begin(), c0.end());
  std::vector<float> want_y;
  for (int64_t t = 0; t < T; ++t) {
    std::vector<double> gate[4];  // i, o, f, c
    for (int g = 0; g < 4; ++g)
      for (int64_t u = 0; u < H; ++u) {
        double a = B[g * H + u] + B[(4 + g) * H + u];
        for (int64_t k = 0; k < I; ++k) a += W[(g * H + u) * I + k] * x[t * I + k];
        for (int64_t k = 0; k < H; ++k) a += R[(g * H + u) * H + k] * h[k];
        gate[g].push_back(a);
      }
    for (int64_t u = 0; u < H; ++u) {
      c[u] = sig(gate[2][u]) * c[u] + sig(gate[0][u]) * std::tanh(gate[3][u]);
      h[u] = sig(gate[1][u]) * std::tanh(c[u]);
    }
    want_y.insert(want_y.end(), h.begin(), h.end());
  }
  expect_near_all(got[0], want_y, 1e-5f);
  expect_near_all(got[1], std::vector<float>(h.begin(), h.end()), 1e-5f);
  expect_near_all(got[2], std::vector<float>(c.begin(), c.end()), 1e-5f);
  const auto types = op_types(imp.model);
  EXPECT_EQ(std::count(types.begin(), types.end(), OperationType::LSTM), T);
}

// Silero's top level: If(Equal(sr, 16000)) with a branch per sample rate. Bound at import, the taken
// branch is inlined; unbound, the int64 input is an error saying how to bind it; a condition computed
// from a runtime tensor is an error too.
TEST(OnnxImportAudio, IfOnABoundInputInlinesTheTakenBranch) {
  Graph gr(16);
  gr.io(true, "x", {1, 4});
  gr.io(true, "sr", {}, 7);
  gr.io(false, "y", {1, 4});
  gr.init_i64("k16", {16000});
  gr.node("Equal", {"sr", "k16"}, {"is16"});
  auto* n = gr.node("If", {"is16"}, {"y"}, "by_rate");
  for (const auto& [branch, factor] :
       {std::pair<std::string, float>{"then_branch", 2.0f}, {"else_branch", 3.0f}}) {
    auto* a = n->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* g = a->mutable_g();
    g->set_name(branch);
    auto* k = g->add_initializer();
    k->set_name(branch + "_k");
    k->set_data_type(1);
    k->add_float_data(factor);
    auto* mul = g->add_node();
    mul->set_op_type("Mul");
    mul->add_input("x");
    mul->add_input(branch + "_k");
    mul->add_output(branch + "_y");
    g->add_output()->set_name(branch + "_y");
  }
  const std::vector<float> x = {1, -2, 3, 0.5f};
  for (const auto& [rate, factor] : {std::pair<double, float>{16000, 2.0f}, {8000, 3.0f}}) {
    npu::models::OnnxImportOptions opt;
    ASSERT_TRUE(npu::models::parse_input_value("sr=" + std::to_string(static_cast<int>(rate)), &opt).ok());
    const auto imp = import_ok(gr, opt);
    ASSERT_EQ(imp.model.main.input_indexes.size(), 1u);  // sr is a constant now
    const auto got = run_all(imp, {{{1, 4}, x}});
    ASSERT_EQ(got.size(), 1u);
    std::vector<float> want;
    for (float v : x) want.push_back(v * factor);
    expect_near_all(got[0], want, 1e-6f);
  }
  auto unbound = npu::models::import_onnx_bytes(gr.bytes(), "vad.onnx");
  ASSERT_FALSE(unbound.ok());
  EXPECT_EQ(
      unbound.error(),
      "vad.onnx: graph input 'sr': element type int64 is not supported for a runtime input; bind its value "
      "at import (--input-value sr=V)");
  // The same If on a float comparison of the runtime x: not foldable.
  Graph rt = gr;
  rt.g()->mutable_node(0)->set_input(0, "x");
  rt.g()->mutable_node(0)->set_input(1, "x");
  npu::models::OnnxImportOptions opt;
  ASSERT_TRUE(npu::models::parse_input_value("sr=16000", &opt).ok());
  auto r = npu::models::import_onnx_bytes(rt.bytes(), "vad.onnx", opt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("node 0 'Equal1' (Equal): operator Equal is not supported"), std::string::npos)
      << r.error();
}

// Reflect padding (GATHER) and a reversing Slice (negative step, end before index 0), as Silero pads its
// input and its normalisation window.
TEST(OnnxImportAudio, ReflectPadAndReversingSliceMatchNumpy) {
  Graph gr(13);
  gr.io(true, "x", {1, 1, 5});
  gr.io(false, "y", {1, 1, 8});
  gr.init_i64("pads", {0, 0, 2, 0, 0, 2});
  gr.init_i64("starts", {-2});
  gr.init_i64("ends", {-9223372036854775807});
  gr.init_i64("axes", {2});
  gr.init_i64("steps", {-1});
  str1(gr.node("Pad", {"x", "pads"}, {"p"}), "mode", "reflect");
  gr.node("Slice", {"p", "starts", "ends", "axes", "steps"}, {"y"});
  const std::vector<float> x = {1, 2, 3, 4, 5};
  // padded: [3 2 1 2 3 4 5 4 3]; from index 9 − 2 = 7 down to 0: [4 5 4 3 2 1 2 3].
  expect_near_all(run_imported(gr, {1, 1, 5}, x), {4, 5, 4, 3, 2, 1, 2, 3}, 0.0f);
}

TEST(OnnxImportAudio, SymbolicDimensionsTellHowToBindThem) {
  Graph gr(13);
  auto* vi = gr.g()->add_input();
  vi->set_name("audio");
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(1);
  tt->mutable_shape()->add_dim()->set_dim_value(1);
  tt->mutable_shape()->add_dim()->set_dim_param("samples");
  gr.io(false, "y", {1, 1, 4});
  gr.init("w", {1, 1, 8}, random_floats(8, 51));
  gr.init_i64("ax", {1});
  gr.node("Unsqueeze", {"audio", "ax"}, {"u"});
  ints(gr.node("Conv", {"u", "w"}, {"y"}, "stft"), "strides", {4});
  auto r = npu::models::import_onnx_bytes(gr.bytes(), "mel.onnx");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.error(),
      "mel.onnx: node 1 'stft' (Conv): the window is larger than the padded input (symbolic input dimensions "
      "were taken as 1: 'audio' dimension 1 ('samples'); bind them with --shape NAME=AxB)");
  npu::models::OnnxImportOptions opt;
  ASSERT_TRUE(npu::models::parse_input_shape("audio=1x20", &opt).ok());
  const auto imp = import_ok(gr, opt);
  EXPECT_EQ(imp.model.main.operands[imp.model.main.input_indexes[0]].dimensions,
            (std::vector<uint32_t>{1, 20}));
  EXPECT_EQ(npu::models::parse_input_shape("audio=1xq", &opt).error(),
            "--shape audio=1xq: 'q' is not a number");
  EXPECT_EQ(npu::models::parse_input_value("sr", &opt).error(), "--input-value 'sr': expected NAME=VALUE");
}

}  // namespace
