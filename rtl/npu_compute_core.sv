// npu_compute_core: the RTL compute core of one execution channel. Executes one Int8TileCommand
// (sim/include/npu/sim/core/compute_core.h) against SRAM-like ports:
//   out[M x N] = requant(A[M x K] . W[K x N] + bias - weight_offset * rowsum(A)),  N <= COLS.
//
// Microarchitecture (docs/rtl.md has the picture and the cycle formula):
//   npu_tile_controller  passes = (block of <= ACC_DEPTH rows) x (K chunk of <= ROWS), double-buffered
//                        weights, one activation row request per cycle;
//   activation capture   the answered row, lanes >= kc forced to zero (so stale weights add nothing);
//   npu_systolic_array   ROWS x COLS weight-stationary MACs + a row-sum column, aligned output row;
//   accumulator          ACC_DEPTH x (COLS + 1) int32 register file: the first chunk of a block
//                        writes, later chunks add, the last chunk bypasses it into requantisation;
//   npu_requant x COLS   bias, weight_offset correction, TFLite requantisation, clamp, byte.
//
// Memory ports: every request (x_rd_en/x_rd_addr/...) is a register; the memory answers within the
// cycle the request is visible and the core samples the data at the next clock edge (a synchronous
// SRAM whose address register lives here). Addresses are byte offsets from the operand's base; a read
// returns the a_rd_bytes / w_rd_bytes bytes from there in the low lanes (little-endian: lane i is
// bits [8i+7:8i]); lanes beyond are ignored. o_wr_* are registered writes of o_wr_bytes bytes.
// p_rd_* returns channel p_rd_idx's bias, multiplier and shift (32-bit each).
//
// Handshake: assert start for one cycle while busy is low; done rises when the last output row has
// been written and stays high until the next start.
// Not modelled: the command-register bus, error reporting (bad commands are rejected by software),
// fp16, and power (counted by the TLM power model from the same tile shapes).
module npu_compute_core #(
    parameter int ROWS      = 16,
    parameter int COLS      = 16,
    parameter int ACC_DEPTH = 256,
    localparam int KBW = $clog2(ROWS + 1),
    localparam int NBW = $clog2(COLS + 1),
    localparam int RW  = $clog2(ROWS),
    localparam int CW  = $clog2(COLS),
    localparam int AW  = $clog2(ACC_DEPTH)
) (
    input  logic                 clk,
    input  logic                 rst_n,
    // command
    input  logic                 start,
    input  logic [         31:0] cmd_m,
    input  logic [         31:0] cmd_k,
    input  logic [         31:0] cmd_n,
    input  logic [         31:0] cmd_lda,
    input  logic [         31:0] cmd_ldw,
    input  logic [         31:0] cmd_ldo,
    input  logic [         31:0] cmd_weight_offset,
    input  logic [         31:0] cmd_out_zero_point,
    input  logic [         31:0] cmd_clamp_lo,
    input  logic [         31:0] cmd_clamp_hi,
    output logic                 busy,
    output logic                 done,
    // activations A (M x K int8, row stride cmd_lda)
    output logic                 a_rd_en,
    output logic [         31:0] a_rd_addr,
    output logic [      KBW-1:0] a_rd_bytes,
    input  logic [  ROWS*8-1:0]  a_rd_data,
    // weights W (K x N int8, row stride cmd_ldw)
    output logic                 w_rd_en,
    output logic [         31:0] w_rd_addr,
    output logic [      NBW-1:0] w_rd_bytes,
    input  logic [  COLS*8-1:0]  w_rd_data,
    // per-channel parameters
    output logic                 p_rd_en,
    output logic [       CW-1:0] p_rd_idx,
    input  logic [         31:0] p_rd_bias,
    input  logic [         31:0] p_rd_mult,
    input  logic [         31:0] p_rd_shift,
    // outputs (M x N bytes, row stride cmd_ldo)
    output logic                 o_wr_en,
    output logic [         31:0] o_wr_addr,
    output logic [      NBW-1:0] o_wr_bytes,
    output logic [  COLS*8-1:0]  o_wr_data
);
  localparam int D = ROWS + COLS;  // array latency from capture to the aligned output row

  // ---------------- command registers used past the controller ----------------
  logic [31:0] ldo_q, wo_q, zp_q, lo_q, hi_q;
  always_ff @(posedge clk) begin
    if (start && !busy) begin
      ldo_q <= cmd_ldo;
      wo_q  <= cmd_weight_offset;
      zp_q  <= cmd_out_zero_point;
      lo_q  <= cmd_clamp_lo;
      hi_q  <= cmd_clamp_hi;
    end
  end

  // ---------------- controller ----------------
  logic [NBW-1:0] n_eff;
  logic a_tag_bank, a_tag_first, a_tag_last;
  logic [AW-1:0] a_tag_acc;
  logic [31:0] a_tag_row;
  logic [RW-1:0] w_tag_row;
  logic w_tag_bank;
  logic pipe_busy;

  npu_tile_controller #(
      .ROWS     (ROWS),
      .COLS     (COLS),
      .ACC_DEPTH(ACC_DEPTH)
  ) u_ctrl (
      .clk        (clk),
      .rst_n      (rst_n),
      .start      (start),
      .cmd_m      (cmd_m),
      .cmd_k      (cmd_k),
      .cmd_n      (cmd_n),
      .cmd_lda    (cmd_lda),
      .cmd_ldw    (cmd_ldw),
      .pipe_busy  (pipe_busy),
      .busy       (busy),
      .done       (done),
      .n_eff      (n_eff),
      .a_rd_en    (a_rd_en),
      .a_rd_addr  (a_rd_addr),
      .a_rd_bytes (a_rd_bytes),
      .a_tag_bank (a_tag_bank),
      .a_tag_first(a_tag_first),
      .a_tag_last (a_tag_last),
      .a_tag_acc  (a_tag_acc),
      .a_tag_row  (a_tag_row),
      .w_rd_en    (w_rd_en),
      .w_rd_addr  (w_rd_addr),
      .w_tag_row  (w_tag_row),
      .w_tag_bank (w_tag_bank),
      .p_rd_en    (p_rd_en),
      .p_rd_idx   (p_rd_idx)
  );
  assign w_rd_bytes = n_eff;
  assign o_wr_bytes = n_eff;

  // ---------------- per-channel parameters ----------------
  logic [31:0] bias_r[COLS], mult_r[COLS], shift_r[COLS];
  always_ff @(posedge clk) begin
    if (p_rd_en) begin
      bias_r[p_rd_idx]  <= p_rd_bias;
      mult_r[p_rd_idx]  <= p_rd_mult;
      shift_r[p_rd_idx] <= p_rd_shift;
    end
  end

  // ---------------- weight load: straight from the read data into PE row w_tag_row ----------------
  logic [ROWS-1:0] w_row_we;
  logic [COLS*8-1:0] w_row;
  always_comb begin
    for (int r = 0; r < ROWS; r++) w_row_we[r] = w_rd_en && w_tag_row == RW'(r);
    for (int c = 0; c < COLS; c++) w_row[8*c+:8] = NBW'(c) < n_eff ? w_rd_data[8*c+:8] : 8'd0;
  end

  // ---------------- activation capture ----------------
  typedef struct packed {
    logic          valid;
    logic          first;
    logic          last;
    logic [AW-1:0] acc;
    logic [31:0]   row;
  } row_tag_t;

  logic [ROWS*8-1:0] cap_vec;
  logic cap_bank;
  row_tag_t cap_tag;
  always_ff @(posedge clk) begin
    // Idle cycles become zero activations: bubbles then add nothing wherever they meet a weight.
    for (int r = 0; r < ROWS; r++)
      cap_vec[8*r+:8] <= a_rd_en && KBW'(r) < a_rd_bytes ? a_rd_data[8*r+:8] : 8'd0;
    cap_bank      <= a_tag_bank;
    cap_tag.first <= a_tag_first;
    cap_tag.last  <= a_tag_last;
    cap_tag.acc   <= a_tag_acc;
    cap_tag.row   <= a_tag_row;
    cap_tag.valid <= rst_n && a_rd_en;
  end

  // ---------------- array ----------------
  logic [(COLS+1)*32-1:0] sum_vec;
  npu_systolic_array #(
      .ROWS(ROWS),
      .COLS(COLS)
  ) u_array (
      .clk     (clk),
      .a_vec   (cap_vec),
      .a_bank  (cap_bank),
      .w_row_we(w_row_we),
      .w_bank  (w_tag_bank),
      .w_row   (w_row),
      .sum_vec (sum_vec)
  );

  // The row tag follows its activations through the array: D cycles.
  row_tag_t tag_d[D];
  always_ff @(posedge clk) begin
    tag_d[0] <= cap_tag;
    for (int i = 1; i < D; i++) tag_d[i] <= tag_d[i-1];
    if (!rst_n) for (int i = 0; i < D; i++) tag_d[i].valid <= 1'b0;
  end
  row_tag_t out_tag;
  assign out_tag = tag_d[D-1];

  // ---------------- accumulation over K chunks ----------------
  logic [31:0] acc_mem[ACC_DEPTH][COLS+1];
  logic [31:0] total[COLS+1];
  always_comb begin
    for (int c = 0; c <= COLS; c++) begin
      total[c] = sum_vec[32*c+:32] + (out_tag.first ? 32'd0 : acc_mem[out_tag.acc][c]);
    end
  end
  always_ff @(posedge clk) begin
    if (out_tag.valid && !out_tag.last) begin
      for (int c = 0; c <= COLS; c++) acc_mem[out_tag.acc][c] <= total[c];
    end
  end

  // ---------------- requantisation (last chunk only) ----------------
  logic rq_valid[4];  // 0: totals registered, 1..3: requant stages; [3] drives o_wr_en
  logic [31:0] rq_row[3];
  logic [31:0] rq_total[COLS+1];
  always_ff @(posedge clk) begin
    rq_valid[0] <= rst_n && out_tag.valid && out_tag.last;
    rq_row[0]   <= out_tag.row;
    for (int c = 0; c <= COLS; c++) rq_total[c] <= total[c];
    for (int s = 1; s < 4; s++) rq_valid[s] <= rst_n && rq_valid[s-1];
    rq_row[1] <= rq_row[0];
    rq_row[2] <= rq_row[1];
    o_wr_addr <= rq_row[2] * ldo_q;
  end
  assign o_wr_en = rq_valid[3];

  // weight_offset * rowsum is the same for every channel of the row: one multiplier.
  logic [31:0] corr;
  assign corr = wo_q * rq_total[COLS];

  for (genvar c = 0; c < COLS; c++) begin : g_requant
    npu_requant u_rq (
        .clk       (clk),
        .acc       (rq_total[c]),
        .bias      (bias_r[c]),
        .corr      (corr),
        .multiplier(mult_r[c]),
        .shift     (shift_r[c]),
        .zero_point(zp_q),
        .clamp_lo  (lo_q),
        .clamp_hi  (hi_q),
        .out_byte  (o_wr_data[8*c+:8])
    );
  end

  always_comb begin
    pipe_busy = cap_tag.valid;
    for (int i = 0; i < D; i++) pipe_busy = pipe_busy || tag_d[i].valid;
    for (int s = 0; s < 4; s++) pipe_busy = pipe_busy || rq_valid[s];
  end
endmodule
