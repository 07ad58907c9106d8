// First-order timing of the commands, from the hardware parameters. The tiler compares
// candidate tilings with it, the scheduler orders the ring by it, and the watchdog budget is
// derived from it. It is an estimate; the backends' counters are the measurement.
//
// The machine it assumes (hw/README.md, rtl/weft_load.sv): a LOAD issues one DRAM read request
// per row, one a cycle, at most MaxOutstanding in flight, so rows cost max(1, channel time,
// round trip / MaxOutstanding) each; consecutive rows of one i0 run that are contiguous, full
// and whole beats long are merged into requests of up to 1024 bytes; a STORE writes one request per row, its beats one a cycle; a GEMM
// streams its input rows one a cycle while the next one's weights preload, and completes when
// the array's skew (Rows + Cols) has drained; the controller fetches commands from DRAM a few at a time.
// With the output-stationary array (Dataflow OS) a GEMM streams its rows in blocks of Rows, a
// slot a cycle, with no preload, and drains 2*Rows + Cols cycles after its last block.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

#include "DramAllocator.h"
#include "weft/sim/dram/address_mapping.h"
#include "weft/hw/config.h"

namespace weft::sim::dram {
class AddressMapping;
}

namespace weft::accel {

// A STORE whose busiest channel holds over this many times an even share of its writes is
// crowded: its writes enter as that channel drains (DramCost::writeEntryCycles, writeQueueRoom).
inline constexpr double kCrowdedChannels = 2;

// A cycle-level DRAM (hw Dram other than "simple": sim/dram/README.md) as the estimates price it,
// in accelerator cycles, derived from the device's organization, timing and address mapping
// (DramCost.cpp) rather than from DramBytesPerCycle and DramLatencyCycles, which describe the
// simple pipe. Both backends decide each read request before the next is offered (sim/dram
// README, "decide at offer"), so the device serves the requests of every unit one after the
// other; within a request, transactions in different channels overlap. So a read request costs
// the largest share of its transactions any one channel holds, at the rate of a stream within
// one channel (alignedTxCycles, measured on the device model, activates and refresh included),
// plus the rows a strided walk opens. That is the channel time the estimates add up. Posted
// writes drain beside the reads: a write costs the reads' timeline its share of the channel it
// drains in (writeChannelCycles) and the store unit the rate at which writes enter
// (writeTxCycles).
struct DramCost {
  double txBytes = 32;            // one transaction: a burst across a channel
  double alignedTxCycles = 5;     // a read transaction of a stream whose requests each lie in one channel
  double readTxCycles = 5;        // a read transaction of a stream of 1 KB requests, wherever it starts
  // A single-transaction request after one in the same bank group (DramCost.cpp sameGroupGap).
  double sameGroupRequestCycles = 5;
  double writeTxCycles = 5;       // store-unit time of a posted write transaction: the rate writes enter
  double writeChannelCycles = 5;  // the reads' channel time a write transaction takes: its channel's share
  double writeCycles = 5;         // a write transaction's time in its own channel
  double burstTxCycles = 4;       // a transaction's burst on its channel's data bus
  // The store unit's time a write transaction of a STORE whose busiest channel holds `share` of
  // its writes (CommandCost::writeShare): by default (0) two channels draining at once, as a
  // stream fills one channel's queue after another; crowded into one channel, its bursts; spread
  // in short runs, the channels' queues fill side by side and the busiest one's share counts.
  double writeEntryCycles(double share) const {
    if (share <= 0) return writeTxCycles;
    return crowded(share) ? std::max(writeTxCycles, burstTxCycles * std::min(1.0, 2 * share)) : writeCycles * share;
  }
  // The write transactions the write queues take before a drain, for such a store: one channel's
  // queue when it holds them all.
  double writeQueueRoom(double share) const {
    return share > 0 ? std::min(writeQueueTransactions, writeQueueTransactions / channels / share)
                     : writeQueueTransactions;
  }
  bool crowded(double share) const { return share * channels > kCrowdedChannels; }
  // A walk whose writes stay in a channel for fewer transactions than this (a quarter of a
  // channel's write queue) fills the channels' queues side by side; for more, one after another
  // as a stream does. (At weft16-lpddr4 a head merge's 64-byte rows 768 bytes apart stay 5
  // transactions, and enter as four channels drain; a concatenation's half pixels 128 bytes
  // apart stay 14, and entered as a stream's.)
  double writeRunTransactions = 8;
  double rowBytes = 2048;         // of one bank's row: a stream opens a row every rowBytes of address
  double activateCycles = 36;     // a request that opens a row: precharge and activate (tRP + tRCD)
  double offerCycles = 1.25;      // a request offered to its first command (two DRAM cycles)
  // A request of `n` transactions in its channel that opens its row: the activate, then its
  // column commands a burst apart, the last deciding it (the next request is offered then). Its
  // transactions priced at a stream's rate (alignedTxCycles, which holds the row opens of a
  // stream and refresh) hold more than those column commands; what the row's opening (priced at
  // activateCycles) already covers: returned. At weft16-lpddr4, BERT's fc2 loads 256 bytes of each
  // token, 3,072 bytes apart, each request a row conflict: 116 DRAM cycles in the run (tRP 29,
  // tRCD 29, 7 x 8 for the other bursts, 2), where 8 transactions and an activate were priced 131.
  double openedRequestCredit(double n) const {
    n = std::max(1.0, n);
    return std::max(0.0, n * alignedTxCycles - (n - 1) * burstTxCycles - offerCycles);
  }
  // The net channel cycles of opening `opens` rows for requests of `n` transactions each; never
  // less than none (a device whose stream price holds more than an activate, from a user's .ini,
  // does not make a request cheaper for opening its row).
  double openCycles(double opens, double n) const {
    return opens * std::max(0.0, activateCycles - openedRequestCredit(n));
  }
  double latency = 30;            // a request's first data after it is offered: column command, RL, burst
  // Posted write transactions the channels' write queues take before the first drain: a store
  // within them enters at the port's rate, not the drain's (0: a unified queue, none held).
  double writeQueueTransactions = 0;
  // What a drain leaves room for (channels x (high - low watermark)): the writes a store finds
  // room for once the queues have drained since the store before.
  double writeQueueRefill = 0;
  // largestShare[n]: of a request of n transactions starting anywhere in the channels' interleave,
  // the mean of the most any one channel holds (n where one channel holds every address).
  std::vector<double> largestShare;
  // The channels take the address in turns of chunkBytes (0: one channel holds it all).
  uint64_t chunkBytes = 0;
  uint32_t channels = 1;
  // The device's address mapping and its banks (channels x ranks x bank groups x banks), for the
  // rows a placed walk of requests opens (walkRowOpens).
  std::shared_ptr<const sim::dram::AddressMapping> mapping;
  uint32_t ranks = 1, bankGroups = 1, banksPerGroup = 1;
};

// A LOAD's requests in the order the load unit issues them: count0 rows `stride0` apart,
// count1 times `stride1` apart, count2 times `stride2` apart, each of `bytes` from `addr`.
struct RequestWalk {
  uint64_t addr = 0, bytes = 0;
  uint64_t count0 = 1, stride0 = 0, count1 = 1, stride1 = 0, count2 = 1, stride2 = 0;
  uint64_t requests() const { return count0 * count1 * count2; }
  // Bytes from its first address to its last request's end (strides taken as non-negative).
  uint64_t span() const { return (count0 - 1) * stride0 + (count1 - 1) * stride1 + (count2 - 1) * stride2 + bytes; }
};
// With a cycle-level DRAM: the bank rows the walk opens, its transactions visited in order, each
// bank keeping the row it opened last (the first visit to a bank opens one: what it held before
// is not known here). A nested walk revisits its rows (a TRANSPOSE's load reads 16 bytes of each
// of 12 heads, 12 KB apart, then the next 16 bytes of each: 12 rows stay open), which a rate per
// request cannot tell from a walk that leaves every row (a window's pixels of a wide tensor).
// Visits the first kWalkSample requests and scales the rest at their rate.
// `rows`: the banks' rows as the walks before left them (program order, CostModel::openRows);
// a bank not visited before opens a row on its first visit.
struct OpenRows {
  std::vector<uint32_t> rowPlusOne;  // per bank (flat over channels), 0: not known
};
double walkRowOpens(const DramCost& dram, const RequestWalk& walk, OpenRows* rows = nullptr);
// With a cycle-level DRAM that has bank groups: the channel cycles of the walk's column commands,
// one a transaction in address order within a request, requests one after the other: a command
// in the bank group of its channel's command before waits tCCD_L (sameGroupRequestCycles), one in
// another group a stream's transaction (alignedTxCycles); channels in parallel, the busiest
// counts. Requests within one transaction (a packed stem's 9-byte rows, 6 bytes apart) each
// read it again, in its group. Visits the first kColumnSample requests and scales the rest.
// `groups`: each channel's last column command's bank group as the walks before left it (program
// order, CostModel::columnGroups), updated to the walk's last.
struct ColumnGroups {
  std::vector<int64_t> last;  // per channel: rank * bankGroups + bankGroup, -1 not known
};
double walkColumnCycles(const DramCost& dram, const RequestWalk& walk, ColumnGroups* groups = nullptr);
// Of the walk's first `transactions` transactions, the largest share any one channel holds (1 /
// channels when they spread evenly, 1 when one channel holds them all: a STORE of a token's 12
// heads 8 KB apart on LPDDR4's rorabachco), and how many follow one another in a channel before
// the walk moves to another (a stream: a channel's chunk; a head merge's 64-byte rows 768 bytes
// apart: a few).
struct ChannelSpread {
  double share = 0;
  double runTransactions = 0;
};
ChannelSpread walkChannelSpread(const DramCost& dram, const RequestWalk& walk, double transactions);
// With a cycle-level DRAM that has bank groups: the column-command cycles of a STORE's writes as
// the write queues drain them, carried from STORE to STORE in program order. A drain picks a
// write of another group than the last where its queue holds one (FR-FCFS: tCCD_L keeps the
// same group waiting), so a write costs a stream's transaction while a write of another group
// waits to pair with it, and tCCD_L once a queue's worth of one group's writes wait unpaired:
// ViT's head merge writes a head's 197 tokens 768 bytes apart, all in one bank group at DDR4's
// rorabachcobg, while BERT's split writes a token's 12 heads in one group and the next token's
// in the other, which the queue pairs. Writes of one transaction merge. Visits the first
// kWalkSample requests (a queue's worth must be seen) and scales the rest.
struct WriteQueues {
  std::vector<std::vector<double>> unpaired;  // per channel, per rank x bank group: writes waiting unpaired
  std::vector<int64_t> lastColumn;            // per channel: the last write's transaction (merging)
};
double walkWriteDrainCycles(const DramCost& dram, const RequestWalk& walk, WriteQueues& queues);
inline constexpr uint64_t kColumnSample = 64;
inline constexpr uint64_t kWalkSample = 4096;
// The DRAM cost of `config`'s cycle-level DRAM; nullopt for the simple pipe. Computed once per
// configuration (a DRAMsim3 .ini is read once).
std::optional<DramCost> dramCostFor(const hw::HwConfig& config);

// The estimates of one command: cycles its unit is occupied, cycles until it completes, and
// cycles of DRAM channel time it needs.
struct CommandCost {
  double busyCycles = 0;
  double doneCycles = 0;
  double channelCycles = 0;
  // A STORE on a cycle-level DRAM: its write transactions, and its busy cycles when the write
  // queues take them all without a drain (the timeline decides how many they take).
  double writeTransactions = 0;
  double queuedBusyCycles = 0;
  // Placed: the largest share of them any one channel holds, where they crowd into one channel or
  // spread in short runs (DramCost::writeEntryCycles); 0 otherwise, a stream's.
  double writeShare = 0;
  // A LOAD on a cycle-level DRAM: the part of its channel cycles that opens rows (its channels
  // idle meanwhile, for writes to drain).
  double rowOpenCycles = 0;
  // A LOAD: the beats its data takes on the read port, which returns one beat a cycle to the
  // load unit and the command fetch alike (rtl/README.md, "Arbitration").
  double portCycles = 0;
  // A LOAD: its read requests (merged runs or rows).
  double requests = 0;
};

struct CostModel {
  explicit CostModel(const hw::HwConfig& c)
      : rows(c.rows()), cols(c.cols()), busBytes(c.busBytes()),
        bytesPerCycle(static_cast<double>(c.get(hw::Param::kDramBytesPerCycle))),
        latency(static_cast<double>(c.get(hw::Param::kDramLatencyCycles))),
        burst(static_cast<double>(c.get(hw::Param::kDramBurstBytes))),
        maxOutstanding(static_cast<double>(c.get(hw::Param::kMaxOutstanding))),
        outputStationary(c.dataflow() == hw::Dataflow::kOS), dram(dramCostFor(c)) {
    if (dram) latency = dram->latency;
    for (size_t m = 0; m < rowSizes.size(); ++m) {
      rowSizes[m] = static_cast<uint32_t>(hw::memRowBytes(static_cast<hw::Mem>(m), c));
    }
  }

  unsigned rows, cols, busBytes;
  double bytesPerCycle, latency, burst, maxOutstanding;
  // DramLatencyCycles as configured: `latency` unless a cycle-level DRAM's replaces it (the
  // watchdog's bound keeps counting this one, CommandScheduler.cpp).
  double configuredLatency = latency;
  bool outputStationary;
  // The commands' addresses are where their tensors lie (the program's schedule, after
  // placement), not the tiling search's views at address 0.
  bool placed = false;
  std::optional<DramCost> dram;  // a cycle-level DRAM's pricing; nullopt: the simple pipe's
  // Where placed, with a cycle-level DRAM: each bank's row as the LOADs and STOREs costed so far
  // left it. A program's commands are costed in program order, and a LOAD that goes on in the rows the
  // one before it opened (GPT-2's probs x V reads 32 of each 64-byte row of the cache, two LOADs
  // to a channel's 2 KB) opens none; walked alone, each counted one, or two where it crossed a
  // channel's chunk, and the layer was estimated 39 % over its run at weft16-lpddr4.
  mutable OpenRows openRows;
  // The bank group of each channel's last column command, from LOAD to LOAD in program order: a
  // LOAD of one 16-byte chunk after another reads the transaction the one before read, tCCD_L on.
  mutable ColumnGroups columnGroups;
  // The writes waiting in each channel's write queue, by bank group, from STORE to STORE.
  mutable WriteQueues writeQueues;
  std::array<uint32_t, static_cast<size_t>(hw::Mem::kLut) + 1> rowSizes{};  // of each memory a LOAD fills
  // Fixed cycles around a GEMM besides preload, streaming and skew (start, drain pipeline).
  double gemmFixedCycles = 4;

  uint64_t rowSize(hw::Mem m) const { return rowSizes[static_cast<size_t>(m)]; }
  double beats(uint64_t bytes) const { return static_cast<double>((bytes + busBytes - 1) / busBytes); }
  // Channel occupancy of one request at a random alignment: every burst it touches. With a
  // cycle-level DRAM the transactions it touches, at the alignment of a beat (rows start on one
  // wherever a tensor's channels are a multiple of the bus width), as many as one channel holds
  // of them (largestShare).
  double requestCycles(uint64_t bytes) const {
    if (dram) return largestShare(dramTransactions(bytes)) * dram->alignedTxCycles;
    const double bursts = (static_cast<double>(std::max<uint64_t>(bytes, 1)) - 1) / burst + 1;
    return bursts * burst / bytesPerCycle;
  }
  // The store unit's time for a write request of `bytes` (the rate writes enter), and the reads'
  // channel time it takes (its channel's share); both a request's bursts for the simple pipe.
  double writeRequestCycles(uint64_t bytes) const {
    if (dram) return dramTransactions(bytes) * dram->writeTxCycles;
    return requestCycles(bytes);
  }
  double writeChannelRequestCycles(uint64_t bytes) const {
    if (dram) return dramTransactions(bytes) * dram->writeChannelCycles;
    return requestCycles(bytes);
  }
  // Transactions a request of `bytes` touches on average: starting on a beat, or where requests
  // `stride` bytes apart start off the beats (a packed stem's rows, 6 bytes apart), at any byte.
  double dramTransactions(uint64_t bytes, uint64_t stride = 0) const {
    const double b = static_cast<double>(std::max<uint64_t>(bytes, 1));
    const double aligned = stride % busBytes == 0 ? std::min(b, static_cast<double>(busBytes)) : 1.0;
    return std::max(1.0, (b - aligned) / dram->txBytes + 1);
  }
  // The mean number of transactions requests of `bytes` touch that start at `addr`, `addr +
  // stride`, `addr + 2 stride`, ... (stride 0: the one request). Regions start on multiples of
  // kRegionAlignment, so where a request starts within a transaction follows from its address
  // when the transaction divides that alignment (LPDDR4's 32 bytes, DDR4's and HBM2's 64): exact
  // then; for a longer transaction, the mean over where the region may start. The starts of
  // strided requests take n = T / g places, g = gcd(stride, T, alignment), evenly: a request
  // starting at o touches q + 1 transactions (bytes = q T + m, 0 < m), or q + 2 where o > T - m.
  double meanTransactions(uint64_t bytes, uint64_t addr, uint64_t stride) const {
    return meanUnits(bytes, addr, stride, static_cast<uint64_t>(dram->txBytes));
  }
  // The same for aligned units of `T` bytes (a cycle-level DRAM's transactions, the simple
  // pipe's bursts).
  static double meanUnits(uint64_t bytes, uint64_t addr, uint64_t stride, uint64_t T) {
    const uint64_t g = std::gcd(std::gcd(stride, T), kRegionAlignment);  // gcd(0, T) = T
    const uint64_t n = T / g, r = addr % g;
    const uint64_t b = std::max<uint64_t>(bytes, 1), q = b / T, m = b % T;
    uint64_t extra;  // over the n starts, transactions beyond q
    if (m > 0) {
      const uint64_t within = T - m >= r ? (T - m - r) / g + 1 : 0;  // starts o <= T - m
      extra = n + (n - std::min(n, within));
    } else {
      extra = n - (r == 0 ? 1 : 0);  // whole transactions: one more unless it starts on one
    }
    return static_cast<double>(q) + static_cast<double>(extra) / static_cast<double>(n);
  }
  // With a cycle-level DRAM: the most transactions of a request of `n` (a mean, so fractional
  // between the table's whole numbers) that one channel holds, wherever it starts.
  double largestShare(double n) const {
    const auto& t = dram->largestShare;
    const double last = static_cast<double>(t.size() - 1);
    if (n >= last) return n * t.back() / last;
    const auto i = static_cast<size_t>(n);
    const double f = n - static_cast<double>(i);
    return t[i] + f * (t[i + 1] - t[i]);
  }
  // Of a request of `n` transactions starting at transaction `j` of its channel's chunk, the most
  // one channel holds; the mean (largestShare) where it spans more chunks than there are channels.
  double placedShare(uint64_t n, uint64_t j) const {
    const uint64_t chunk = dram->chunkBytes / static_cast<uint64_t>(dram->txBytes);
    const uint64_t first = std::min(n, chunk - j % chunk), rest = n - first;
    const uint64_t whole = rest / chunk, last = rest % chunk;
    if (1 + whole + (last > 0 ? 1 : 0) > dram->channels) return largestShare(static_cast<double>(n));
    return static_cast<double>(std::max({first, whole > 0 ? chunk : 0, last}));
  }
  // Channel cycles of a read request of `bytes` at `addr` (one of several `stride` apart). Where
  // the request starts in the channels' interleave is known once the tensors are placed (the
  // program's schedule, `placed`) for a request on its own; otherwise the mean over where.
  double readRequestCycles(uint64_t bytes, uint64_t addr, uint64_t stride) const {
    const double n = meanTransactions(bytes, addr, stride);
    if (placed && stride == 0 && dram->chunkBytes > 0) {
      const auto T = static_cast<uint64_t>(dram->txBytes);
      return placedShare(static_cast<uint64_t>(n), addr % dram->chunkBytes / T) * dram->alignedTxCycles;
    }
    return largestShare(n) * dram->alignedTxCycles;
  }
  // The least channel cycles of `requests` requests of `bytes` `stride` bytes apart from `addr`,
  // one after the other, from their column commands' bank groups (walkColumnCycles), the first
  // after the LOADs before it (columnGroups); 0 where the device has no bank groups (LPDDR4:
  // tCCD_S = tCCD_L, which a stream's transaction pays already).
  double columnCycles(uint64_t requests, uint64_t bytes, uint64_t stride, uint64_t addr) const {
    if (!dram || !dram->mapping || dram->bankGroups < 2 || requests < 1) return 0;
    RequestWalk walk;
    walk.addr = addr, walk.bytes = bytes, walk.count0 = requests, walk.stride0 = stride;
    return walkColumnCycles(*dram, walk, &columnGroups);
  }
  // Channel cycles of `runs` runs of `runBytes` contiguous bytes `runStride` apart, each read in
  // requests of at most kMaxMergedBytes (a merged request never spans two runs).
  double mergedRunCycles(uint64_t runs, uint64_t runBytes, uint64_t runStride, uint64_t addr) const {
    const uint64_t full = runBytes / kMaxMergedBytes, rest = runBytes % kMaxMergedBytes;
    if (placed) {  // each request where it lies: the first runs' first requests, scaled
      constexpr uint64_t kRuns = 8, kRequests = 8;
      const uint64_t r = std::min(runs, kRuns), f = std::min(full, kRequests);
      double sampled = 0;
      for (uint64_t i = 0; i < r; ++i) {
        const uint64_t at = addr + i * runStride;
        double run = 0;
        for (uint64_t k = 0; k < f; ++k) run += readRequestCycles(kMaxMergedBytes, at + k * kMaxMergedBytes, 0);
        if (f > 0) run *= static_cast<double>(full) / static_cast<double>(f);
        if (rest > 0) run += readRequestCycles(rest, at + full * kMaxMergedBytes, 0);
        sampled += run;
      }
      return sampled * static_cast<double>(runs) / static_cast<double>(r);
    }
    const uint64_t stride = runs > 1 ? runStride : 0;
    double perRun = 0;
    if (full > 0) perRun += static_cast<double>(full) * readRequestCycles(kMaxMergedBytes, addr, kMaxMergedBytes);
    if (rest > 0) perRun += readRequestCycles(rest, addr + full * kMaxMergedBytes, stride);
    return static_cast<double>(runs) * perRun;
  }
  // Channel cycles of `bytes` contiguous bytes read in merged requests.
  double streamCycles(uint64_t bytes) const {
    if (dram) return static_cast<double>(bytes) / dram->txBytes * dram->readTxCycles;
    return static_cast<double>(bytes) / bytesPerCycle;
  }
  double transferCycles(uint64_t requests, uint64_t bytes) const {
    return static_cast<double>(requests) * requestCycles(bytes);
  }
  // Load-unit cycles per row of a LOAD: issue rate, channel, or round trip over the
  // outstanding requests, whichever is slowest.
  // `channel`: the request's channel cycles where known (requestCycles() where not).
  double loadRowCycles(uint64_t bytes, double channel = -1) const {
    if (channel < 0) channel = requestCycles(bytes);
    return std::max({1.0, channel, (latency + beats(bytes) + 1) / maxOutstanding});
  }
  // With a cycle-level DRAM, the rows a request `stride` bytes from the one before opens: one when
  // they are a bank's row or more apart (a window's pixels of a wide tensor), else one every
  // rowBytes of the walk. Nothing for the simple pipe.
  double rowOpenShare(uint64_t bytes, uint64_t stride) const {
    if (!dram) return 0;
    const double walk = static_cast<double>(std::max(bytes, stride));
    return std::min(1.0, walk / dram->rowBytes);
  }
  double loadCycles(uint64_t rows, uint64_t bytes, double channel = -1) const {
    return 2 + static_cast<double>(rows) * loadRowCycles(bytes, channel) + latency + beats(bytes);
  }
  static constexpr uint64_t kMaxMergedBytes = 1024;
  // Whether rows of `bytes` into memory rows of `memoryRow` bytes, `stride` apart, merge.
  bool merges(uint64_t bytes, uint64_t memoryRow, uint64_t stride) const {
    return bytes == memoryRow && stride == bytes && bytes % busBytes == 0 && bytes <= kMaxMergedBytes;
  }
  // Load-unit cycles of `rows` contiguous full rows of `bytes` fetched with merged requests
  // (mergedRequestBytes each); `channel`: a request's channel cycles where known.
  static uint64_t mergedRequestBytes(uint64_t rows, uint64_t bytes) {
    return std::min(rows, std::max<uint64_t>(1, kMaxMergedBytes / bytes)) * bytes;
  }
  double mergedLoadBusyCycles(uint64_t rows, uint64_t bytes, double channel = -1) const {
    const uint64_t perRequest = std::max<uint64_t>(1, kMaxMergedBytes / bytes);
    const uint64_t requests = (rows + perRequest - 1) / perRequest;
    const uint64_t requestBytes = mergedRequestBytes(rows, bytes);
    if (channel < 0) channel = requestCycles(requestBytes);
    const double perReq =
        std::max({1.0, channel, beats(requestBytes), (latency + beats(requestBytes) + 1) / maxOutstanding});
    return 2 + static_cast<double>(requests) * perReq;
  }
  double storeRowCycles(uint64_t bytes) const { return std::max(beats(bytes), writeRequestCycles(bytes)); }
  // The simple pipe's channel cycles of a request of `bytes` at `addr` (one of several `stride`
  // apart): the bursts it touches, where it starts known (a 16-byte row on a 16-byte boundary
  // touches one 32-byte burst, not the 1.47 of a request anywhere; a 64-byte row on a 64-byte
  // boundary two, not 2.97). The program's schedule prices its LOADs and STOREs so (their
  // addresses are where the tensors lie); the tiling search keeps a request anywhere: pricing
  // its views' stores so moved 288 of the baselines' layers, a few by +8 to +18 % (plans whose
  // other costs the search misjudges won).
  double simpleRequestCycles(uint64_t bytes, uint64_t addr, uint64_t stride) const {
    return meanUnits(bytes, addr, stride, static_cast<uint64_t>(burst)) * burst / bytesPerCycle;
  }
  // A simple-pipe request's channel cycles where placed, else -1 (loadRowCycles' "not known").
  double placedSimpleRequestCycles(uint64_t bytes, uint64_t addr, uint64_t stride) const {
    return placed && !dram ? simpleRequestCycles(bytes, addr, stride) : -1;
  }
  double storeCycles(uint64_t rows, uint64_t bytes) const {
    return 4 + static_cast<double>(rows) * storeRowCycles(bytes) + latency;
  }
  // WS: a GEMM occupies the array for its input rows; the next GEMM's weights preload into the
  // PEs' other buffer meanwhile, which is free Cols cycles after the GEMM before streamed its
  // last row, so a GEMM shorter than Cols rows leaves a bubble. It completes once the array's
  // skew (Rows + Cols) has drained.
  // OS: a GEMM occupies the array for whole blocks of Rows slots, so M past a multiple of Rows
  // costs a block; it completes once the last block has drained (2*Rows + Cols).
  double gemmBusyCycles(uint64_t mRows) const {
    if (outputStationary) return static_cast<double>((mRows + rows - 1) / rows * rows);
    return static_cast<double>(std::max<uint64_t>(mRows, cols)) + 1;
  }
  double gemmDoneCycles(uint64_t mRows, uint64_t kRows) const {
    if (outputStationary) return gemmBusyCycles(mRows) + 2.0 * rows + cols + gemmFixedCycles;
    return std::max(gemmBusyCycles(mRows), static_cast<double>(kRows)) + rows + cols + gemmFixedCycles;
  }
  // Controller cycles per command fetched from the ring: the fetch unit (rtl/weft_fetch.sv)
  // keeps FetchSlots commands in requests of half of them, so FetchSlots commands arrive per
  // round trip plus half of them in beats.
  double fetchCycles() const { return fetchCyclesAt(latency); }
  double fetchCyclesAt(double roundTrip) const {
    constexpr double slots = hw::micro::kFetchSlots;
    return std::max(beats(32), (roundTrip + slots / 2 * beats(32) + 2) / slots);
  }

  // Read-port beats per command fetched (the port returns a beat a cycle, fetch and loads alike).
  double fetchPortCycles() const { return beats(hw::kCommandBytes); }
  // DRAM channel cycles per command fetched: the fetch unit reads half its FetchSlots (or more)
  // a request, and those bytes share the channel with the loads and stores (a third of an 8x8
  // array's traffic on a fully-connected layer, whose small tiles take many commands).
  double fetchChannelCycles() const {
    constexpr uint64_t perRequest = hw::micro::kFetchSlots / 2;
    return requestCycles(perRequest * hw::kCommandBytes) / static_cast<double>(perRequest);
  }

  // The costs of the commands (CommandCost.h reads them off a command's fields).
  // `rows` rows of `bytes`, a request each, `stride` bytes apart (0: not known).
  // `walk`: the requests' order, for the rows they open where the tensors are placed.
  CommandCost rowLoad(uint64_t rows, uint64_t bytes, uint64_t stride = 0, uint64_t addr = 0,
                      const RequestWalk* walk = nullptr) const {
    if (dram) {
      const double request = readRequestCycles(bytes, addr, stride);
      const double opens = dram->openCycles(placed && walk != nullptr && rows > 1 && dram->mapping
                                                ? walkRowOpens(*dram, *walk, &openRows) / static_cast<double>(rows)
                                                : rowOpenShare(bytes, stride),
                                            request / dram->alignedTxCycles);
      const double floor = columnCycles(rows, bytes, stride, addr) / static_cast<double>(std::max<uint64_t>(rows, 1));
      const double channel = std::max(request, floor) + opens;
      const double perRow = std::max(loadRowCycles(bytes), channel);
      CommandCost c{2 + static_cast<double>(rows) * perRow, 2 + static_cast<double>(rows) * perRow + latency + beats(bytes),
                    static_cast<double>(rows) * channel};
      c.rowOpenCycles = static_cast<double>(rows) * opens;
      c.portCycles = static_cast<double>(rows) * beats(bytes);
      return c;
    }
    const double channel = placedSimpleRequestCycles(bytes, addr, stride);
    CommandCost c{2 + static_cast<double>(rows) * loadRowCycles(bytes, channel), loadCycles(rows, bytes, channel),
                  channel < 0 ? transferCycles(rows, bytes) : static_cast<double>(rows) * channel};
    c.portCycles = static_cast<double>(rows) * beats(bytes);
    return c;
  }
  // `runs` runs of `rowsPerRun` contiguous full rows of `bytes` fetched with merged requests: a
  // merged request never spans two runs (rtl/README.md), so strided runs cost a request each at
  // least. With a cycle-level DRAM each request costs its largest share of one channel, and runs
  // `runStride` bytes apart that do not follow one another (a depthwise layer's two channel
  // groups of each pixel) the rows their walk opens; the load unit waits for each run's request
  // to be decided.
  CommandCost mergedLoad(uint64_t runs, uint64_t rowsPerRun, uint64_t bytes, uint64_t runStride = 0,
                         uint64_t addr = 0, const RequestWalk* walk = nullptr) const {
    CommandCost c;
    // Where placed, every request of a run starts as the run does (kMaxMergedBytes is whole bursts);
    // with a cycle-level DRAM, a request's channel cycles are the mean of the requests where they
    // lie (a 32-byte run on a 32-byte boundary is one LPDDR4 transaction, not the 1.5 of a run
    // anywhere; a 1 KB request within a channel's chunk is all in that channel).
    const uint64_t runBytes = rowsPerRun * bytes;
    const double placedRuns = placed && dram ? mergedRunCycles(runs, runBytes, runStride, addr) : -1;
    const uint64_t requestsPerRun = (runBytes + kMaxMergedBytes - 1) / kMaxMergedBytes;
    const double channel =
        placedRuns >= 0 ? placedRuns / static_cast<double>(std::max<uint64_t>(1, runs * requestsPerRun))
                        : placedSimpleRequestCycles(mergedRequestBytes(rowsPerRun, bytes), addr, runs > 1 ? runStride : 0);
    c.busyCycles = 2 + static_cast<double>(runs) * (mergedLoadBusyCycles(rowsPerRun, bytes, channel) - 2);
    c.channelCycles = streamCycles(runs * rowsPerRun * bytes);
    if (dram) {
      c.channelCycles = placedRuns >= 0 ? placedRuns : mergedRunCycles(runs, runBytes, runStride, addr);
      // Runs of a request each, one after the other: their column commands' bank groups.
      const double floor = requestsPerRun == 1 ? columnCycles(runs, runBytes, runStride, addr) : 0;
      if (requestsPerRun > 1) columnGroups.last.clear();  // 1 KB requests: its own stream
      if (floor > c.channelCycles) {
        c.channelCycles = floor;
        c.busyCycles = std::max(c.busyCycles, 2 + c.channelCycles);
      }
      if (runs > 1 && runStride != runBytes && runBytes <= kMaxMergedBytes) {
        // Where placed, the rows its runs open on their walk (a head merge's runs revisit the
        // rows of 12 heads token after token, as rowLoad's requests do).
        const double perRequest = c.channelCycles / static_cast<double>(runs) / dram->alignedTxCycles;
        c.rowOpenCycles = dram->openCycles(placed && walk != nullptr && dram->mapping
                                               ? walkRowOpens(*dram, *walk, &openRows)
                                               : static_cast<double>(runs) * rowOpenShare(runBytes, runStride),
                                           perRequest);
        c.channelCycles += c.rowOpenCycles;
        c.busyCycles = std::max(c.busyCycles, 2 + c.channelCycles);
      }
    }
    if (dram) {
      // The last request issues a request's time before the unit is free, and its data returns a
      // latency after its transactions are decided, its beats at the port's rate. (Priced as a
      // kMaxMergedBytes request after the unit's time, a 768-byte copy's LOAD completed 60
      // cycles late at weft16-hbm2: GPT-2 decode's SLICEs and RESHAPEs of a few hundred cycles
      // were estimated 20-45 % over their run at every cycle-level DRAM.)
      const uint64_t lastBytes = runBytes % kMaxMergedBytes == 0 ? std::min(runBytes, kMaxMergedBytes)
                                                                 : runBytes % kMaxMergedBytes;
      const double requests = static_cast<double>(std::max<uint64_t>(1, runs * requestsPerRun));
      const double perRequest = (c.busyCycles - 2) / requests, channelPerRequest = c.channelCycles / requests;
      c.doneCycles = c.busyCycles - perRequest + latency +
                     std::max(beats(lastBytes), channelPerRequest + beats(static_cast<uint64_t>(dram->txBytes)));
    } else {
      c.doneCycles = c.busyCycles + latency + beats(kMaxMergedBytes);
    }
    c.portCycles = static_cast<double>(runs) * beats(runBytes);
    return c;
  }
  // A STORE of rows of `bytes` bytes in `tiles` column tiles: the unit issues a tile a cycle
  // and writes a request a row.
  // With a cycle-level DRAM, rows `stride` bytes apart that follow one another (stride ==
  // bytes) share their transactions: the write queue merges two writes of one transaction.
  CommandCost store(uint64_t rowsToStore, uint64_t bytes, uint32_t tiles, uint64_t stride = 0,
                    uint64_t addr = 0, const RequestWalk* walk = nullptr) const {
    CommandCost c;
    // Its writes leave their rows open where they drain: a LOAD after it in the banks it writes
    // opens its rows again.
    if (dram && placed && walk != nullptr && dram->mapping) walkRowOpens(*dram, *walk, &openRows);
    if (dram) {
      c.writeTransactions = stride == bytes && rowsToStore > 1
                                ? static_cast<double>(rowsToStore * bytes) / dram->txBytes + 1
                                : static_cast<double>(rowsToStore) * meanTransactions(bytes, addr, stride);
    }
    // Placed, its writes enter as the channels that hold them drain: crowded into one channel (a
    // head split's STORE of a token's 12 heads, 8 KB apart, on LPDDR4) at that channel's rate,
    // spread in short runs (a head merge's tokens, 768 bytes apart) at all of theirs. A walk within
    // one turn of the channels' interleave is a stream's piece: the next STORE goes on.
    if (dram && placed && walk != nullptr && dram->mapping && dram->channels > 1 &&
        walk->span() > dram->chunkBytes * dram->channels) {
      const ChannelSpread spread = walkChannelSpread(*dram, *walk, dram->writeQueueTransactions);
      if (dram->crowded(spread.share) || spread.runTransactions < dram->writeRunTransactions) c.writeShare = spread.share;
    }
    const double writeTx = dram ? dram->writeEntryCycles(c.writeShare) : 0;
    // A row's write enters as its transactions do: rows that share a transaction merge into the
    // queued write of the row before (16-byte rows: two to a 32-byte transaction).
    const double write = dram ? c.writeTransactions / static_cast<double>(std::max<uint64_t>(rowsToStore, 1)) * writeTx
                              : placed ? simpleRequestCycles(bytes, addr, stride) : writeRequestCycles(bytes);
    const double perRow = std::max({static_cast<double>(tiles), beats(bytes), write});
    c.busyCycles = 4 + static_cast<double>(rowsToStore) * perRow;
    c.doneCycles = c.busyCycles + latency;
    if (dram) {
      c.channelCycles = c.writeTransactions * dram->writeChannelCycles;
      if (placed && walk != nullptr && dram->mapping && dram->bankGroups > 1 && dram->writeQueueTransactions > 0) {
        c.channelCycles = std::max(c.channelCycles, walkWriteDrainCycles(*dram, *walk, writeQueues));
      }
      c.queuedBusyCycles = 4 + static_cast<double>(rowsToStore) * std::max(static_cast<double>(tiles), beats(bytes));
    } else {
      c.channelCycles = static_cast<double>(rowsToStore) * write;
    }
    return c;
  }
  // A GEMM of `steps` steps of `mRows` rows over `kRows` weight rows: each step starts when the
  // one before it leaves the array free, and only the last one's drain is not hidden.
  CommandCost gemm(uint64_t mRows, uint64_t kRows, uint32_t steps, bool keepWeights) const {
    const double busy = gemmBusyCycles(mRows);
    const double done = gemmDoneCycles(mRows, keepWeights ? 0 : kRows);
    return {static_cast<double>(steps) * busy, static_cast<double>(steps - 1) * busy + done, 0};
  }
};

}  // namespace weft::accel
