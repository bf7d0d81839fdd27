#include "anchor_layers.h"

#include <charconv>
#include <fstream>
#include <sstream>

#include "npu/models/builder.h"

namespace npu::anchor {
namespace {

constexpr const char* kColumns[] = {"name",
                                    "ifmap_h",
                                    "ifmap_w",
                                    "filt_h",
                                    "filt_w",
                                    "channels",
                                    "num_filters",
                                    "stride",
                                    "ofmap_h",
                                    "ofmap_w",
                                    "gemm_M",
                                    "gemm_K",
                                    "gemm_N",
                                    "macs",
                                    "ideal_cycles_32x32",
                                    "scalesim_v2_ws_cycles_32x32",
                                    "scalesim_v2_os_cycles_32x32"};
constexpr size_t kColumnCount = sizeof kColumns / sizeof kColumns[0];

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace

Result<std::vector<AnchorLayer>> read_anchor_layers(const std::string& csv_path) {
  std::ifstream in(csv_path);
  if (!in) return make_error(csv_path + ": cannot read");
  std::string line;
  if (!std::getline(in, line)) return make_error(csv_path + ": empty (expected a header line)");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const auto header = split(line);
  if (header.size() != kColumnCount)
    return make_error(csv_path + ":1: expected " + std::to_string(kColumnCount) + " columns");
  for (size_t c = 0; c < kColumnCount; ++c)
    if (header[c] != kColumns[c])
      return make_error(csv_path + ":1: column " + std::to_string(c + 1) + " is \"" + header[c] +
                        "\", expected \"" + kColumns[c] + "\"");
  std::vector<AnchorLayer> layers;
  for (int number = 2; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto cells = split(line);
    const std::string where = csv_path + ":" + std::to_string(number) + ": ";
    if (cells.size() != kColumnCount)
      return make_error(where + std::to_string(cells.size()) + " cells, expected " +
                        std::to_string(kColumnCount));
    uint64_t v[kColumnCount] = {};
    for (size_t c = 1; c < kColumnCount; ++c) {
      const auto& s = cells[c];
      const auto r = std::from_chars(s.data(), s.data() + s.size(), v[c]);
      if (r.ec != std::errc() || r.ptr != s.data() + s.size() || (c <= 9 && (v[c] == 0 || v[c] > 65536)))
        return make_error(where + kColumns[c] + " \"" + s + "\" is not a positive integer" +
                          (c <= 9 ? " up to 65536" : ""));
    }
    AnchorLayer l;
    l.name = cells[0];
    l.ifmap_h = static_cast<uint32_t>(v[1]);
    l.ifmap_w = static_cast<uint32_t>(v[2]);
    l.filt_h = static_cast<uint32_t>(v[3]);
    l.filt_w = static_cast<uint32_t>(v[4]);
    l.channels = static_cast<uint32_t>(v[5]);
    l.num_filters = static_cast<uint32_t>(v[6]);
    l.stride = static_cast<uint32_t>(v[7]);
    l.ofmap_h = static_cast<uint32_t>(v[8]);
    l.ofmap_w = static_cast<uint32_t>(v[9]);
    l.gemm_m = v[10];
    l.gemm_k = v[11];
    l.gemm_n = v[12];
    l.macs = v[13];
    l.ideal_cycles = v[14];
    l.scalesim_ws = v[15];
    l.scalesim_os = v[16];
    // The derived columns must follow from the shape under SCALE-Sim's conventions.
    auto check = [&](const char* column, uint64_t got, uint64_t want) -> Result<void> {
      if (got == want) return {};
      return make_error(where + column + " is " + std::to_string(got) + ", the shape gives " +
                        std::to_string(want));
    };
    if (l.filt_h > l.ifmap_h || l.filt_w > l.ifmap_w)
      return make_error(where + "filter larger than the input map");
    for (auto r :
         {check("ofmap_h", l.ofmap_h, ceil_div(l.ifmap_h - l.filt_h + l.stride, l.stride)),
          check("ofmap_w", l.ofmap_w, ceil_div(l.ifmap_w - l.filt_w + l.stride, l.stride)),
          check("gemm_M", l.gemm_m, uint64_t{l.ofmap_h} * l.ofmap_w),
          check("gemm_K", l.gemm_k, uint64_t{l.filt_h} * l.filt_w * l.channels),
          check("gemm_N", l.gemm_n, l.num_filters), check("macs", l.macs, l.gemm_m * l.gemm_k * l.gemm_n),
          check("ideal_cycles_32x32", l.ideal_cycles, ceil_div(l.macs, 1024))})
      if (!r) return make_error(r.error());
    layers.push_back(std::move(l));
  }
  if (layers.empty()) return make_error(csv_path + ": no layers");
  return layers;
}

namespace {

// Adds the layer to `b` and marks its output.
void add_layer(models::ModelBuilder& b, const AnchorLayer& l) {
  using models::OperandType;
  const models::QuantParams in_q{0.02f, 128}, w_q{0.01f, 120}, out_q{0.05f, 100};
  if (l.fully_connected()) {
    const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, l.channels}, in_q);
    b.mark_output(b.fully_connected(x, l.num_filters, fx::FusedActivation::NONE, w_q, out_q));
    return;
  }
  // The rows and columns the CSV's outputs read (see the header): VALID then gives ofmap_h × ofmap_w.
  const uint32_t h = (l.ofmap_h - 1) * l.stride + l.filt_h, w = (l.ofmap_w - 1) * l.stride + l.filt_w;
  const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, h, w, l.channels}, in_q);
  b.mark_output(b.conv_2d(x, l.num_filters, l.filt_h, l.filt_w, /*VALID*/ 2, l.stride,
                          fx::FusedActivation::NONE, w_q, out_q));
}

}  // namespace

models::Model anchor_model(const AnchorLayer& layer, uint64_t seed, bool omit_weights) {
  models::ModelBuilder b(seed, {models::WeightInit::Legacy, omit_weights});
  add_layer(b, layer);
  return b.take();
}

models::Model anchor_batch_model(const std::vector<AnchorLayer>& layers, uint64_t seed, bool omit_weights) {
  models::ModelBuilder b(seed, {models::WeightInit::Legacy, omit_weights});
  for (const auto& l : layers) add_layer(b, l);
  return b.take();
}

const char* to_string(Memory m) { return m == Memory::IDEAL_DRAM ? "ideal-dram" : "ideal-memory"; }

std::vector<std::string> near_ideal_overrides(Memory m) {
  std::vector<std::string> sets = {"npu.channels=1", "npu.channel.array.rows=32", "npu.channel.array.cols=32",
                                   "npu.dram.bandwidth_gbps=10000", "npu.dram.latency_ns=0"};
  if (m == Memory::IDEAL_MEMORY) {
    sets.push_back("npu.channel.dma.bytes_per_cycle=1024");
    sets.push_back("npu.channel.sram.banks=64");
  }
  return sets;
}

}  // namespace npu::anchor
