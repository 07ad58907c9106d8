#include "PreparedModelCache.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include "ExecutionParameters.h"
#include "ModelAccess.h"
#include "ProgramRelocation.h"
#include "weft/hal/CacheFiles.h"
#include "weft/kernels/CpuExecutor.h"
#include "weft/nn/ModelSerialization.h"
#include "weft/nn/Sha256.h"

namespace weft::accel {

namespace {

constexpr const hal::CacheFileFormat& kFormat = kPreparedModelCacheFormat;
// What the model records hold (their first byte).
enum class CacheForm : uint8_t { kCompiled = 0, kCompiledPerExecution = 1 };
enum class FileKind : uint32_t { kModel = 1, kData = 2 };
constexpr uint32_t kMaxRank = 8;

nn::Sha256Digest configDigest(const hw::HwConfig& config) {
  const std::string json = config.toJson();
  return nn::sha256(json.data(), json.size());
}

struct RegionRecord {
  uint64_t addr = 0, bytes = 0;
  std::vector<uint8_t> contents;  // constants and constant tensors; empty: made again or none
};

void writeLayout(hal::PayloadWriter& w, const TensorLayout& t) {
  w.u32(t.operand).u32(static_cast<uint32_t>(t.type)).u32(static_cast<uint32_t>(t.zeroPoint));
  w.u64(t.dims.size());
  for (uint32_t d : t.dims) w.u32(d);
  w.u8(static_cast<uint8_t>(t.layout));
  for (uint32_t v : {t.image.batches, t.image.height, t.image.width, t.image.channels}) w.u32(v);
  for (uint32_t v : {t.haloTop, t.haloBottom, t.haloLeft, t.haloRight}) w.u32(v);
  w.u32(t.fill);
  w.u8(t.aliasOf ? 1 : 0).u32(t.aliasOf.value_or(0)).u32(t.channelOffset);
  w.u8(t.halfOnDevice ? 1 : 0);
}

TensorLayout readLayout(hal::PayloadReader& r) {
  TensorLayout t;
  t.operand = r.u32();
  t.type = static_cast<nn::OperandType>(r.u32());
  t.zeroPoint = static_cast<int32_t>(r.u32());
  const uint64_t rank = r.count(4);
  for (uint64_t i = 0; i < rank && i < kMaxRank; ++i) t.dims.push_back(r.u32());
  if (rank > kMaxRank) r.bytes(SIZE_MAX);  // fails the reader
  t.layout = static_cast<DataLayout>(r.u8());
  t.image = ImageShape{r.u32(), r.u32(), r.u32(), r.u32()};
  t.haloTop = r.u32();
  t.haloBottom = r.u32();
  t.haloLeft = r.u32();
  t.haloRight = r.u32();
  const uint32_t fill = r.u32();
  if (fill > 0xffff) r.bytes(SIZE_MAX);  // fails the reader: a fill is two bytes
  t.fill = static_cast<uint16_t>(fill);
  const bool alias = r.u8() != 0;
  const uint32_t parent = r.u32();
  if (alias) t.aliasOf = parent;
  t.channelOffset = r.u32();
  t.halfOnDevice = r.u8() != 0;
  return t;
}

void writeIndexes(hal::PayloadWriter& w, const std::vector<uint32_t>& v) {
  w.u64(v.size());
  for (uint32_t x : v) w.u32(x);
}
std::vector<uint32_t> readIndexes(hal::PayloadReader& r) {
  std::vector<uint32_t> v(r.count(4));
  for (auto& x : v) x = r.u32();
  return v;
}

void writePositions(hal::PayloadWriter& w, const std::map<uint32_t, size_t>& m) {
  w.u64(m.size());
  for (const auto& [operand, position] : m) w.u32(operand).u64(position);
}
std::map<uint32_t, size_t> readPositions(hal::PayloadReader& r) {
  std::map<uint32_t, size_t> m;
  const uint64_t n = r.count(12);
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t operand = r.u32();
    m[operand] = static_cast<size_t>(r.u64());
  }
  return m;
}

nn::Result<std::vector<uint8_t>> readBack(DeviceQueue& queue, const DramRegion& region) {
  std::vector<uint8_t> bytes(region.bytes());
  queue.backend().readDram(region.addr(), bytes.data(), bytes.size());
  return bytes;
}

}  // namespace

struct ParsedCache {
  std::optional<CachedModel> perExecution;  // the form kCompiledPerExecution: the model, no program
  CompiledModel compiled;  // regions not placed yet; the program has the addresses it was compiled for
  std::vector<uint32_t> inputs, outputs;
  nn::Priority priority = nn::Priority::MEDIUM;
  std::vector<std::pair<uint32_t, RegionRecord>> tensors;  // operand -> its region
  std::vector<RegionRecord> constants;
  RegionRecord snapshots;
};

nn::Result<CacheImage> captureForCache(const CompiledModel& compiled, const nn::Model& model, nn::Priority priority,
                                       DeviceQueue& queue) {
  hal::PayloadWriter m, data;
  m.u8(static_cast<uint8_t>(CacheForm::kCompiled));
  writeIndexes(m, model.main.inputIndexes);
  writeIndexes(m, model.main.outputIndexes);
  m.u32(static_cast<uint32_t>(priority));
  m.u64(compiled.tensors.size());
  for (const auto& [operand, placed] : compiled.tensors) {
    writeLayout(m, placed.layout);
    if (placed.layout.aliasOf) continue;  // a view into its parent's region (zero-copy concatenation)
    const bool hasValue = operand < model.main.operands.size() && isConstant(model.main.operands[operand]);
    m.u64(placed.region->addr()).u64(placed.region->bytes()).u8(hasValue ? 1 : 0);
    if (hasValue) {
      auto bytes = readBack(queue, *placed.region);
      if (!bytes.ok()) return bytes.error();
      data.bytes(bytes->data(), bytes->size());
    }
  }
  m.u64(compiled.constants.size());
  for (const SharedRegion& region : compiled.constants) {
    m.u64(region->addr()).u64(region->bytes());
    auto bytes = readBack(queue, *region);
    if (!bytes.ok()) return bytes.error();
    data.bytes(bytes->data(), bytes->size());
  }
  m.u64(compiled.snapshots->addr()).u64(compiled.snapshots->bytes());
  m.u64(compiled.program.size()).bytes(compiled.program.data(), compiled.program.size());
  m.u64(compiled.operations.size());
  for (const CompiledOperation& op : compiled.operations) {
    m.u32(op.operationIndex).u32(static_cast<uint32_t>(op.type)).u32(static_cast<uint32_t>(op.unit));
    m.u64(op.macs).u64(op.peakOpsPerCycle).u64(op.commands).f64(op.estimatedCycles).string(op.tiling);
    m.u32(op.snapshotAfter ? 1 : 0);
  }
  m.f64(compiled.estimatedCycles).u64(compiled.watchdogCycles);
  writePositions(m, compiled.firstReader);
  writePositions(m, compiled.producer);
  m.string(compiled.tilings.fingerprint);
  writeIndexes(m, compiled.tilings.tilings);

  return sealCacheImage(queue.config(), m.data(), std::move(data.data()));
}

nn::Result<CacheImage> captureModelForCache(const nn::Model& model, nn::Priority priority,
                                            nn::ExecutionPreference preference, const hw::HwConfig& config) {
  auto serialized = nn::serializeModel(model);
  if (!serialized.ok()) return serialized.error();
  hal::PayloadWriter m;
  m.u8(static_cast<uint8_t>(CacheForm::kCompiledPerExecution));
  m.u32(static_cast<uint32_t>(priority)).u32(static_cast<uint32_t>(preference));
  m.u64(serialized->structure.size()).bytes(serialized->structure.data(), serialized->structure.size());
  return sealCacheImage(config, m.data(), std::move(serialized->constants));
}

const CachedModel* perExecutionModel(const ParsedCache& cache) {
  return cache.perExecution.has_value() ? &*cache.perExecution : nullptr;
}

CacheImage sealCacheImage(const hw::HwConfig& config, const std::vector<uint8_t>& modelRecords,
                          std::vector<uint8_t> data) {
  // The digests open the model payload: the configuration it is for, the data file it goes with.
  const nn::Sha256Digest configSum = configDigest(config);
  const nn::Sha256Digest dataDigest = nn::sha256(data);
  CacheImage image;
  image.model.assign(configSum.begin(), configSum.end());
  image.model.insert(image.model.end(), dataDigest.begin(), dataDigest.end());
  image.model.insert(image.model.end(), modelRecords.begin(), modelRecords.end());
  image.data = std::move(data);
  return image;
}

nn::Status writeCache(const CacheImage& image, const hal::CacheRequest& cache) {
  if (cache.modelCache.size() != kAcceleratorCacheFiles.modelCache ||
      cache.dataCache.size() != kAcceleratorCacheFiles.dataCache) {
    return NN_ERROR(BAD_DATA) << "weft-accel caches into 1 model file and 1 data file, got "
                              << cache.modelCache.size() << " and " << cache.dataCache.size();
  }
  // Data first: a model file is only ever next to the data file it names.
  NN_TRY(hal::writeCacheFile(*cache.dataCache[0],
                             hal::frameCacheFile(kFormat, static_cast<uint32_t>(FileKind::kData), cache.token, image.data)));
  return hal::writeCacheFile(*cache.modelCache[0],
                             hal::frameCacheFile(kFormat, static_cast<uint32_t>(FileKind::kModel), cache.token, image.model));
}

nn::Result<std::shared_ptr<ParsedCache>> readCache(const std::vector<hal::SharedCacheFile>& modelCache,
                                                   const std::vector<hal::SharedCacheFile>& dataCache,
                                                   const hal::CacheToken& token, const hw::HwConfig& config) {
  NN_RET_CHECK(modelCache.size() == kAcceleratorCacheFiles.modelCache &&
               dataCache.size() == kAcceleratorCacheFiles.dataCache)
      << "weft-accel caches into 1 model file and 1 data file, got " << modelCache.size() << " and "
      << dataCache.size();
  auto modelFile = hal::readCacheFile(*modelCache[0]);
  if (!modelFile.ok()) return modelFile.error();
  auto dataFile = hal::readCacheFile(*dataCache[0]);
  if (!dataFile.ok()) return dataFile.error();
  auto model = hal::unframeCacheFile(kFormat, static_cast<uint32_t>(FileKind::kModel), token, *modelFile, "the model cache");
  if (!model.ok()) return model.error();
  auto data = hal::unframeCacheFile(kFormat, static_cast<uint32_t>(FileKind::kData), token, *dataFile, "the data cache");
  if (!data.ok()) return data.error();
  return parseCacheImage(CacheImage{std::move(model).value(), std::move(data).value()}, config);
}

namespace {

// The per-execution form: the model itself, checked like any model a client gives.
nn::Result<CachedModel> parsePerExecution(hal::PayloadReader& r, const CacheImage& image, const hw::HwConfig& config) {
  CachedModel cached;
  const auto priority = static_cast<int32_t>(r.u32());
  const auto preference = static_cast<int32_t>(r.u32());
  NN_RET_CHECK(r.ok() && (priority == 90 || priority == 100 || priority == 110)) << "the model cache names no priority";
  NN_RET_CHECK(preference >= 0 && preference <= 2) << "the model cache names no execution preference";
  cached.priority = static_cast<nn::Priority>(priority);
  cached.preference = static_cast<nn::ExecutionPreference>(preference);
  const uint64_t structureBytes = r.count(1);
  const uint8_t* structure = r.bytes(structureBytes);
  NN_RET_CHECK(structure != nullptr && r.atEnd()) << "the model cache is malformed";
  auto model = nn::deserializeModel(std::vector<uint8_t>(structure, structure + structureBytes), image.data);
  if (!model.ok()) return NN_ERROR(BAD_DATA) << "the cached model: " << model.error().message;
  cached.model = std::move(model).value();
  // The files were intact, yet what they hold is checked like any model a client gives; then it
  // must still be a model that runs here, and one with execution parameters (anything else is
  // cached as its program).
  if (nn::Status valid = nn::validateModel(cached.model); !valid.ok()) {
    return NN_ERROR(BAD_DATA) << "the cached model is invalid: " << valid.error().message;
  }
  const auto supported = supportedOperations(cached.model, config, nullptr);
  NN_RET_CHECK(std::all_of(supported.begin(), supported.end(), [](bool b) { return b; }) &&
               !executionParameters(cached.model).empty())
      << "the cached model is not one weft-accel compiles per execution";
  return cached;
}

// The compiled form's records: tensors, constants and snapshots (their contents from the data
// file), the program and the operations.
void readCompiledRecords(hal::PayloadReader& r, hal::PayloadReader& d, ParsedCache& parsed) {
  CompiledModel& c = parsed.compiled;
  auto contents = [&](RegionRecord& region) {
    const uint8_t* p = d.bytes(region.bytes);
    if (p != nullptr) region.contents.assign(p, p + region.bytes);
  };
  const uint64_t tensors = r.count(16);
  for (uint64_t i = 0; i < tensors && r.ok(); ++i) {
    TensorLayout layout = readLayout(r);
    if (!layout.aliasOf) {
      RegionRecord region{r.u64(), r.u64(), {}};
      if (r.u8() != 0) contents(region);
      parsed.tensors.emplace_back(layout.operand, std::move(region));
    }
    c.tensors[layout.operand] = PlacedTensor{std::move(layout), nullptr};
  }
  const uint64_t constants = r.count(16);
  for (uint64_t i = 0; i < constants && r.ok(); ++i) {
    RegionRecord region{r.u64(), r.u64(), {}};
    contents(region);
    parsed.constants.push_back(std::move(region));
  }
  parsed.snapshots = RegionRecord{r.u64(), r.u64(), {}};
  const uint64_t programBytes = r.count(1);
  if (const uint8_t* p = r.bytes(programBytes)) c.program.assign(p, p + programBytes);
  const uint64_t operations = r.count(56);
  for (uint64_t i = 0; i < operations && r.ok(); ++i) {
    CompiledOperation op;
    op.operationIndex = r.u32();
    op.type = static_cast<nn::OperationType>(r.u32());
    op.unit = static_cast<hw::Unit>(r.u32());
    op.macs = r.u64();
    op.peakOpsPerCycle = r.u64();
    op.commands = r.u64();
    op.estimatedCycles = r.f64();
    op.tiling = r.string();
    op.snapshotAfter = r.u32() != 0;
    c.operations.push_back(std::move(op));
  }
  c.estimatedCycles = r.f64();
  c.watchdogCycles = r.u64();
  c.firstReader = readPositions(r);
  c.producer = readPositions(r);
  c.tilings.fingerprint = r.string();
  c.tilings.tilings = readIndexes(r);
}

// What the prepared model indexes must be in range, whatever the files say.
nn::Status checkCompiledIndexes(const ParsedCache& parsed) {
  const CompiledModel& c = parsed.compiled;
  NN_RET_CHECK(!c.program.empty() && c.program.size() % hw::kCommandBytes == 0) << "the cached program is malformed";
  for (const auto& [operand, placed] : c.tensors) {
    if (!placed.layout.aliasOf) continue;
    auto parent = c.tensors.find(*placed.layout.aliasOf);
    NN_RET_CHECK(parent != c.tensors.end() && !parent->second.layout.aliasOf)
        << "a cached view names no tensor with a region of its own";
  }
  size_t owners = 0;
  for (const auto& [operand, placed] : c.tensors) owners += placed.layout.aliasOf ? 0 : 1;
  NN_RET_CHECK(parsed.tensors.size() == owners) << "a tensor is cached twice";
  for (const auto* positions : {&c.firstReader, &c.producer}) {
    for (const auto& [operand, position] : *positions) {
      NN_RET_CHECK(position < c.operations.size() && c.tensors.count(operand) == 1)
          << "the cached model names an operation or tensor it does not have";
    }
  }
  // Estimates become cycle counts (integers) in profiles and progress reports.
  auto cycleCount = [](double x) { return std::isfinite(x) && x >= 0 && x < 0x1p63; };
  NN_RET_CHECK(cycleCount(c.estimatedCycles)) << "the cached model's estimate is not a cycle count";
  for (const CompiledOperation& op : c.operations) {
    NN_RET_CHECK(op.unit == hw::Unit::kCompute || op.unit == hw::Unit::kVector) << "a cached operation has no unit";
    NN_RET_CHECK(cycleCount(op.estimatedCycles)) << "a cached operation's estimate is not a cycle count";
  }
  NN_RET_CHECK(parsed.snapshots.bytes >= hw::kSnapshotBytes * (c.operations.size() + 1))
      << "the cached snapshot region is too small";
  return {};
}

}  // namespace

nn::Result<std::shared_ptr<ParsedCache>> parseCacheImage(const CacheImage& image, const hw::HwConfig& config) {
  hal::PayloadReader r(image.model);
  const uint8_t* digests = r.bytes(2 * sizeof(nn::Sha256Digest));
  NN_RET_CHECK(digests != nullptr) << "the model cache is too short";
  const nn::Sha256Digest config0 = configDigest(config);
  NN_RET_CHECK(std::memcmp(digests, config0.data(), config0.size()) == 0)
      << "the cache was made for another hardware configuration";
  const nn::Sha256Digest data0 = nn::sha256(image.data);
  NN_RET_CHECK(std::memcmp(digests + config0.size(), data0.data(), data0.size()) == 0)
      << "the data cache is not the one the model cache was saved with";

  auto parsed = std::make_shared<ParsedCache>();
  const auto form = static_cast<CacheForm>(r.u8());
  if (r.ok() && form == CacheForm::kCompiledPerExecution) {
    auto cached = parsePerExecution(r, image, config);
    if (!cached.ok()) return cached.error();
    parsed->perExecution = std::move(cached).value();
    return parsed;
  }
  NN_RET_CHECK(r.ok() && form == CacheForm::kCompiled) << "the model cache holds no form weft-accel knows";
  parsed->inputs = readIndexes(r);
  parsed->outputs = readIndexes(r);
  const auto priority = static_cast<int32_t>(r.u32());
  NN_RET_CHECK(!r.ok() || priority == 90 || priority == 100 || priority == 110) << "the model cache names no priority";
  parsed->priority = static_cast<nn::Priority>(priority);
  hal::PayloadReader d(image.data);
  readCompiledRecords(r, d, *parsed);
  NN_RET_CHECK(r.ok() && r.atEnd()) << "the model cache is malformed";
  NN_RET_CHECK(d.ok() && d.atEnd()) << "the data cache does not hold the regions the model cache names";
  NN_TRY(checkCompiledIndexes(*parsed));
  return parsed;
}

nn::Result<RestoredPreparation> placeCache(const ParsedCache& cache, DeviceQueue& queue) {
  NN_RET_CHECK(!cache.perExecution.has_value()) << "a cached model compiled per execution has nothing to place";
  const hw::HwConfig& config = queue.config();
  RestoredPreparation out;
  out.inputs = cache.inputs;
  out.outputs = cache.outputs;
  out.priority = cache.priority;
  CompiledModel& c = out.compiled;
  c = cache.compiled;
  ProgramRelocation relocation;
  auto place = [&](const RegionRecord& record, const std::vector<uint8_t>* image,
                   const std::string& what) -> nn::Result<SharedRegion> {
    NN_RET_CHECK(record.bytes > 0 && record.bytes <= queue.allocator()->bytesFree())
        << what << ": a cached region of " << record.bytes << " bytes does not fit";
    auto region = queue.allocator()->allocate(record.bytes, kRegionAlignment, what);
    if (!region.ok()) return region.error();
    if (image != nullptr) queue.backend().writeDram(region.value()->addr(), image->data(), image->size());
    relocation.add(record.addr, record.bytes, region.value()->addr());
    return region;
  };
  for (const auto& [operand, record] : cache.tensors) {
    PlacedTensor& placed = c.tensors.at(operand);
    std::vector<uint8_t> generated;
    const std::vector<uint8_t>* image = &record.contents;
    if (record.contents.empty()) {
      NN_RET_CHECK(placed.layout.bytes() + config.cols() == record.bytes)
          << "tensor " << operand << ": the cached layout does not fill its region";
      generated = initialTensorImage(placed.layout, config);
      image = &generated;
    }
    auto region = place(record, image, fmt::format("tensor {}", operand));
    if (!region.ok()) return region.error();
    placed.region = std::move(region).value();
  }
  for (auto& [operand, placed] : c.tensors) {  // views share their parent's new region
    if (placed.layout.aliasOf) placed.region = c.tensors.at(*placed.layout.aliasOf).region;
  }
  for (size_t i = 0; i < cache.constants.size(); ++i) {
    auto region = place(cache.constants[i], &cache.constants[i].contents, fmt::format("cached constants {}", i));
    if (!region.ok()) return region.error();
    c.constants.push_back(std::move(region).value());
  }
  auto snapshots = place(cache.snapshots, nullptr, "snapshot records");
  if (!snapshots.ok()) return snapshots.error();
  c.snapshots = std::move(snapshots).value();
  NN_TRY(relocation.apply(c.program, /*everyAddressMoves=*/true));
  c.tilingsFromCache = true;
  return out;
}

}  // namespace weft::accel
