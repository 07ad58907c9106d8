// An independent check of a DRAM command log against a device's JEDEC timing: every command
// against the latest earlier commands it has to wait for, with the relations written out here
// from the device's parameters rather than taken from the model's own tables. Used by the
// DRAM tests on whatever traffic they generate.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "weft/sim/dram/device.h"
#include "weft/sim/dram/memory_system.h"

namespace weft::sim::dram::testing {

class TimingChecker {
 public:
  explicit TimingChecker(const DeviceSpec& spec) : s_(spec) {}

  // "" if the log keeps every rule, else the first rule broken.
  std::string check(const std::vector<CommandRecord>& log) const {
    std::vector<Channel> channels(s_.org.channels, Channel(s_.org));
    for (const CommandRecord& c : log) {
      const std::string e = step(channels.at(c.channel), c);
      if (!e.empty()) {
        return fmt::format("cycle {} {} ch{} rank{} bg{} bank{} row {}: {}", c.cycle, commandName(c.kind), c.channel,
                           c.rank, c.bankGroup, c.bank, c.row, e);
      }
    }
    return "";
  }

 private:
  static constexpr int64_t kLongAgo = -(int64_t{1} << 40);
  struct Bank {
    bool open = false;
    int64_t row = -1;
    int64_t act = kLongAgo, pre = kLongAgo, rd = kLongAgo, wr = kLongAgo, rda = kLongAgo, wra = kLongAgo,
            refb = kLongAgo;
  };
  struct Rank {
    std::vector<int64_t> act, rd, wr;  // latest per bank group
    std::deque<int64_t> acts;          // the latest activates (tFAW, t32AW)
    int64_t ref = kLongAgo, pre = kLongAgo;
  };
  struct Channel {
    explicit Channel(const Organization& o)
        : banks(o.ranks * o.banks()), ranks(o.ranks, Rank{std::vector<int64_t>(o.bankGroups, kLongAgo),
                                                          std::vector<int64_t>(o.bankGroups, kLongAgo),
                                                          std::vector<int64_t>(o.bankGroups, kLongAgo),
                                                          {}, kLongAgo, kLongAgo}) {}
    std::vector<Bank> banks;
    std::vector<Rank> ranks;
    int64_t cycle = -1;
    int rowCommands = 0, columnCommands = 0;
  };

  std::string step(Channel& ch, const CommandRecord& c) const {
    const Organization& o = s_.org;
    const Timing& t = s_.timing;
    const int64_t now = static_cast<int64_t>(c.cycle);
    const bool groups = o.bankGroups > 1, posted = !isGddr(o.protocol) && !isHbm(o.protocol);
    const int64_t BL = t.burstCycles, RL = t.AL + t.CL, WL = t.AL + t.CWL, AL = t.AL;
    const int64_t ccdL = std::max<int64_t>(BL, groups ? t.tCCD_L : t.tCCD_S), ccdS = std::max<int64_t>(BL, t.tCCD_S);
    const int64_t wtrL = groups ? t.tWTR_L : t.tWTR_S, rrdL = groups ? t.tRRD_L : t.tRRD_S;
    Rank& rank = ch.ranks.at(c.rank);
    Bank& bank = ch.banks.at(c.rank * o.banks() + c.bankGroup * o.banksPerGroup + c.bank);
    const bool column = c.kind == CommandRecord::kRead || c.kind == CommandRecord::kWrite ||
                        c.kind == CommandRecord::kReadAutoPrecharge || c.kind == CommandRecord::kWriteAutoPrecharge;
    const bool reads = c.kind == CommandRecord::kRead || c.kind == CommandRecord::kReadAutoPrecharge;
    std::string why;
    const auto need = [&](int64_t earliest, const char* rule) {
      if (why.empty() && now < earliest) why = fmt::format("{} (earliest {})", rule, earliest);
    };

    // The command bus: one command a cycle; HBM one row and one column command.
    if (now < ch.cycle) return "commands out of order";
    if (now != ch.cycle) ch.cycle = now, ch.rowCommands = ch.columnCommands = 0;
    ++(column ? ch.columnCommands : ch.rowCommands);
    if (s_.controller.dualCommandIssue ? (ch.rowCommands > 1 || ch.columnCommands > 1)
                                       : ch.rowCommands + ch.columnCommands > 1) {
      return "two commands in one cycle";
    }

    switch (c.kind) {
      case CommandRecord::kActivate:
        if (bank.open) return "ACT to an open bank";
        need(bank.act + t.tRC, "tRC");
        need(bank.pre + t.tRP, "tRP");
        need(bank.rda + AL + BL + t.tRTP + t.tRP, "RDA to ACT");
        need(bank.wra + WL + BL + t.tWR + t.tRP, "WRA to ACT (tWR + tRP)");
        need(bank.refb + t.tRFCb, "tRFCb");
        for (uint32_t g = 0; g < o.bankGroups; ++g) need(rank.act[g] + (g == c.bankGroup ? rrdL : t.tRRD_S),
                                                          g == c.bankGroup ? "tRRD_L" : "tRRD_S");
        if (t.tFAW > 0 && rank.acts.size() >= 4) need(rank.acts[rank.acts.size() - 4] + t.tFAW, "tFAW");
        if (isGddr(o.protocol) && t.t32AW > 0 && rank.acts.size() >= 32) {
          need(rank.acts[rank.acts.size() - 32] + t.t32AW, "t32AW");
        }
        need(rank.ref + t.tRFC, "tRFC");
        if (!why.empty()) return why;
        bank.open = true, bank.row = c.row, bank.act = now;
        rank.act[c.bankGroup] = now;
        rank.acts.push_back(now);
        if (rank.acts.size() > 32) rank.acts.pop_front();
        return "";
      case CommandRecord::kPrecharge:
        if (!bank.open) return "PRE to a closed bank";
        need(bank.act + t.tRAS, "tRAS");
        need(bank.rd + AL + t.tRTP, "tRTP");
        need(bank.wr + WL + BL + t.tWR, "tWR");
        if (t.tPPD > 0 && (isGddr(o.protocol) || o.protocol == Protocol::kLPDDR4 || o.protocol == Protocol::kLPDDR5)) {
          need(rank.pre + t.tPPD, "tPPD");
        }
        if (!why.empty()) return why;
        bank.open = false, bank.pre = now, rank.pre = now;
        return "";
      case CommandRecord::kRefresh: {
        for (uint32_t b = 0; b < o.banks(); ++b) {
          const Bank& x = ch.banks[c.rank * o.banks() + b];
          if (x.open) return "REF with a bank open";
          need(x.pre + t.tRP, "PRE to REF (tRP)");
          need(x.rda + AL + t.tRTP + t.tRP, "RDA to REF");
          need(x.wra + WL + BL + t.tWR + t.tRP, "WRA to REF");
        }
        need(rank.ref + t.tRFC, "REF to REF (tRFC)");
        if (!why.empty()) return why;
        rank.ref = now;
        return "";
      }
      case CommandRecord::kBankRefresh:
        if (bank.open) return "REFb to an open bank";
        need(bank.pre + t.tRP, "PRE to REFb (tRP)");
        need(bank.refb + t.tRFCb, "REFb to REFb (tRFCb)");
        if (!why.empty()) return why;
        bank.refb = now;
        return "";
      default:
        break;
    }
    // Column commands.
    if (!bank.open || bank.row != c.row) return fmt::format("column command to row {} with row {} open", c.row, bank.row);
    need(bank.act + (reads ? t.tRCDRD : t.tRCDWR) - (posted ? AL : 0), reads ? "tRCD (read)" : "tRCD (write)");
    for (uint32_t r = 0; r < o.ranks; ++r) {
      const Rank& x = ch.ranks[r];
      for (uint32_t g = 0; g < o.bankGroups; ++g) {
        const bool sameRank = r == c.rank, sameGroup = sameRank && g == c.bankGroup;
        if (reads) {
          need(x.rd[g] + (sameGroup ? ccdL : sameRank ? ccdS : BL + t.tRTRS),
               sameGroup ? "RD to RD (tCCD_L)" : sameRank ? "RD to RD (tCCD_S)" : "RD to RD, other rank (tRTRS)");
          need(x.wr[g] + (sameGroup ? WL + BL + wtrL : sameRank ? WL + BL + t.tWTR_S : WL + BL + t.tRTRS - RL),
               sameGroup ? "WR to RD (tWTR_L)" : sameRank ? "WR to RD (tWTR_S)" : "WR to RD, other rank");
        } else {
          need(x.rd[g] + RL + BL - WL + t.tRTRS, "RD to WR (bus turnaround)");
          need(x.wr[g] + (sameGroup ? ccdL : sameRank ? ccdS : BL),
               sameGroup ? "WR to WR (tCCD_L)" : sameRank ? "WR to WR (tCCD_S)" : "WR to WR, other rank");
        }
      }
    }
    if (!why.empty()) return why;
    (reads ? bank.rd : bank.wr) = now;
    (reads ? rank.rd : rank.wr)[c.bankGroup] = now;
    if (c.kind == CommandRecord::kReadAutoPrecharge) bank.open = false, bank.rda = now;
    if (c.kind == CommandRecord::kWriteAutoPrecharge) bank.open = false, bank.wra = now;
    return "";
  }

  const DeviceSpec s_;
};

}  // namespace weft::sim::dram::testing
