#include "weft/sim/rtl_stepper.h"

#include "rtl/plugin_locations.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>


namespace weft::sim {
namespace {

bool isFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Plugins are never unloaded; the same file loads once per process.
std::map<std::string, std::unique_ptr<RtlPlugin>>& loadedPlugins() {
  static std::map<std::string, std::unique_ptr<RtlPlugin>> plugins;
  return plugins;
}
std::mutex& loadMutex() {
  static std::mutex m;
  return m;
}

}  // namespace

std::string RtlPlugin::fileName(const hw::HwConfig& config, bool trace) {
  // WEFT_RTL_DIGEST: the RTL this program was built with (cmake/WeftRtl.cmake); a plugin of
  // other RTL has another name and is rebuilt rather than loaded.
  return fmt::format("weft_rtl_{}_{}{}.so", config.rtlKey(), WEFT_RTL_DIGEST, trace ? "_trace" : "");
}

std::vector<std::string> RtlPlugin::searchDirs() { return rtlPluginLocations().searchDirs; }

const RtlPlugin& RtlPlugin::load(const hw::HwConfig& config, bool trace) {
  const std::string name = fileName(config, trace);
  std::vector<std::string> tried;
  std::string path;
  for (const auto& dir : searchDirs()) {
    const std::string candidate = dir + "/" + name;
    tried.push_back(candidate);
    if (isFile(candidate)) {
      path = candidate;
      break;
    }
  }
  if (path.empty()) {
    std::string list;
    for (const auto& t : tried) list += "\n  " + t;
    throw RtlPluginError(fmt::format(
        "no RTL model for configuration '{}' ({}); searched:{}\nBuild it (target weft_rtl_<config>{}) "
        "or point WEFT_RTL_DIR at a directory holding {}",
        config.name(), trace ? "tracing build" : "no tracing", list.empty() ? " (no directories)" : list,
        trace ? " with -DWEFT_RTL_TRACE_BUILDS=ON" : "", name));
  }

  std::lock_guard<std::mutex> lock(loadMutex());
  auto& plugins = loadedPlugins();
  if (auto it = plugins.find(path); it != plugins.end()) return *it->second;

  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    throw RtlPluginError(fmt::format("cannot load RTL model {}: {}", path, ::dlerror()));
  }
  auto entry = reinterpret_cast<WeftRtlPluginEntry>(::dlsym(handle, WEFT_RTL_PLUGIN_ENTRY));
  if (entry == nullptr) {
    throw RtlPluginError(fmt::format("{} is not a weft RTL plugin (no symbol {})", path,
                                     WEFT_RTL_PLUGIN_ENTRY));
  }
  const WeftRtlPlugin* api = entry();
  if (api == nullptr || api->abiVersion != WEFT_RTL_ABI_VERSION) {
    throw RtlPluginError(fmt::format("{} has plugin ABI version {}, this program expects {}; rebuild it",
                                     path, api ? api->abiVersion : 0u, WEFT_RTL_ABI_VERSION));
  }
  if (config.rtlKey() != api->rtlKey) {
    throw RtlPluginError(fmt::format("{} was verilated for {}, not for configuration '{}' ({})", path,
                                     api->rtlKey, config.name(), config.rtlKey()));
  }
  if (api->busBytes != config.busBytes()) {
    throw RtlPluginError(fmt::format("{} has a {}-byte DRAM bus, configuration '{}' wants {}", path,
                                     api->busBytes, config.name(), config.busBytes()));
  }
  if (trace && (!api->hasTrace || !api->traceOpen)) {
    throw RtlPluginError(fmt::format("{} was built without tracing", path));
  }
  auto plugin = std::make_unique<RtlPlugin>(api, path);
  const RtlPlugin& ref = *plugin;
  plugins.emplace(path, std::move(plugin));
  return ref;
}

template <typename T>
T& RtlStepper::Ring<T>::pushBack() {
  if (size_ == slots_.size()) {
    // Grow: re-linearise the live elements at the front (moves keep their buffers).
    std::vector<T> grown(std::max<size_t>(8, slots_.size() * 2));
    for (size_t i = 0; i < size_; ++i) grown[i] = std::move(at(i));
    slots_ = std::move(grown);
    head_ = 0;
  }
  ++size_;
  return back();
}

RtlStepper::RtlStepper(const hw::HwConfig& config, IDramPort& dram, const RtlStepperOptions& options)
    : config_(config),
      dram_(dram),
      plugin_(&RtlPlugin::load(config, !options.tracePath.empty())),
      busBytes_(config.busBytes()),
      periodPs_(static_cast<uint64_t>(1e6 / config.clockMHz())) {
  model_ = plugin_->api().create(&ports_);
  if (model_ == nullptr) throw RtlPluginError(fmt::format("{}: cannot create the model", plugin_->path()));
  if (!options.tracePath.empty()) {
    if (plugin_->api().traceOpen(model_, options.tracePath.c_str(), options.traceDepth) != 0) {
      plugin_->api().destroy(model_);
      throw RtlPluginError(fmt::format("cannot open trace file {}", options.tracePath));
    }
    tracing_ = true;
  }
  // The DRAM side never back-pressures: latency is the DRAM model's business.
  *ports_.mem_rd_req_ready_i = 1;
  *ports_.mem_wr_req_ready_i = 1;
  *ports_.mem_wr_data_ready_i = 1;
  *ports_.reg_req_i = 0;
  *ports_.reg_we_i = 0;
  *ports_.mem_rd_data_valid_i = 0;
  *ports_.mem_rd_data_last_i = 0;
  *ports_.mem_wr_ack_i = 0;
  *ports_.clk_i = 1;
  reset();
}

RtlStepper::~RtlStepper() {
  if (tracing_) plugin_->api().traceClose(model_);
  plugin_->api().destroy(model_);
}

void RtlStepper::reset(unsigned cycles) {
  reads_.clear();
  writes_.clear();
  acks_.clear();
  *ports_.mem_rd_data_valid_i = 0;
  *ports_.mem_wr_ack_i = 0;
  *ports_.rst_ni = 0;
  plugin_->api().eval(model_);
  for (unsigned i = 0; i < std::max(1u, cycles); ++i) edge();
  *ports_.rst_ni = 1;
  plugin_->api().eval(model_);
  lastReadBeat_ = cycle_;
  lastAck_ = cycle_;
  log_.reset(cycle_);
}

// One cycle's command handshakes (weft_top obs_cmd_events): dispatch and a controller retire
// concern the command in decode, before the next one enters it in the same cycle; a unit's
// start precedes its completions of the same cycle.
void RtlStepper::observe(uint32_t events) {
  if (events & (1u << 14)) {  // soft reset
    log_.reset(cycle_);
    return;
  }
  for (unsigned u = 0; u < hw::kNumFifoUnits; ++u) {
    if (events & (1u << (1 + u))) log_.dispatch(u, cycle_);
  }
  if (events & (1u << 15)) log_.controlStart(cycle_);
  if (events & (1u << 13)) log_.controlRetire(cycle_);
  for (unsigned u = 0; u < hw::kNumFifoUnits; ++u) {
    if (events & (1u << (5 + u))) log_.start(u, cycle_);
  }
  for (unsigned u = 0; u < hw::kNumFifoUnits; ++u) {
    if (events & (1u << (9 + u))) log_.complete(u, cycle_);
  }
  if (events & 1u) log_.decode(cycle_, (events >> 16) & 0xf);
}

uint32_t RtlStepper::readReg(uint32_t addr) {
  *ports_.reg_req_i = 1;
  *ports_.reg_we_i = 0;
  *ports_.reg_addr_i = static_cast<uint16_t>(addr & 0xfff);
  cycleOnce();
  *ports_.reg_req_i = 0;
  if (!*ports_.reg_rvalid_o) {
    throw std::logic_error(fmt::format("register read of {:#05x}: no reg_rvalid_o", addr));
  }
  return *ports_.reg_rdata_o;
}

void RtlStepper::writeReg(uint32_t addr, uint32_t value) {
  *ports_.reg_req_i = 1;
  *ports_.reg_we_i = 1;
  *ports_.reg_addr_i = static_cast<uint16_t>(addr & 0xfff);
  *ports_.reg_wdata_i = value;
  cycleOnce();
  *ports_.reg_req_i = 0;
  *ports_.reg_we_i = 0;
}

uint64_t RtlStepper::readCounter(hw::Counter counter) {
  const uint32_t addr = hw::counterAddr(counter);
  const uint64_t lo = readReg(addr);
  const uint64_t hi = readReg(addr + 4);
  return hi << 32 | lo;
}

uint64_t RtlStepper::run(uint64_t maxCycles) {
  uint64_t n = 0;
  while (n < maxCycles && !*ports_.irq_o) {
    cycleOnce();
    ++n;
  }
  return n;
}

void RtlStepper::step(uint64_t cycles) {
  for (uint64_t i = 0; i < cycles; ++i) cycleOnce();
}

// One clock cycle: drive this cycle's DRAM inputs, perform the handshakes the RTL's outputs
// (functions of its state only) offer, then the falling and rising edges.
void RtlStepper::cycleOnce() {
  // Read data: the oldest request's next beat, once due.
  bool beat = false;
  if (!reads_.empty()) {
    Read& r = reads_.front();
    if (cycle_ >= r.firstCycle + r.next) {
      std::memcpy(ports_.mem_rd_data_i, r.data.data() + size_t{r.next} * busBytes_, busBytes_);
      *ports_.mem_rd_data_last_i = (r.next + 1 == r.beats);
      beat = true;
    }
  }
  *ports_.mem_rd_data_valid_i = beat;
  const bool ack = !acks_.empty() && cycle_ >= acks_.front();
  *ports_.mem_wr_ack_i = ack;

  serveRequests();
  edge();

  if (beat) {
    Read& r = reads_.front();
    if (++r.next == r.beats) reads_.popFront();
  }
  if (ack) acks_.popFront();
}

void RtlStepper::serveRequests() {
  if (*ports_.mem_rd_req_valid_o) {
    const uint64_t addr = *ports_.mem_rd_req_addr_o;
    const uint32_t bytes = *ports_.mem_rd_req_bytes_o;
    Read& r = reads_.pushBack();
    r.beats = (bytes + busBytes_ - 1) / busBytes_;
    r.next = 0;
    // Padded to whole beats; the padding is zero.
    r.data.assign(size_t{r.beats} * busBytes_, 0);
    const uint64_t first = dram_.read(addr, r.data.data(), bytes, cycle_);
    r.firstCycle = std::max({first, cycle_ + 1, lastReadBeat_ + 1});
    lastReadBeat_ = r.firstCycle + r.beats - 1;
    if (log_.enabled()) log_.dram(false, cycle_, lastReadBeat_, bytes);
  }
  if (*ports_.mem_wr_req_valid_o) {
    Write& w = writes_.pushBack();
    w.addr = *ports_.mem_wr_req_addr_o;
    w.bytes = *ports_.mem_wr_req_bytes_o;
    w.filled = 0;
    w.issue = cycle_;
    w.data.resize(size_t{w.bytes} + busBytes_);
  }
  if (*ports_.mem_wr_data_valid_o) {
    if (writes_.empty()) {
      throw std::logic_error(fmt::format("cycle {}: write data beat without a write request", cycle_));
    }
    Write& w = writes_.front();
    std::memcpy(w.data.data() + w.filled, ports_.mem_wr_data_o, busBytes_);
    w.filled += busBytes_;
    const bool last = *ports_.mem_wr_data_last_o != 0;
    if (last != (w.filled >= w.bytes)) {
      throw std::logic_error(fmt::format("cycle {}: write of {} bytes at {:#x} ends after {} bytes",
                                         cycle_, w.bytes, w.addr, w.filled));
    }
    if (last) {
      const uint64_t done = dram_.write(w.addr, w.data.data(), w.bytes, cycle_);
      const uint64_t at = std::max({done, cycle_ + 1, lastAck_ + 1});
      acks_.pushBack() = at;
      lastAck_ = at;
      if (log_.enabled()) log_.dram(true, w.issue, at, w.bytes);
      writes_.popFront();
    }
  }
}

void RtlStepper::edge() {
  const auto& api = plugin_->api();
  *ports_.clk_i = 0;
  api.eval(model_);
  if (log_.enabled()) {
    const uint32_t events = *ports_.obs_cmd_events;
    if (events != 0) observe(events);
  }
  if (tracing_) api.traceDump(model_, cycle_ * periodPs_ + periodPs_ / 2);
  *ports_.clk_i = 1;
  api.eval(model_);
  ++cycle_;
  if (tracing_) api.traceDump(model_, cycle_ * periodPs_);
}

}  // namespace weft::sim
