// npu_systolic_array: ROWS x COLS weight-stationary int8 MAC array with input skew, a row-sum column
// and output deskew.
//
// Weight-stationary (not output-stationary) because the ComputeCore contract fixes the reduction
// extent held per load (a K chunk of ROWS) and the output-channel extent (N <= COLS), while M is
// unbounded: weights are loaded once per chunk and any number of activation rows stream past them,
// one row per cycle. Output-stationary would have to bound M by the array height and re-stream W.
//
// Dataflow (cycle numbers relative to the cycle T in which a_vec holds activation row m):
//   lane r of a_vec is delayed r cycles, so PE[r][c] sees a[m][r] in cycle T + r + c;
//   the partial sum of column c leaves the bottom row in cycle T + ROWS + c;
//   column COLS is an extra adder-only column (weight 1) producing sum_r a[m][r], used for the
//   weight_offset correction, in cycle T + ROWS + COLS;
//   column c is then delayed COLS - c cycles so all COLS + 1 results of row m are aligned in
//   sum_vec in cycle T + ROWS + COLS (the controller delays the row's tag by the same amount).
// Weights: w_row_we[r] writes w_row into row r, bank w_bank, at the next clock edge.
//
// Not modelled here: valid tracking (done by the controller's tag pipeline) and lane masking
// (callers present zeros for activation lanes >= kc and weight lanes >= n).
module npu_systolic_array #(
    parameter int ROWS = 16,
    parameter int COLS = 16
) (
    input  logic                      clk,
    input  logic [        ROWS*8-1:0] a_vec,
    input  logic                      a_bank,
    input  logic [          ROWS-1:0] w_row_we,
    input  logic                      w_bank,
    input  logic [        COLS*8-1:0] w_row,
    output logic [(COLS+1)*32-1:0]    sum_vec
);
  // Horizontal (activation, bank) nets: a_h[r][c] feeds PE[r][c]; a_h[r][COLS] feeds the row-sum column.
  logic signed [7:0] a_h[ROWS][COLS+1];
  logic bank_h[ROWS][COLS+1];
  // Vertical partial sums: psum_v[r][c] enters PE[r][c] from above; psum_v[ROWS][c] leaves the array.
  logic signed [31:0] psum_v[ROWS+1][COLS];
  logic signed [31:0] rsum_v[ROWS+1];

  // Input skew: lane r delayed r cycles.
  for (genvar r = 0; r < ROWS; r++) begin : g_skew
    if (r == 0) begin : g_direct
      assign a_h[0][0]    = a_vec[7:0];
      assign bank_h[0][0] = a_bank;
    end else begin : g_delay
      logic [7:0] sr_a[r];
      logic sr_b[r];
      always_ff @(posedge clk) begin
        sr_a[0] <= a_vec[8*r+:8];
        sr_b[0] <= a_bank;
        for (int i = 1; i < r; i++) begin
          sr_a[i] <= sr_a[i-1];
          sr_b[i] <= sr_b[i-1];
        end
      end
      assign a_h[r][0]    = sr_a[r-1];
      assign bank_h[r][0] = sr_b[r-1];
    end
  end

  for (genvar c = 0; c < COLS; c++) begin : g_top
    assign psum_v[0][c] = '0;
  end
  assign rsum_v[0] = '0;

  for (genvar r = 0; r < ROWS; r++) begin : g_row
    for (genvar c = 0; c < COLS; c++) begin : g_col
      npu_pe u_pe (
          .clk     (clk),
          .a_in    (a_h[r][c]),
          .bank_in (bank_h[r][c]),
          .psum_in (psum_v[r][c]),
          .w_we    (w_row_we[r]),
          .w_bank  (w_bank),
          .w_data  (w_row[8*c+:8]),
          .a_out   (a_h[r][c+1]),
          .bank_out(bank_h[r][c+1]),
          .psum_out(psum_v[r+1][c])
      );
    end
    // Row-sum column: an adder-only PE with weight 1; the bank tag is not needed past here.
    always_ff @(posedge clk) rsum_v[r+1] <= rsum_v[r] + 32'(a_h[r][COLS]);
  end

  // The bank tags leaving the last column are not needed: only the PEs use them.
  /* verilator lint_off UNUSEDSIGNAL */
  logic unused_bank;
  /* verilator lint_on UNUSEDSIGNAL */
  always_comb begin
    unused_bank = 1'b0;
    for (int r = 0; r < ROWS; r++) unused_bank = unused_bank ^ bank_h[r][COLS];
  end

  // Output deskew: column c delayed COLS - c cycles; the row-sum column needs none.
  for (genvar c = 0; c < COLS; c++) begin : g_deskew
    localparam int D = COLS - c;
    logic [31:0] ds[D];
    always_ff @(posedge clk) begin
      ds[0] <= psum_v[ROWS][c];
      for (int i = 1; i < D; i++) ds[i] <= ds[i-1];
    end
    assign sum_vec[32*c+:32] = ds[D-1];
  end
  assign sum_vec[32*COLS+:32] = rsum_v[ROWS];
endmodule
