// npu_thermal_fe: front end of the NPU's on-die thermal sensor, between the ADC and the interrupt
// controller. Not the thermal model itself (the RC network lives in the SystemC platform); this block
// only turns raw sensor codes into trip states and interrupts, as the driver sees them.
//
//   sample register   last_sample <= sample when sample_valid;
//   moving average    window of 2^LOG2_WINDOW samples (a ring buffer and a running sum, so each
//                     sample costs one add and one subtract); the first sample after reset fills the
//                     whole window, so the average starts at the first reading instead of ramping
//                     up from zero; average = sum >> LOG2_WINDOW (floor). Valid one cycle after the
//                     sample edge.
//   two trip points   warn and crit, each with the same hysteresis: trip[i] sets when
//                     average >= thr_i and clears when average < thr_i - hysteresis (evaluated every
//                     cycle once primed, registered: one cycle after the average).
//   interrupts        level-sensitive: irq_status holds one sticky bit per event
//                     {crit_fall, crit_rise, warn_fall, warn_rise} = bits {3,2,1,0}, set on the trip
//                     transition, cleared by writing 1s on irq_clear (one cycle); irq = |(status &
//                     irq_enable). Level, not pulse, because the driver's top half may run long after
//                     the event and must not miss it; a set and a clear in the same cycle keep it set.
// Hysteresis makes each crossing raise exactly one event even with sensor noise smaller than it.
// Codes are unsigned W-bit; units (e.g. 1/8 degC per LSB) are the software's business.
module npu_thermal_fe #(
    parameter int W           = 16,
    parameter int LOG2_WINDOW = 3
) (
    input  logic         clk,
    input  logic         rst_n,
    input  logic         sample_valid,
    input  logic [W-1:0] sample,
    input  logic [W-1:0] thr_warn,
    input  logic [W-1:0] thr_crit,
    input  logic [W-1:0] hysteresis,
    input  logic [  3:0] irq_enable,
    input  logic [  3:0] irq_clear,
    output logic [W-1:0] last_sample,
    output logic [W-1:0] average,
    output logic         primed,       // at least one sample since reset
    output logic [  1:0] trip,         // {crit, warn}
    output logic [  3:0] irq_status,
    output logic         irq
);
  localparam int N  = 1 << LOG2_WINDOW;
  localparam int SW = W + LOG2_WINDOW;

  logic [W-1:0] ring[N];
  logic [LOG2_WINDOW-1:0] ptr;
  logic [SW-1:0] sum;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      primed      <= 1'b0;
      sum         <= '0;
      ptr         <= '0;
      last_sample <= '0;
    end else if (sample_valid) begin
      last_sample <= sample;
      if (!primed) begin
        for (int i = 0; i < N; i++) ring[i] <= sample;
        sum    <= SW'(sample) << LOG2_WINDOW;
        primed <= 1'b1;
      end else begin
        ring[ptr] <= sample;
        sum       <= sum - SW'(ring[ptr]) + SW'(sample);
      end
      ptr <= ptr + 1'b1;
    end
  end
  assign average = sum[SW-1:LOG2_WINDOW];

  // Trip with hysteresis; W + 1 bits so thr - hysteresis cannot wrap.
  function automatic logic next_trip(input logic cur, input logic [W-1:0] avg, input logic [W-1:0] thr,
                                     input logic [W-1:0] hyst);
    if (!cur) return avg >= thr;
    return ({1'b0, avg} + {1'b0, hyst}) >= {1'b0, thr};
  endfunction

  logic [1:0] trip_n;
  logic [3:0] events;
  always_comb begin
    trip_n = trip;
    if (primed) begin
      trip_n[0] = next_trip(trip[0], average, thr_warn, hysteresis);
      trip_n[1] = next_trip(trip[1], average, thr_crit, hysteresis);
    end
    events = {trip[1] & ~trip_n[1], ~trip[1] & trip_n[1], trip[0] & ~trip_n[0], ~trip[0] & trip_n[0]};
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      trip       <= '0;
      irq_status <= '0;
    end else begin
      trip       <= trip_n;
      irq_status <= (irq_status & ~irq_clear) | events;
    end
  end
  assign irq = |(irq_status & irq_enable);
endmodule
