// Runs the layers of a LayerTable one at a time on the accelerator device of this process
// (its backend and hardware are WEFT_BACKEND / WEFT_HW, read when libneuralnetworks.so loads):
// each layer is built as an NNAPI model, compiled for the accelerator alone and executed, and
// what the device did is collected from weft's execution profile.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "LayerTable.h"
#include "Trace.h"
#include "android/NeuralNetworks.h"
#include "weft/hal/IPreparedModel.h"

namespace weft::tool {

struct LayerRun {
  std::string name, op, shape;
  uint64_t macs = 0;
  uint64_t cycles = 0;          // the layer's device cycles (between its snapshot barriers)
  uint64_t arrayRows = 0;       // rows the array streamed (ARRAY_ROWS): cycles with the array fed
  // The unit the layer ran on ("array" or "vector"), its peak operations a cycle, and the slots
  // the vector unit issued (VECTOR_SLOTS). For a vector layer `macs` counts lane operations.
  std::string unit = "array";
  std::string mapping;  // the compiler's tiling of the layer (its input mode, boxes, groups, buffers)
  uint64_t peakOpsPerCycle = 0;
  uint64_t vectorSlots = 0;
  uint64_t dramReadBytes = 0, dramWriteBytes = 0;
  // The least DRAM traffic the layer can have: every tensor it reads (inputs, weights, bias)
  // and writes, once.
  uint64_t minDramBytes = 0;
  std::vector<std::pair<std::string, uint64_t>> counters;  // every hardware counter's delta
  uint64_t registerAccesses = 0;  // the driver's register accesses for the layer's execution
  double simulatorSeconds = 0;  // host time inside the backend: the simulation itself
  double executeSeconds = 0;    // ANeuralNetworksExecution_compute, wall
  double prepareSeconds = 0;    // building the data and the model, compiling it, wall
  std::vector<uint8_t> output;
  // The device it ran on (weft-accel), or for an operation the accelerator does not claim (an
  // ONNX model's, OnnxLayers.h) the CPU device that would run it and why it is not the
  // accelerator's; such a layer has no device figures.
  std::string device;
  std::string reason;
  // An ONNX model's layer the accelerator ran (OnnxLayers.h), checked against the CPU reference's
  // output on the same inputs: the largest difference (8-bit: quantization steps; float: the
  // value's), and whether it is within one step or the float tolerance. Unset: not checked (a
  // CPU layer, a layer reusing an earlier one's figures, the timing backend's zero-page values).
  std::optional<double> referenceError;
  bool referencePassed = true;
  // Its program's per-command timelines (the first execution's; only when WEFT_COMMAND_TRACE=1),
  // cut short by LayerRunOptions::traceCommandLimit (traceTruncated).
  std::vector<hal::CommandProfile> commands;
  std::vector<hal::DramRequestProfile> dram;
  std::vector<hal::DramCommandProfile> dramCommands;
  bool traceTruncated = false;
  // Set when the layer is identical to an earlier one of the table (LayerRunOptions::
  // reuseIdentical): that run's index, whose device figures this one reports without running.
  std::optional<size_t> sameAs;
  // Compiled on a helper thread while earlier layers compiled or ran (LayerRunOptions::
  // prepareAhead): its prepareSeconds overlap theirs.
  bool compiledAhead = false;
  // Its compilation or execution failed while layers compiled ahead held DRAM, and succeeded
  // again without them (LayerRunOptions::prepareAhead).
  bool againAlone = false;
};

struct LayerRunOptions {
  // Executions per layer: device figures and outputs are the first one's, host times the
  // median of all.
  int repeat = 1;
  bool keepOutputs = false;
  // Compilation caching: the directory (created when missing; empty: no caching) and what
  // else tells caches apart besides the layer itself (the hardware configuration).
  std::string cacheDir, cacheSalt;
  // What the layers' tensors hold: kZeroPages when nothing reads values (the timing backend).
  TensorValues values = TensorValues::kDrawn;
  // The simulated DRAM's size: a layer whose tensors alone exceed it is refused, naming DramMiB,
  // before any of its data is allocated (0: no check).
  uint64_t dramBytes = 0;
  // The per-command timelines kept over the whole table (a trace of millions of commands does
  // not fit memory or a viewer): the layers' first commands up to this many, then none; 0: all.
  // Once it is reached the device stops recording (WEFT_COMMAND_TRACE is unset): a layer's
  // recording is held until the layer ends, so a single layer's commands are recorded whole.
  size_t traceCommandLimit = 0;
  // A layer identical to an earlier one in everything but its name and its tensors' values
  // (operation, shapes, parameters, quantization) reports that one's device figures instead of
  // being compiled and run again. They are exactly the figures it would have: the device's timing
  // never depends on data, and every program starts at command 0 of the ring from the reset state
  // (DeviceQueue). For runs that read only figures: not with keepOutputs, per-command timelines or
  // host times to measure.
  bool reuseIdentical = false;
  // Layers compiled ahead of the one executing, on helper threads (0: one after the other).
  // Compiling is most of a table's time and the device is locked only to place DRAM, so a
  // second core shortens the run; the figures are the same (every region starts on a burst and
  // every program at command 0 of the ring). Only layers whose tensors are small next to
  // `dramBytes` are compiled ahead, so that those in flight fit the DRAM and host memory
  // together, or with kZeroPages values (no tensor held on the host) layers whose device images
  // fit the DRAM beside those in flight; a layer whose compilation ahead fails is compiled again
  // alone. Needs dramBytes.
  size_t prepareAhead = 0;
  // Called before each layer with its position, for progress messages.
  std::function<void(size_t index, size_t count, const std::string& name)> onLayer;
};

// Throws NnapiError when a layer does not compile or run on the accelerator alone.
std::vector<LayerRun> runLayerTable(const LayerTable& table, const LayerRunOptions& options);

// What one execution of a layer did on the device, read from weft's execution profile
// (weft/runtime/Profile.h): for the runners of layer tables and of ONNX models' operations.
struct LayerExecution {
  uint64_t cycles = 0, arrayRows = 0, readBytes = 0, writeBytes = 0;
  std::string unit;
  uint64_t peakOps = 0, unitOps = 0, vectorSlots = 0;
  std::string mapping;
  std::vector<std::pair<std::string, uint64_t>> counters;
  uint64_t registerAccesses = 0;
  double simulatorSeconds = 0, executeSeconds = 0;
  std::vector<hal::CommandProfile> commands;
  std::vector<hal::DramRequestProfile> dram;
  std::vector<hal::DramCommandProfile> dramCommands;
};
// The profile of `execution`'s latest computation, which took `executeSeconds` of wall time.
LayerExecution profiledExecution(const ANeuralNetworksExecution* execution, double executeSeconds);
// The device figures of a layer's first execution into `run`, its command timelines cut to what
// is left of `traceLimit` commands (0: all) after the `traced` of earlier layers, which it then
// counts; the trace stops (WEFT_COMMAND_TRACE) once the limit is reached.
void recordFirstExecution(LayerRun& run, const LayerExecution& execution, size_t traceLimit, TraceBudget& traced);
// The NNAPI cache token of a layer: `identity` (what tells layers and configurations apart)
// hashed (FNV-1a) and spread over the token's 32 bytes.
std::array<uint8_t, ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN> layerCacheToken(const std::string& identity);

}  // namespace weft::tool
