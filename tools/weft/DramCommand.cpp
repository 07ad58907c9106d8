#include "DramCommand.h"

#include <fmt/format.h>

#include <chrono>

#include "Report.h"
#include "weft/common/files.h"
#include "weft/sim/dram/device.h"
#include "weft/sim/dram/trace_replay.h"

namespace weft::tool {

namespace dram = weft::sim::dram;

void DramCommand::add(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "dram", "the cycle-level DRAM model on its own: replay a DRAMsim3 trace on a device, list the device presets");
  cmd->require_subcommand(1);
  replayCmd_ = cmd->add_subcommand(
      "replay", "replay a trace in DRAMsim3's format (0x<address> READ|WRITE <cycle>) as DRAMsim3's trace driver does; "
                "print cycles, latency, row hits, commands, energy and bandwidth");
  replayCmd_->add_option("trace", tracePath_, "the trace file")->required();
  replayCmd_->add_option("--dram", device_, "a preset (weft dram devices) or a DRAMsim3 .ini device file")->required();
  replayCmd_->add_option("--json", jsonPath_, "also write the figures as JSON here");
  replayCmd_->add_flag("--quiet", quiet_, "no text report (notes about the device still go to stderr)");
  devicesCmd_ = cmd->add_subcommand("devices", "list the DRAM presets with their organization and sources");
}

std::optional<int> DramCommand::run() const {
  if (devicesCmd_ != nullptr && devicesCmd_->parsed()) return devices();
  if (replayCmd_ != nullptr && replayCmd_->parsed()) return replay();
  return std::nullopt;
}

int DramCommand::replay() const {
  const dram::DeviceSpec spec = dram::loadDevice(device_);
  for (const auto& note : spec.notes) fmt::print(stderr, "weft: note: {}: {}\n", spec.name, note);
  // Before a long replay, not after it: where the JSON goes (its folder made, as every command's).
  if (!jsonPath_.empty()) requireWritableDirectoryFor(jsonPath_);
  const auto start = std::chrono::steady_clock::now();
  const dram::ReplayResult result = dram::replayTraceFile(spec, tracePath_);  // read as it runs
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!jsonPath_.empty()) common::writeFileAtomically(jsonPath_, result.toJson().dump(2) + "\n");
  if (!quiet_) {
    fmt::print("{}", result.toText());
    fmt::print("replay            {} transactions read and simulated in {:.3f} s ({:.1f} M transactions/s)\n",
               result.transactions,
               seconds, seconds > 0 ? double(result.transactions) / seconds / 1e6 : 0.0);
  }
  return 0;
}

int DramCommand::devices() const {
  for (const auto& name : dram::presetNames()) {
    const dram::DeviceSpec s = dram::preset(name);
    const auto& o = s.org;
    fmt::print("{:<13} {} x{}-bit channel{}, {} rank{}, {} banks{}, tCK {} ns, {:.1f} GB/s, {} GiB\n    {}\n", name,
               o.channels, o.busWidth, o.channels == 1 ? "" : "s", o.ranks, o.ranks == 1 ? "" : "s", o.banks(),
               o.bankGroups > 1 ? fmt::format(" in {} groups", o.bankGroups) : "", s.timing.tCK(),
               s.peakGBps(),
               double(o.capacityBytes()) / double(1ull << 30), s.source);
  }
  return 0;
}

}  // namespace weft::tool
