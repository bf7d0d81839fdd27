// npu_tile_controller: issues the memory requests of one Int8TileCommand to the systolic array.
//
// The tile is executed as a sequence of passes. A pass is one K chunk (kc <= ROWS rows of W, starting
// at k0) applied to one block of at most ACC_DEPTH activation rows (the accumulator depth); blocks are
// outer, chunks inner, so each block finishes (is requantised) before the next one reuses the
// accumulators. In pass cycle i the controller requests weight row k0 + i (i < kc) and activation row
// blk_base + i (i < blk_rows), bytes [k0, k0 + kc); a pass lasts max(blk_rows, kc) cycles.
//
// Weights go into the bank the pass owns (banks alternate per pass), so loading chunk j + 1 overlaps
// streaming chunk j. Weight row i is written one cycle after its request, i.e. never later than the
// first activation of the same pass reaches PE row i (that activation is skewed by i): loading and
// streaming start together. A bank may be rewritten only once the pass two before (same bank) has
// left every column: pass p + 2 starts no earlier than start_p + rows_p + COLS - 1. bank_cnt counts
// that down; it is the only source of stall cycles (short blocks with short chunks).
//
// Request outputs are registered: a request is visible in the cycle after the controller decided it,
// and the memories answer within that cycle (synchronous SRAM read with the address register here).
// Per-channel parameters (bias, multiplier, shift) are requested, one channel per cycle, from the
// first cycle of the tile; they are needed only at requantisation, long after.
//
// Not handled here: the datapath, accumulation and requantisation (npu_compute_core), and command
// validation (n > COLS is clamped to COLS; the software wrappers reject it before).
module npu_tile_controller #(
    parameter int ROWS      = 16,
    parameter int COLS      = 16,
    parameter int ACC_DEPTH = 256,
    localparam int KBW = $clog2(ROWS + 1),   // width of a byte count 0..ROWS
    localparam int NBW = $clog2(COLS + 1),   // width of a byte count 0..COLS
    localparam int RW  = $clog2(ROWS),       // width of a PE row index
    localparam int CW  = $clog2(COLS),       // width of a channel index
    localparam int AW  = $clog2(ACC_DEPTH)   // width of an accumulator row index
) (
    input  logic           clk,
    input  logic           rst_n,
    // command (sampled with start while idle)
    input  logic           start,
    input  logic [   31:0] cmd_m,
    input  logic [   31:0] cmd_k,
    input  logic [   31:0] cmd_n,
    input  logic [   31:0] cmd_lda,
    input  logic [   31:0] cmd_ldw,
    input  logic           pipe_busy,   // rows still in flight downstream of the request registers
    output logic           busy,
    output logic           done,        // set when the tile has completed, cleared by the next start
    output logic [NBW-1:0] n_eff,       // min(n, COLS) of the current tile
    // activation request and the tag that travels with the row
    output logic           a_rd_en,
    output logic [   31:0] a_rd_addr,
    output logic [KBW-1:0] a_rd_bytes,
    output logic           a_tag_bank,
    output logic           a_tag_first,
    output logic           a_tag_last,
    output logic [ AW-1:0] a_tag_acc,
    output logic [   31:0] a_tag_row,
    // weight request
    output logic           w_rd_en,
    output logic [   31:0] w_rd_addr,
    output logic [ RW-1:0] w_tag_row,
    output logic           w_tag_bank,
    // per-channel parameter request
    output logic           p_rd_en,
    output logic [ CW-1:0] p_rd_idx
);
  localparam logic [31:0] ROWS32 = 32'(ROWS);
  localparam logic [31:0] COLS32 = 32'(COLS);
  localparam logic [31:0] ACC32 = 32'(ACC_DEPTH);

  typedef enum logic [1:0] {
    IDLE,
    ISSUE,
    DRAIN
  } state_e;
  state_e state;

  logic [31:0] m_q, k_q, lda_q, ldw_q;
  logic [NBW-1:0] n_q;
  // current pass
  logic [31:0] blk_base, blk_rows, k0, idx, plen;
  logic [KBW-1:0] kc;
  logic first, last, bank;
  logic [31:0] bank_cnt[2];
  logic [NBW-1:0] p_cnt;

  function automatic logic [KBW-1:0] chunk_rows(input logic [31:0] k, input logic [31:0] start_k);
    logic [31:0] rem = k - start_k;
    return rem > ROWS32 ? KBW'(ROWS) : rem[KBW-1:0];
  endfunction

  function automatic logic [31:0] max_len(input logic [31:0] rows, input logic [KBW-1:0] kcv);
    return rows > 32'(kcv) ? rows : 32'(kcv);
  endfunction

  // Next pass: next chunk of the same block, else first chunk of the next block, else none.
  logic [31:0] nx_blk_base, nx_blk_rows, nx_k0, nx_rem_rows;
  logic [KBW-1:0] nx_kc;
  logic nx_first, nx_last, nx_exists;
  always_comb begin
    nx_exists   = 1'b1;
    nx_blk_base = blk_base;
    nx_blk_rows = blk_rows;
    nx_k0       = k0 + ROWS32;
    nx_first    = 1'b0;
    nx_rem_rows = m_q - (blk_base + blk_rows);
    if (last) begin
      nx_exists   = nx_rem_rows != 0;
      nx_blk_base = blk_base + blk_rows;
      nx_blk_rows = nx_rem_rows > ACC32 ? ACC32 : nx_rem_rows;
      nx_k0       = '0;
      nx_first    = 1'b1;
    end
    nx_kc   = chunk_rows(k_q, nx_k0);
    nx_last = nx_k0 + ROWS32 >= k_q;
  end

  logic can_go;
  assign can_go = idx != 0 || bank_cnt[bank] == 0;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      state       <= IDLE;
      done        <= 1'b0;
      a_rd_en     <= 1'b0;
      w_rd_en     <= 1'b0;
      p_rd_en     <= 1'b0;
      bank_cnt[0] <= '0;
      bank_cnt[1] <= '0;
    end else begin
      a_rd_en <= 1'b0;
      w_rd_en <= 1'b0;
      for (int b = 0; b < 2; b++) if (bank_cnt[b] != 0) bank_cnt[b] <= bank_cnt[b] - 1;

      // Parameter loads run alongside the passes.
      p_rd_en <= 1'b0;
      if (state != IDLE && p_cnt < n_q) begin
        p_rd_en  <= 1'b1;
        p_rd_idx <= p_cnt[CW-1:0];
        p_cnt    <= p_cnt + 1'b1;
      end

      unique case (state)
        IDLE: begin
          if (start) begin
            done        <= 1'b0;
            m_q         <= cmd_m;
            k_q         <= cmd_k;
            n_q         <= cmd_n > COLS32 ? NBW'(COLS) : cmd_n[NBW-1:0];
            lda_q       <= cmd_lda;
            ldw_q       <= cmd_ldw;
            p_cnt       <= '0;
            blk_base    <= '0;
            blk_rows    <= cmd_m > ACC32 ? ACC32 : cmd_m;
            k0          <= '0;
            kc          <= chunk_rows(cmd_k, 32'd0);
            first       <= 1'b1;
            last        <= cmd_k <= ROWS32;
            bank        <= 1'b0;
            idx         <= '0;
            plen        <= max_len(cmd_m > ACC32 ? ACC32 : cmd_m, chunk_rows(cmd_k, 32'd0));
            bank_cnt[0] <= '0;
            bank_cnt[1] <= '0;
            state       <= cmd_m == 0 ? DRAIN : ISSUE;
          end
        end
        ISSUE: begin
          if (can_go) begin
            a_rd_en     <= idx < blk_rows;
            a_rd_addr   <= (blk_base + idx) * lda_q + k0;
            a_rd_bytes  <= kc;
            a_tag_bank  <= bank;
            a_tag_first <= first;
            a_tag_last  <= last;
            a_tag_acc   <= idx[AW-1:0];
            a_tag_row   <= blk_base + idx;
            w_rd_en     <= idx < 32'(kc);
            w_rd_addr   <= (k0 + idx) * ldw_q;
            w_tag_row   <= idx[RW-1:0];
            w_tag_bank  <= bank;
            if (idx == 0) bank_cnt[bank] <= blk_rows + COLS32 - 32'd2;
            if (idx + 1 == plen) begin
              idx <= '0;
              if (nx_exists) begin
                blk_base <= nx_blk_base;
                blk_rows <= nx_blk_rows;
                k0       <= nx_k0;
                kc       <= nx_kc;
                first    <= nx_first;
                last     <= nx_last;
                bank     <= ~bank;
                plen     <= max_len(nx_blk_rows, nx_kc);
              end else begin
                state <= DRAIN;
              end
            end else begin
              idx <= idx + 1;
            end
          end
        end
        DRAIN: begin
          if (!a_rd_en && !pipe_busy) begin
            done  <= 1'b1;
            state <= IDLE;
          end
        end
        default: state <= IDLE;
      endcase
    end
  end

  assign busy  = state != IDLE;
  assign n_eff = n_q;
endmodule
