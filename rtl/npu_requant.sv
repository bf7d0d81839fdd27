// npu_requant: requantisation of one output lane, 3 pipeline stages (result valid 3 cycles after the
// inputs), bit-exact with TFLite/NNAPI MultiplyByQuantizedMultiplier as npu::fx implements it:
//   stage 1: x = acc + bias - corr;  x = sat32(x << max(shift, 0))
//   stage 2: y = SaturatingRoundingDoublingHighMul(x, multiplier)   (64-bit product, C++ rounding:
//            nudge +2^30 / 1-2^30, then division by 2^31 truncating toward zero)
//   stage 3: z = RoundingDivideByPOT(y, max(-shift, 0)) + zero_point, clamped to [lo, hi]; byte = z[7:0]
// The byte is the uint8 or the int8 encoding of z alike: which one is meant is fixed by [lo, hi].
// Range assumptions (those npu::fx::quantize_multiplier produces): shift >= -31 (right shifts beyond 31
// are treated as 31); left shifts >= 32 saturate any non-zero value, as the reference's clamp does.
// No valid/reset here: the caller pipelines the row's valid tag alongside (3 cycles).
module npu_requant (
    input  logic               clk,
    input  logic signed [31:0] acc,
    input  logic signed [31:0] bias,
    input  logic signed [31:0] corr,
    input  logic signed [31:0] multiplier,
    input  logic signed [31:0] shift,
    input  logic signed [31:0] zero_point,
    input  logic signed [31:0] clamp_lo,
    input  logic signed [31:0] clamp_hi,
    output logic        [ 7:0] out_byte
);
  localparam logic signed [31:0] I32_MAX = 32'sh7fff_ffff;
  localparam logic signed [31:0] I32_MIN = 32'sh8000_0000;

  // ---- stage 1: bias and weight-offset correction, saturating left shift ----
  logic signed [31:0] x0;
  logic signed [63:0] x0_wide, x0_shl;
  logic signed [31:0] x1_d;
  logic left_big;

  assign x0 = acc + bias - corr;
  assign x0_wide = 64'(x0);
  assign left_big = shift > 32'sd31;
  assign x0_shl = x0_wide <<< (shift > 0 ? shift[4:0] : 5'd0);

  always_ff @(posedge clk) begin
    if (left_big) x1_d <= x0 == 0 ? 32'sd0 : (x0 < 0 ? I32_MIN : I32_MAX);
    else if (x0_shl > 64'(I32_MAX)) x1_d <= I32_MAX;
    else if (x0_shl < 64'(I32_MIN)) x1_d <= I32_MIN;
    else x1_d <= x0_shl[31:0];
  end

  // ---- stage 2: saturating rounding doubling high multiply ----
  logic signed [63:0] ab, ab_nudged;
  logic signed [31:0] q, y2_d;
  logic both_min;

  assign both_min = x1_d == I32_MIN && multiplier == I32_MIN;
  assign ab = 64'(x1_d) * 64'(multiplier);
  assign ab_nudged = ab + (ab >= 0 ? 64'sd1073741824 : -64'sd1073741823);
  // Division by 2^31 truncating toward zero (C++ semantics), not flooring as >>> does.
  // Only both_min can overflow 32 bits, so bits [62:31] are the floored quotient.
  assign q = ab_nudged[62:31] + ((ab_nudged < 0 && ab_nudged[30:0] != 31'd0) ? 32'sd1 : 32'sd0);

  always_ff @(posedge clk) y2_d <= both_min ? I32_MAX : q;

  // ---- stage 3: rounding divide by power of two, zero point, clamp ----
  logic [4:0] right;
  logic signed [31:0] mask, remainder, threshold, rounded, z;

  assign right = shift >= 0 ? 5'd0 : (shift < -32'sd31 ? 5'd31 : 5'(-shift));
  assign mask = (32'sd1 <<< right) - 32'sd1;
  assign remainder = y2_d & mask;
  assign threshold = (mask >>> 1) + (y2_d < 0 ? 32'sd1 : 32'sd0);
  assign rounded = (y2_d >>> right) + (remainder > threshold ? 32'sd1 : 32'sd0);
  assign z = rounded + zero_point;

  always_ff @(posedge clk) begin
    if (z < clamp_lo) out_byte <= clamp_lo[7:0];
    else if (z > clamp_hi) out_byte <= clamp_hi[7:0];
    else out_byte <= z[7:0];
  end
endmodule
