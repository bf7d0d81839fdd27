// The CPU reference's quantised CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED (an integer GEMM over
// im2col rows, a vectorised depthwise loop) against the per-element definition of conv_2d.h written out
// here as plain loops: random shapes with explicit padding, strides, dilations, NCHW, batches, depth
// multipliers, uint8 / int8 inputs, uint8 / int8 / per-channel filters, zero points at both ends of their
// range and every fused activation. Results must match exactly.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "npu/common/fixed_point.h"
#include "npu/hal/ops/quant_math.h"
#include "op_test_util.h"

namespace npu::hal::ops::test {
namespace {

struct Quant {
  OperandType type;
  float scale;
  int32_t zp;
};

int32_t pick(std::mt19937& rng, std::initializer_list<int32_t> v) {
  std::uniform_int_distribution<size_t> d(0, v.size() - 1);
  return *(v.begin() + d(rng));
}

int32_t lo_of(OperandType t) { return t == Q8 ? 0 : -128; }

std::vector<int32_t> random_values(std::mt19937& rng, size_t n, OperandType t) {
  std::uniform_int_distribution<int32_t> d(lo_of(t), lo_of(t) + 255);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

int32_t requant(int64_t acc64, int32_t bias, float in_scale, float f_scale, const Quant& out, int32_t act) {
  const auto acc =
      static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(acc64) + static_cast<uint32_t>(bias)));
  const int32_t qmin = out.type == Q8 ? 0 : -128;
  const fx::ClampRange r = fx::quantized_activation_range(static_cast<fx::FusedActivation>(act), out.scale,
                                                          out.zp, qmin, qmin + 255);
  const int32_t v =
      fx::multiply_by_quantized_multiplier(acc, conv_multiplier(in_scale, f_scale, out.scale)) + out.zp;
  return std::clamp(v, r.lo, r.hi);
}

Quant random_activation(std::mt19937& rng, OperandType t) {
  return {t, 0.5f, t == Q8 ? pick(rng, {0, 128, 255, 3}) : pick(rng, {-128, 0, 127, -5})};
}

// CONV_2D (per_channel_dim 0) or DEPTHWISE_CONV_2D (dim 3) with explicit padding and every option; false
// when the drawn filter does not fit the padded input (nothing checked).
bool check_conv(std::mt19937& rng, bool depthwise, int round) {
  std::uniform_int_distribution<uint32_t> small(1, 3), size(1, 9), chan(1, 20), two(0, 1), pad(0, 2);
  const OperandType t = two(rng) ? Q8 : S8;
  const uint32_t n = small(rng) == 3 ? 2 : 1, h = size(rng), w = size(rng), ic = chan(rng);
  const uint32_t mult = depthwise ? small(rng) : 1;
  const uint32_t oc = depthwise ? ic * mult : chan(rng) * (two(rng) ? 3 : 1);
  const uint32_t fh = small(rng), fw = small(rng), sh = 1 + two(rng), sw = 1 + two(rng);
  const uint32_t dh = 1 + two(rng), dw = 1 + two(rng), pl = pad(rng), pr = pad(rng), pt = pad(rng),
                 pb = pad(rng);
  const bool nchw = two(rng) == 1;
  const int64_t span_h = int64_t{h} + pt + pb - ((fh - 1) * dh + 1),
                span_w = int64_t{w} + pl + pr - ((fw - 1) * dw + 1);
  if (span_h < 0 || span_w < 0) return false;
  const uint32_t oh = static_cast<uint32_t>(span_h / sh + 1), ow = static_cast<uint32_t>(span_w / sw + 1);
  const int32_t act = static_cast<int32_t>(std::uniform_int_distribution<int>(0, 3)(rng));
  const bool per_channel = pick(rng, {0, 1, 2}) == 2;
  const OperandType ft =
      per_channel ? OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL : t;  // NNAPI: as the input
  const Quant in_q = random_activation(rng, t);
  const Quant f_q{ft, 0.25f,
                  per_channel ? 0 : (ft == Q8 ? pick(rng, {0, 128, 255}) : pick(rng, {-128, 0, 127}))};
  const Quant out_q{t, pick(rng, {1, 3, 40}) * 1.0f,
                    t == Q8 ? pick(rng, {0, 100, 255}) : pick(rng, {-128, 7, 127})};
  std::vector<float> scales(oc);
  for (auto& s : scales) s = 0.25f * static_cast<float>(pick(rng, {1, 2, 3}));

  const std::vector<uint32_t> in_dims =
      nchw ? std::vector<uint32_t>{n, ic, h, w} : std::vector<uint32_t>{n, h, w, ic};
  const std::vector<uint32_t> out_dims =
      nchw ? std::vector<uint32_t>{n, oc, oh, ow} : std::vector<uint32_t>{n, oh, ow, oc};
  const std::vector<uint32_t> f_dims =
      depthwise ? std::vector<uint32_t>{1, fh, fw, oc} : std::vector<uint32_t>{oc, fh, fw, ic};
  const std::vector<int32_t> x = random_values(rng, size_t{n} * h * w * ic, t);
  std::vector<int32_t> f = random_values(rng, size_t{f_dims[0]} * fh * fw * f_dims[3], ft == Q8 ? Q8 : S8);
  std::vector<int32_t> bias(oc);
  for (auto& b : bias) b = std::uniform_int_distribution<int32_t>(-20000, 20000)(rng);

  GraphBuilder g;
  const uint32_t in = g.input(t, in_dims, in_q.scale, in_q.zp);
  const uint32_t fi =
      per_channel ? g.per_channel(f_dims, f, scales) : g.ints(ft, f_dims, f, f_q.scale, f_q.zp);
  const uint32_t bi = g.ints(I32, {oc}, bias, per_channel ? 0.0f : in_q.scale * f_q.scale);
  const uint32_t out = g.output(t, out_dims, out_q.scale, out_q.zp);
  std::vector<uint32_t> args{in,
                             fi,
                             bi,
                             g.i32(static_cast<int32_t>(pl)),
                             g.i32(static_cast<int32_t>(pr)),
                             g.i32(static_cast<int32_t>(pt)),
                             g.i32(static_cast<int32_t>(pb)),
                             g.i32(static_cast<int32_t>(sw)),
                             g.i32(static_cast<int32_t>(sh))};
  if (depthwise) args.push_back(g.i32(static_cast<int32_t>(mult)));
  args.push_back(g.i32(act));
  args.push_back(g.boolean(nchw));
  args.push_back(g.i32(static_cast<int32_t>(dw)));
  args.push_back(g.i32(static_cast<int32_t>(dh)));
  g.op(depthwise ? OperationType::DEPTHWISE_CONV_2D : OperationType::CONV_2D, args, {out});
  Model m = g.build();
  if (per_channel) m.main.operands[fi].per_channel->channel_dim = depthwise ? 3 : 0;

  auto x_at = [&](uint32_t b, uint32_t y, uint32_t xx, uint32_t c) {
    return nchw ? x[((size_t{b} * ic + c) * h + y) * w + xx] : x[((size_t{b} * h + y) * w + xx) * ic + c];
  };
  std::vector<int32_t> want(size_t{n} * oh * ow * oc);
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t oy = 0; oy < oh; ++oy)
      for (uint32_t ox = 0; ox < ow; ++ox)
        for (uint32_t o = 0; o < oc; ++o) {
          int64_t acc = 0;
          for (uint32_t ky = 0; ky < fh; ++ky)
            for (uint32_t kx = 0; kx < fw; ++kx) {
              const int64_t iy = int64_t{oy} * sh - pt + int64_t{ky} * dh;
              const int64_t ix = int64_t{ox} * sw - pl + int64_t{kx} * dw;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              const auto yy = static_cast<uint32_t>(iy), xx = static_cast<uint32_t>(ix);
              if (depthwise) {
                acc += int64_t{x_at(b, yy, xx, o / mult) - in_q.zp} *
                       (f[(size_t{ky} * fw + kx) * oc + o] - f_q.zp);
              } else {
                for (uint32_t c = 0; c < ic; ++c)
                  acc += int64_t{x_at(b, yy, xx, c) - in_q.zp} *
                         (f[((size_t{o} * fh + ky) * fw + kx) * ic + c] - f_q.zp);
              }
            }
          const size_t at =
              nchw ? ((size_t{b} * oc + o) * oh + oy) * ow + ox : ((size_t{b} * oh + oy) * ow + ox) * oc + o;
          want[at] = requant(acc, bias[o], in_q.scale, per_channel ? scales[o] : f_q.scale, out_q, act);
        }
  const Tensor got = run_single(m, int_tensor(t, in_dims, x, in_q.scale, in_q.zp));
  EXPECT_EQ(ints_of(got), want) << (depthwise ? "depthwise" : "conv") << " round " << round << ": n" << n
                                << " h" << h << " w" << w << " ic" << ic << " oc" << oc << " f" << fh << "x"
                                << fw << " s" << sh << sw << " d" << dh << dw << " nchw " << nchw
                                << " per_channel " << per_channel;
  return true;
}

TEST(QuantConvExact, Conv2DMatchesThePerElementDefinition) {
  std::mt19937 rng(17);
  int checked = 0;
  for (int i = 0; i < 150; ++i) checked += check_conv(rng, false, i);
  EXPECT_GT(checked, 100);
}

TEST(QuantConvExact, DepthwiseConv2DMatchesThePerElementDefinition) {
  std::mt19937 rng(23);
  int checked = 0;
  for (int i = 0; i < 150; ++i) checked += check_conv(rng, true, i);
  EXPECT_GT(checked, 100);
}

TEST(QuantConvExact, FullyConnectedMatchesThePerElementDefinition) {
  std::mt19937 rng(29);
  std::uniform_int_distribution<uint32_t> batch(1, 20), width(1, 90), two(0, 1);
  for (int round = 0; round < 100; ++round) {
    const OperandType t = two(rng) ? Q8 : S8;
    const uint32_t nb = batch(rng), n_in = width(rng), units = width(rng);
    const int32_t act = static_cast<int32_t>(std::uniform_int_distribution<int>(0, 3)(rng));
    const Quant in_q = random_activation(rng, t);
    const Quant w_q{t, 0.25f, t == Q8 ? pick(rng, {0, 128, 255}) : pick(rng, {-128, 0, 127})};
    const Quant out_q{t, pick(rng, {1, 3, 40}) * 1.0f,
                      t == Q8 ? pick(rng, {0, 100, 255}) : pick(rng, {-128, 7, 127})};
    const std::vector<int32_t> x = random_values(rng, size_t{nb} * n_in, t);
    const std::vector<int32_t> wv = random_values(rng, size_t{units} * n_in, t);
    std::vector<int32_t> bias(units);
    for (auto& b : bias) b = std::uniform_int_distribution<int32_t>(-20000, 20000)(rng);
    GraphBuilder g;
    const uint32_t in = g.input(t, {nb, n_in}, in_q.scale, in_q.zp);
    const uint32_t wi = g.ints(t, {units, n_in}, wv, w_q.scale, w_q.zp);
    const uint32_t bi = g.ints(I32, {units}, bias, in_q.scale * w_q.scale);
    const uint32_t out = g.output(t, {nb, units}, out_q.scale, out_q.zp);
    g.op(OperationType::FULLY_CONNECTED, {in, wi, bi, g.i32(act)}, {out});
    std::vector<int32_t> want(size_t{nb} * units);
    for (uint32_t b = 0; b < nb; ++b)
      for (uint32_t u = 0; u < units; ++u) {
        int64_t acc = 0;
        for (uint32_t i = 0; i < n_in; ++i)
          acc += int64_t{x[size_t{b} * n_in + i] - in_q.zp} * (wv[size_t{u} * n_in + i] - w_q.zp);
        want[size_t{b} * units + u] = requant(acc, bias[u], in_q.scale, w_q.scale, out_q, act);
      }
    const Tensor got = run_single(g.build(), int_tensor(t, {nb, n_in}, x, in_q.scale, in_q.zp));
    EXPECT_EQ(ints_of(got), want) << "fc round " << round << ": batch " << nb << " in " << n_in << " units "
                                  << units;
  }
}

}  // namespace
}  // namespace npu::hal::ops::test
