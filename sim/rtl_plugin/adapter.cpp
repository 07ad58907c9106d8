// Wraps one verilated weft_top in the plugin ABI (sim/include/weft/sim/rtl_plugin_abi.h).
// Compiled once per RTL configuration, together with that configuration's Vweft_top.
#include <cstring>
#include <memory>
#include <type_traits>

#include "Vweft_top.h"
#include "Vweft_top___024root.h"
#include "verilated.h"
#if WEFT_RTL_TRACE
#include "verilated_fst_c.h"
#endif
#include "weft/sim/rtl_plugin_abi.h"

#ifndef WEFT_RTL_KEY
#error "WEFT_RTL_KEY must name the configuration"
#endif

namespace {

struct Instance {
  std::unique_ptr<VerilatedContext> context;
  std::unique_ptr<Vweft_top> top;
#if WEFT_RTL_TRACE
  std::unique_ptr<VerilatedFstC> trace;
#endif
};

// A port as the ABI exposes it: scalar ports keep their verilated integer type (checked here),
// wide buses become their byte storage.
template <typename Want, typename Port>
Want* scalar(Port& port) {
  static_assert(std::is_same_v<Want, std::remove_reference_t<Port>>,
                "weft_top port width differs from the plugin ABI");
  return &port;
}

template <typename Port>
uint8_t* bytes(Port& port) {
  static_assert(sizeof(Port) >= WEFT_RTL_BUS_BYTES, "bus narrower than BusBytes");
  return reinterpret_cast<uint8_t*>(&port);
}

void* create(WeftRtlPorts* p) {
  auto* inst = new Instance;
  inst->context = std::make_unique<VerilatedContext>();
  inst->context->debug(0);
  inst->context->randReset(0);  // deterministic: uninitialised state starts at zero
  inst->top = std::make_unique<Vweft_top>(inst->context.get(), "weft_top");
  Vweft_top& t = *inst->top;
  p->clk_i = scalar<uint8_t>(t.clk_i);
  p->rst_ni = scalar<uint8_t>(t.rst_ni);
  p->reg_req_i = scalar<uint8_t>(t.reg_req_i);
  p->reg_we_i = scalar<uint8_t>(t.reg_we_i);
  p->reg_addr_i = scalar<uint16_t>(t.reg_addr_i);
  p->reg_wdata_i = scalar<uint32_t>(t.reg_wdata_i);
  p->reg_rvalid_o = scalar<uint8_t>(t.reg_rvalid_o);
  p->reg_rdata_o = scalar<uint32_t>(t.reg_rdata_o);
  p->mem_rd_req_valid_o = scalar<uint8_t>(t.mem_rd_req_valid_o);
  p->mem_rd_req_ready_i = scalar<uint8_t>(t.mem_rd_req_ready_i);
  p->mem_rd_req_addr_o = scalar<uint64_t>(t.mem_rd_req_addr_o);
  p->mem_rd_req_bytes_o = scalar<uint16_t>(t.mem_rd_req_bytes_o);
  p->mem_rd_data_valid_i = scalar<uint8_t>(t.mem_rd_data_valid_i);
  p->mem_rd_data_i = bytes(t.mem_rd_data_i);
  p->mem_rd_data_last_i = scalar<uint8_t>(t.mem_rd_data_last_i);
  p->mem_wr_req_valid_o = scalar<uint8_t>(t.mem_wr_req_valid_o);
  p->mem_wr_req_ready_i = scalar<uint8_t>(t.mem_wr_req_ready_i);
  p->mem_wr_req_addr_o = scalar<uint64_t>(t.mem_wr_req_addr_o);
  p->mem_wr_req_bytes_o = scalar<uint16_t>(t.mem_wr_req_bytes_o);
  p->mem_wr_data_valid_o = scalar<uint8_t>(t.mem_wr_data_valid_o);
  p->mem_wr_data_ready_i = scalar<uint8_t>(t.mem_wr_data_ready_i);
  p->mem_wr_data_o = bytes(t.mem_wr_data_o);
  p->mem_wr_data_last_o = scalar<uint8_t>(t.mem_wr_data_last_o);
  p->mem_wr_ack_i = scalar<uint8_t>(t.mem_wr_ack_i);
  p->irq_o = scalar<uint8_t>(t.irq_o);
  p->obs_cmd_events = scalar<uint32_t>(t.rootp->weft_top__DOT__obs_cmd_events);
  return inst;
}

void destroy(void* handle) {
  auto* inst = static_cast<Instance*>(handle);
#if WEFT_RTL_TRACE
  if (inst->trace) inst->trace->close();
#endif
  inst->top->final();
  delete inst;
}

void eval(void* handle) { static_cast<Instance*>(handle)->top->eval(); }

#if WEFT_RTL_TRACE
int traceOpen(void* handle, const char* path, int depth) {
  auto* inst = static_cast<Instance*>(handle);
  inst->context->traceEverOn(true);
  inst->trace = std::make_unique<VerilatedFstC>();
  inst->top->trace(inst->trace.get(), depth > 0 ? depth : 99);
  inst->trace->open(path);
  return inst->trace->isOpen() ? 0 : -1;
}
void traceDump(void* handle, uint64_t timePs) {
  auto* inst = static_cast<Instance*>(handle);
  if (inst->trace) inst->trace->dump(timePs);
}
void traceClose(void* handle) {
  auto* inst = static_cast<Instance*>(handle);
  if (inst->trace) inst->trace->close();
  inst->trace.reset();
}
#endif

const WeftRtlPlugin kPlugin = {
    WEFT_RTL_ABI_VERSION, WEFT_RTL_KEY, WEFT_RTL_BUS_BYTES, WEFT_RTL_TRACE,
    create, destroy, eval,
#if WEFT_RTL_TRACE
    traceOpen, traceDump, traceClose,
#else
    nullptr, nullptr, nullptr,
#endif
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const WeftRtlPlugin* weft_rtl_plugin() {
  return &kPlugin;
}
