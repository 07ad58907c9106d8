/* The C ABI between a verilated weft_top and the code that drives it.
 *
 * Verilator fixes parameters at verilation time, so every RTL configuration (hw::HwConfig::rtlKey)
 * is its own build: a shared object `weft_rtl_<key>_<RTL digest>.so` exporting `weft_rtl_plugin()`. Everything
 * that steps the RTL (the SystemC harness, the kernel-free RTL tests, the harness benchmark) goes
 * through this ABI, so one build of a configuration serves all of them and new configurations
 * can be built on demand without relinking anything.
 *
 * Ports are exposed as pointers into the verilated model's own port storage: writing an input
 * and calling eval() is exactly what a Verilator testbench does, with no copy in between. Buses
 * wider than 64 bits (the DRAM data buses) are little-endian byte arrays of busBytes bytes.
 */
#ifndef WEFT_SIM_RTL_PLUGIN_ABI_H
#define WEFT_SIM_RTL_PLUGIN_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_RTL_ABI_VERSION 2

/* Pointers to the ports of weft_top (rtl/weft_top.sv); the widths are the RTL's. */
typedef struct WeftRtlPorts {
  /* clock and reset */
  uint8_t* clk_i;
  uint8_t* rst_ni;
  /* register bus: a request is one cycle with reg_req_i set; read data is valid with
     reg_rvalid_o on the following cycle. */
  uint8_t* reg_req_i;
  uint8_t* reg_we_i;
  uint16_t* reg_addr_i;  /* 12 bits, byte address */
  uint32_t* reg_wdata_i;
  uint8_t* reg_rvalid_o;
  uint32_t* reg_rdata_o;
  /* DRAM read requests (valid/ready) and read data (in request order, no back-pressure) */
  uint8_t* mem_rd_req_valid_o;
  uint8_t* mem_rd_req_ready_i;
  uint64_t* mem_rd_req_addr_o;   /* 40 bits, byte address */
  uint16_t* mem_rd_req_bytes_o;  /* 12 bits, 1..4095 */
  uint8_t* mem_rd_data_valid_i;
  uint8_t* mem_rd_data_i;        /* busBytes bytes: beat j of a request carries its bytes [j*busBytes, (j+1)*busBytes) */
  uint8_t* mem_rd_data_last_i;
  /* DRAM writes: a request (valid/ready), then its data beats (valid/ready) in request order,
     then one mem_wr_ack_i pulse per request once DRAM has written it */
  uint8_t* mem_wr_req_valid_o;
  uint8_t* mem_wr_req_ready_i;
  uint64_t* mem_wr_req_addr_o;
  uint16_t* mem_wr_req_bytes_o;
  uint8_t* mem_wr_data_valid_o;
  uint8_t* mem_wr_data_ready_i;
  uint8_t* mem_wr_data_o;        /* busBytes bytes */
  uint8_t* mem_wr_data_last_o;
  uint8_t* mem_wr_ack_i;
  /* interrupt line */
  uint8_t* irq_o;
  /* Observation, not a port: weft_top's obs_cmd_events (a public signal), this cycle's command
     handshakes for per-command timelines (sim/README.md "Command timelines"). Valid after an
     eval with the cycle's inputs and the clock low. */
  const uint32_t* obs_cmd_events;
} WeftRtlPorts;

typedef struct WeftRtlPlugin {
  uint32_t abiVersion;       /* WEFT_RTL_ABI_VERSION */
  const char* rtlKey;        /* hw::HwConfig::rtlKey() of the parameters it was verilated with */
  uint32_t busBytes;         /* width of the DRAM data buses in bytes */
  int hasTrace;              /* built with FST tracing support */
  /* Creates a model and fills *ports; returns an opaque handle. */
  void* (*create)(WeftRtlPorts* ports);
  void (*destroy)(void* model);
  /* Evaluates the model after inputs changed (one call per clock edge). */
  void (*eval)(void* model);
  /* Tracing (only when hasTrace): opens an FST file, dumps at a time in ps, closes. */
  int (*traceOpen)(void* model, const char* path, int depth);
  void (*traceDump)(void* model, uint64_t timePs);
  void (*traceClose)(void* model);
} WeftRtlPlugin;

/* The one symbol a plugin exports. */
typedef const WeftRtlPlugin* (*WeftRtlPluginEntry)(void);
#define WEFT_RTL_PLUGIN_ENTRY "weft_rtl_plugin"

#ifdef __cplusplus
}
#endif

#endif /* WEFT_SIM_RTL_PLUGIN_ABI_H */
