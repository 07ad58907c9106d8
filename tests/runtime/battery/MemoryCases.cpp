// ANeuralNetworksMemory_* and ANeuralNetworksMemoryDesc_*: the invalid calls.
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>

#include "Battery.h"

namespace weft::test::battery {
namespace {

// A memfd of 4096 bytes, closed when the row ends.
int pageFile(World& w) {
  struct File {
    int fd = memfd_create("weft-battery-page", 0);
    File() { (void)!ftruncate(fd, 4096); }
    ~File() { close(fd); }
  };
  return w.keep(std::make_shared<File>())->get()->fd;
}

int createFromFd(size_t size, int protect, int fd, size_t offset) {
  ANeuralNetworksMemory* memory = nullptr;
  const int result = ANeuralNetworksMemory_createFromFd(size, protect, fd, offset, &memory);
  ANeuralNetworksMemory_free(memory);  // an accepted call would leak otherwise
  return result;
}

int addRole(ANeuralNetworksMemoryDesc* desc, const ANeuralNetworksCompilation* compilation, bool input, uint32_t index,
            float frequency) {
  return input ? ANeuralNetworksMemoryDesc_addInputRole(desc, compilation, index, frequency)
               : ANeuralNetworksMemoryDesc_addOutputRole(desc, compilation, index, frequency);
}

// A descriptor with no role yet, freed when the row ends.
ANeuralNetworksMemoryDesc* emptyDesc(World& w) {
  struct Desc {
    ANeuralNetworksMemoryDesc* desc = nullptr;
    Desc() { ANeuralNetworksMemoryDesc_create(&desc); }
    ~Desc() { ANeuralNetworksMemoryDesc_free(desc); }
  };
  return w.keep(std::make_shared<Desc>())->get()->desc;
}

std::vector<Case> roleCases(bool input) {
  using S = Subject;
  const std::string name = input ? "addInputRole" : "addOutputRole";
  const uint32_t pastLast = input ? 2 : 1;
  return {
      {name + "_nullDesc", S::kNothing,
       [input](World& w) { return addRole(nullptr, w.finishedCompilation(), input, 0, 1.0f); }, kNull},
      {name + "_nullCompilation", S::kMemoryDesc,
       [input](World& w) { return addRole(w.memoryDesc(), nullptr, input, 0, 1.0f); }, kNull},
      {name + "_unfinishedCompilation", S::kMemoryDesc,
       [input](World& w) { return addRole(w.memoryDesc(), w.compilation(), input, 0, 1.0f); }, kBadData},
      {name + "_failedCompilation", S::kMemoryDesc,
       [input](World& w) { return addRole(w.memoryDesc(), w.failedCompilation(), input, 0, 1.0f); }, kBadData},
      {name + "_indexOutOfRange", S::kMemoryDesc,
       [input, pastLast](World& w) { return addRole(w.memoryDesc(), w.finishedCompilation(), input, pastLast, 1.0f); },
       kBadData},
      {name + "_zeroFrequency", S::kMemoryDesc,
       [input](World& w) { return addRole(w.memoryDesc(), w.finishedCompilation(), input, 0, 0.0f); }, kBadData},
      {name + "_negativeFrequency", S::kMemoryDesc,
       [input](World& w) { return addRole(w.memoryDesc(), w.finishedCompilation(), input, 0, -0.5f); }, kBadData},
      {name + "_frequencyAboveOne", S::kMemoryDesc,
       [input](World& w) { return addRole(w.memoryDesc(), w.finishedCompilation(), input, 0, 1.5f); }, kBadData},
      {name + "_nanFrequency", S::kMemoryDesc,
       [input](World& w) { return addRole(w.memoryDesc(), w.finishedCompilation(), input, 0, std::nanf("")); },
       kBadData},
      {name + "_afterFinish", S::kFinishedMemoryDesc,
       [input](World& w) { return addRole(w.finishedMemoryDesc(), w.finishedCompilation(), input, 0, 1.0f); },
       kBadState},
  };
}

std::vector<Case> descCases() {
  using S = Subject;
  std::vector<Case> cases = {
      {"create_nullResult", S::kNothing, [](World&) { return ANeuralNetworksMemoryDesc_create(nullptr); }, kNull},
      // memoryDesc() already has input 0 of finishedCompilation().
      {"addInputRole_sameRoleTwice", S::kMemoryDesc,
       [](World& w) { return addRole(w.memoryDesc(), w.finishedCompilation(), true, 0, 0.5f); }, kBadData},
      {"setDimensions_nullDesc", S::kNothing,
       [](World&) {
         const uint32_t d[] = {4};
         return ANeuralNetworksMemoryDesc_setDimensions(nullptr, 1, d);
       },
       kNull},
      {"setDimensions_nullDimensionsWithRank", S::kMemoryDesc,
       [](World& w) { return ANeuralNetworksMemoryDesc_setDimensions(w.memoryDesc(), 1, nullptr); }, kNull},
      {"setDimensions_otherRankThanRoles", S::kMemoryDesc,
       [](World& w) {
         const uint32_t d[] = {2, 2};
         return ANeuralNetworksMemoryDesc_setDimensions(w.memoryDesc(), 2, d);
       },
       kBadData},
      {"setDimensions_otherDimensionThanRoles", S::kMemoryDesc,
       [](World& w) {
         const uint32_t d[] = {5};
         return ANeuralNetworksMemoryDesc_setDimensions(w.memoryDesc(), 1, d);
       },
       kBadData},
      {"setDimensions_afterFinish", S::kFinishedMemoryDesc,
       [](World& w) {
         const uint32_t d[] = {4};
         return ANeuralNetworksMemoryDesc_setDimensions(w.finishedMemoryDesc(), 1, d);
       },
       kBadState},
      {"finish_nullDesc", S::kNothing, [](World&) { return ANeuralNetworksMemoryDesc_finish(nullptr); }, kNull},
      {"finish_withoutRoles", S::kNothing, [](World& w) { return ANeuralNetworksMemoryDesc_finish(emptyDesc(w)); },
       kBadData},
      {"finish_twice", S::kFinishedMemoryDesc,
       [](World& w) { return ANeuralNetworksMemoryDesc_finish(w.finishedMemoryDesc()); }, kBadState},
  };
  for (bool input : {true, false}) {
    for (Case& c : roleCases(input)) cases.push_back(std::move(c));
  }
  for (Case& c : cases) c.name = "MemoryDesc_" + c.name;
  return cases;
}

std::vector<Case> memoryCases_() {
  using S = Subject;
  std::vector<Case> cases = {
      {"createFromFd_nullResult", S::kNothing,
       [](World& w) { return ANeuralNetworksMemory_createFromFd(4096, PROT_READ, pageFile(w), 0, nullptr); }, kNull},
      {"createFromFd_negativeFd", S::kNothing, [](World&) { return createFromFd(4096, PROT_READ, -1, 0); }, kBadData},
      {"createFromFd_closedFd", S::kNothing,
       [](World&) {
         const int fd = memfd_create("weft-battery-closed", 0);
         close(fd);
         return createFromFd(4096, PROT_READ, fd, 0);
       },
       kBadData},
      {"createFromFd_zeroSize", S::kNothing, [](World& w) { return createFromFd(0, PROT_READ, pageFile(w), 0); },
       kBadData},
      {"createFromFd_executableProtection", S::kNothing,
       [](World& w) { return createFromFd(4096, PROT_READ | PROT_EXEC, pageFile(w), 0); }, kBadData},
      {"createFromFd_offsetNotPageAligned", S::kNothing,
       [](World& w) { return createFromFd(1024, PROT_READ, pageFile(w), 100); }, kBadData},
      {"createFromFd_regionBeyondFile", S::kNothing,
       [](World& w) { return createFromFd(8192, PROT_READ, pageFile(w), 0); }, kBadData},
      {"createFromFd_offsetBeyondFile", S::kNothing,
       [](World& w) { return createFromFd(4096, PROT_READ, pageFile(w), 8192); }, kBadData},
      {"createFromAHardwareBuffer_nullBuffer", S::kNothing,
       [](World&) {
         ANeuralNetworksMemory* m = nullptr;
         return ANeuralNetworksMemory_createFromAHardwareBuffer(nullptr, &m);
       },
       kNull},
      {"createFromAHardwareBuffer_nullResult", S::kNothing,
       [](World& w) {
         return ANeuralNetworksMemory_createFromAHardwareBuffer(reinterpret_cast<const AHardwareBuffer*>(w.keep(0)),
                                                                nullptr);
       },
       kNull},
      // Linux has no AHardwareBuffer: whatever pointer a client passes is not one.
      {"createFromAHardwareBuffer_notABuffer", S::kNothing,
       [](World& w) {
         ANeuralNetworksMemory* m = nullptr;
         return ANeuralNetworksMemory_createFromAHardwareBuffer(reinterpret_cast<const AHardwareBuffer*>(w.keep(0)),
                                                                &m);
       },
       kBadData},
      {"createFromDesc_nullDesc", S::kNothing,
       [](World&) {
         ANeuralNetworksMemory* m = nullptr;
         return ANeuralNetworksMemory_createFromDesc(nullptr, &m);
       },
       kNull},
      {"createFromDesc_nullResult", S::kFinishedMemoryDesc,
       [](World& w) { return ANeuralNetworksMemory_createFromDesc(w.finishedMemoryDesc(), nullptr); }, kNull},
      {"createFromDesc_unfinishedDesc", S::kMemoryDesc,
       [](World& w) {
         ANeuralNetworksMemory* m = nullptr;
         return ANeuralNetworksMemory_createFromDesc(w.memoryDesc(), &m);
       },
       kBadState},
      {"copy_nullSource", S::kDescMemory, [](World& w) { return ANeuralNetworksMemory_copy(nullptr, w.descMemory()); },
       kNull},
      {"copy_nullDestination", S::kFdMemory, [](World& w) { return ANeuralNetworksMemory_copy(w.fdMemory(), nullptr); },
       kNull},
      {"copy_differentSizes", S::kDescMemory,
       [](World& w) { return ANeuralNetworksMemory_copy(w.fdMemory(), w.descMemory()); }, kBadData},
      {"copy_uninitializedSource", S::kFdMemory,
       [](World& w) { return ANeuralNetworksMemory_copy(w.descMemory(), w.fdMemory()); }, kBadData},
  };
  for (Case& c : cases) c.name = "Memory_" + c.name;
  return cases;
}

}  // namespace

std::vector<Case> memoryCases() {
  std::vector<Case> cases = memoryCases_();
  for (Case& c : descCases()) cases.push_back(std::move(c));
  return cases;
}

}  // namespace weft::test::battery
