// weft_rtl_pkg: types shared by the modules of weft_top that the hardware contract (weft_pkg,
// generated from hw/spec) does not define: the internal pipeline records and widths. The units,
// token queues, internal depths and command fields all come from weft_pkg.
package weft_rtl_pkg;
  import weft_pkg::*;

  localparam int unsigned DramAw = LoadDramAddrW;  // DRAM byte address width
  localparam int unsigned RowAw = LoadSpadAddrW;   // scratchpad / accumulator row address width
  localparam int unsigned ReqBytesW = 12;          // DRAM request length field (1..4095 bytes)

  // Rows one merged load request may cover (up to LoadMaxReqBytes of rows of at least a byte).
  localparam int unsigned RowsPerReqW = $clog2(LoadMaxReqBytes + 1);

  // Bytes of a snapshot record: the tag and every counter, 64 bits each.
  localparam int unsigned SnapshotBytes = 8 * (1 + NumCounters);

  // Operand of a PE: an 8-bit value minus an 8-bit zero point. Ports carry a lane's operands
  // flattened (lane i in bits [i*OperandW +: OperandW]).
  localparam int unsigned OperandW = 9;
  typedef logic signed [OperandW-1:0] operand_t;

  // What happens with one GEMM row when it leaves the array.
  typedef struct packed {
    logic             valid;
    logic [RowAw-1:0] acc_addr;
    logic             accumulate;
    logic             last;        // last row of its GEMM: the GEMM completes with its write-back
    logic [1:0]       sig;         // tokens the GEMM pushes when it completes (signal0/1)
    logic             fp;          // a GEMM fp16 row: accumulate adds binary32 (Fp16 only, else 0)
  } acc_meta_t;

  // One GEMM row entering the array: read from the input scratchpad, skewed across the lanes.
  typedef struct packed {
    logic [RowAw-1:0]    in_addr;
    logic [8:0]          in_zp;     // low 9 bits of the zero point (range checked at decode)
    logic                in_signed;
    logic [GemmKRowsW-1:0] k_rows;  // lanes at or past k_rows feed zero
    logic                wsel;      // weight buffer of the GEMM
    logic                fp;        // a GEMM fp16 row (Fp16 only, else 0)
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
    logic [RowAw-1:0]     row_step;   // load: rows between the request's rows (spread: pack_stride)
    logic                 pack;       // load: a packed row (written beat by beat at pack_byte)
    logic [LoadPackByteW-1:0] pack_byte;
    logic                 last;       // load: the request holds the last row of its command
    logic [1:0]           signal;     // load: the tokens (signal0/1) to push on completion
  } rd_tag_t;

  // A unit's token handshake: the head's header bits against its two wait queues (a token
  // available) and its two signal queues (room to reserve).
  function automatic logic tokens_ok(cmd_t c, logic [1:0] avail, logic [1:0] space);
    tokens_ok = (!c[HdrWait0Lsb] || avail[0]) && (!c[HdrWait1Lsb] || avail[1])
        && (!c[HdrSignal0Lsb] || space[0]) && (!c[HdrSignal1Lsb] || space[1]);
  endfunction

  // Sign- or zero-extends a byte and subtracts a zero point, in 9 bits.
  function automatic operand_t to_operand(logic [7:0] b, logic is_signed, logic [8:0] zp);
    logic [8:0] ext;
    ext = {is_signed & b[7], b};
    to_operand = ext - zp;
  endfunction

endpackage
