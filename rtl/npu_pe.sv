// npu_pe: one processing element of the weight-stationary systolic array (npu_systolic_array).
//
// Holds two int8 weights (banks 0 and 1) so the tile controller can load the next K chunk's weights
// while the current chunk is still streaming; each activation carries the bank it must be multiplied
// with, which travels with it (right) so a chunk boundary moves through the array as a wavefront.
// Every cycle: a_out <= a_in, psum_out <= psum_in + a_in * w[bank_in].
//
// No reset on purpose: none of these registers carries control meaning. Bubbles are zero activations,
// so whatever stale weight they meet adds 0, and the controller tags valid rows outside the array.
module npu_pe (
    input  logic               clk,
    input  logic signed [ 7:0] a_in,
    input  logic               bank_in,
    input  logic signed [31:0] psum_in,
    input  logic               w_we,
    input  logic               w_bank,
    input  logic signed [ 7:0] w_data,
    output logic signed [ 7:0] a_out,
    output logic               bank_out,
    output logic signed [31:0] psum_out
);
  // Two named registers rather than an array indexed by w_bank: Verilator turns a variably indexed
  // non-blocking array write into per-element flags, measurably slower across 256 PEs.
  logic signed [7:0] w0, w1, w_sel;
  logic signed [15:0] prod;

  // int8 x int8 always fits in 16 bits; the casts make the sign extension explicit.
  assign w_sel = bank_in ? w1 : w0;
  assign prod  = 16'(a_in) * 16'(w_sel);

  always_ff @(posedge clk) begin
    if (w_we && !w_bank) w0 <= w_data;
    if (w_we && w_bank) w1 <= w_data;
    a_out    <= a_in;
    bank_out <= bank_in;
    psum_out <= psum_in + 32'(prod);
  end
endmodule
