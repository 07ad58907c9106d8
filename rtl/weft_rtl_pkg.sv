// weft_rtl_pkg: types shared by the modules of weft_top that the hardware contract (weft_pkg,
// generated from hw/spec) does not define: the internal pipeline records, token queue indices
// and the fixed depths of internal buffers. Widths of command fields come from weft_pkg.
package weft_rtl_pkg;
  import weft_pkg::*;

  // Dependency-token queues between the units (VTA-style), named producer->consumer.
  localparam int unsigned NumTokQ = 4;
  localparam int unsigned TokL2C = 0;  // load -> compute
  localparam int unsigned TokC2L = 1;  // compute -> load
  localparam int unsigned TokC2S = 2;  // compute -> store
  localparam int unsigned TokS2C = 3;  // store -> compute

  localparam int unsigned DramAw = LoadDramAddrW;  // DRAM byte address width
  localparam int unsigned RowAw = LoadSpadAddrW;   // scratchpad / accumulator row address width
  localparam int unsigned ReqBytesW = 12;          // DRAM request length field (1..4095 bytes)

  // Largest load request that merges consecutive rows (contiguous, full, beat-aligned rows).
  localparam int unsigned LoadMaxReqBytes = 1024;
  localparam int unsigned RowsPerReqW = 11;

  // Commands the fetch unit buffers ahead of decode (also the largest fetch request).
  localparam int unsigned FetchSlots = 8;
  // GEMMs accepted by the compute unit's preloader but not yet fully streamed.
  localparam int unsigned StreamQueueDepth = 2;
  // Post-processed rows the store unit buffers for the DRAM write port.
  localparam int unsigned StoreFifoDepth = 8;
  // Store commands waiting for their last write acknowledgement.
  localparam int unsigned StoreCmdsInFlight = 4;

  // Bytes of a snapshot record: the tag and every counter, 64 bits each.
  localparam int unsigned SnapshotBytes = 8 * (1 + NumCounters);

  // Operand of a PE: an 8-bit value minus an 8-bit zero point.
  typedef logic signed [8:0] operand_t;

  // What happens with one GEMM row when it leaves the array.
  typedef struct packed {
    logic             valid;
    logic [RowAw-1:0] acc_addr;
    logic             accumulate;
    logic             last;        // last row of its GEMM: the GEMM completes with its write-back
    logic             sig_prev;    // tokens the GEMM pushes when it completes
    logic             sig_next;
  } acc_meta_t;

  // One GEMM row entering the array: read from the input scratchpad, skewed across the lanes.
  typedef struct packed {
    logic [RowAw-1:0]    in_addr;
    logic [8:0]          in_zp;     // low 9 bits of the zero point (range checked at decode)
    logic                in_signed;
    logic [GemmKRowsW-1:0] k_rows;  // lanes at or past k_rows feed zero
    logic                wsel;      // weight buffer of the GEMM
    acc_meta_t           acc;       // acc.valid marks a valid row
  } row_meta_t;

  // Where the data of an outstanding DRAM read goes.
  typedef struct packed {
    logic                 is_fetch;
    logic                 fetch_odd;  // fetch of an odd number of commands (64-byte buses)
    mem_e                 dst;        // load: destination memory
    logic [RowAw-1:0]     spad_addr;  // load: destination row of the request's first row
    logic [LoadRowBytesW-1:0] row_bytes;
    logic [LoadRowBytesW-1:0] row_beats;  // load: beats of each row of the request
    logic                 last;       // load: the request holds the last row of its command
    logic                 signal;     // load: push a load->compute token on completion
  } rd_tag_t;

  // Sign- or zero-extends a byte and subtracts a zero point, in 9 bits.
  function automatic operand_t to_operand(logic [7:0] b, logic is_signed, logic [8:0] zp);
    logic [8:0] ext;
    ext = {is_signed & b[7], b};
    return operand_t'(ext - zp);
  endfunction

endpackage
