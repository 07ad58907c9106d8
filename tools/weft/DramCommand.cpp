#include "DramCommand.h"

#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>

#include "Report.h"
#include "weft/common/files.h"
#include "weft/sim/dram/device.h"
#include "weft/sim/dram/trace_replay.h"

namespace weft::tool {

namespace dram = weft::sim::dram;

namespace {

// `--command-trace`: lines written as the replay hands its commands over, into `<path>.tmp.<pid>`,
// renamed to `path` by finish(); removed if never finished. A pipe, a terminal or a device
// (`--command-trace /dev/stdout | grep refresh`) is written in place (common::writesInPlace).
class CommandTraceFile {
 public:
  CommandTraceFile(std::string path, const dram::DeviceSpec& spec)
      : path_(std::move(path)),
        inPlace_(common::writesInPlace(path_)),
        temporary_(inPlace_ ? path_ : fmt::format("{}.tmp.{}", path_, static_cast<long>(::getpid()))),
        mapping_(spec.controller.addressMapping, spec.org),
        out_(temporary_, std::ios::binary | std::ios::trunc) {
    if (!out_) throw std::runtime_error(fmt::format("cannot write '{}': {}", path_, std::strerror(errno)));
  }
  ~CommandTraceFile() {
    if (!finished_ && !inPlace_) std::remove(temporary_.c_str());
  }
  CommandTraceFile(const CommandTraceFile&) = delete;
  CommandTraceFile& operator=(const CommandTraceFile&) = delete;

  dram::CommandSink sink() {
    return [this](const std::vector<dram::CommandRecord>& commands) {
      for (const auto& c : commands) out_ << dram::dramsim3CommandLine(c, mapping_) << '\n';
    };
  }
  void finish() {
    out_.close();
    if (out_.fail() || (!inPlace_ && std::rename(temporary_.c_str(), path_.c_str()) != 0)) {
      throw std::runtime_error(fmt::format("cannot write '{}': {}", path_, std::strerror(errno)));
    }
    finished_ = true;
  }

 private:
  std::string path_;
  bool inPlace_;
  std::string temporary_;
  dram::AddressMapping mapping_;
  std::ofstream out_;
  bool finished_ = false;
};

}  // namespace

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
  replayCmd_->add_option("--command-trace", commandTracePath_,
                         "also write every DRAM command here, a line each in DRAMsim3's command-trace format (cycle, "
                         "command, channel, rank, bank group, bank, row, column), all channels in cycle order");
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
  // Before a long replay, not after it: where the outputs go (their folders made, as every command's).
  for (const std::string* path : {&jsonPath_, &commandTracePath_}) {
    if (!path->empty()) requireWritableDirectoryFor(*path);
  }
  // The command trace streams into a temporary beside its path, renamed there once the replay
  // is done: a replay that fails (a bad line) leaves no half trace.
  std::optional<CommandTraceFile> commandTrace;
  if (!commandTracePath_.empty()) commandTrace.emplace(commandTracePath_, spec);
  const auto start = std::chrono::steady_clock::now();
  const dram::ReplayResult result = dram::replayTraceFile(  // read as it runs
      spec, tracePath_, commandTrace ? commandTrace->sink() : dram::CommandSink{});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (commandTrace) commandTrace->finish();
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
