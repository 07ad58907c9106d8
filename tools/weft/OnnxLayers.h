// `weft layers MODEL.onnx`: each NNAPI operation of an imported ONNX model (OnnxModel.h: --shape,
// --relaxed, --quantize int8 ...) run alone, as a model of one operation, on the accelerator
// alone, with the per-layer report of a layer table (LayersCommand.h).
//
// Each one-operation model keeps the operation's constant operands (weights, biases, parameters)
// and takes its other inputs with the values that flow into the operation when the whole model
// runs on the CPU reference on the run's inputs (a timing run, which computes nothing, takes
// zeros). An operation the accelerator does not claim is not dropped: it is a row on the CPU
// device, without device figures, saying why.
#pragma once

#include <string>
#include <vector>

#include "LayerRunner.h"
#include "OnnxModel.h"
#include "weft/hw/config.h"

namespace weft::tool {

// The report's name of each layer (the ONNX node an operation came from), in run order.
std::vector<std::string> onnxLayerNames(const LoadedOnnx& loaded);

// Runs every operation of `loaded.model()` in model order. Uses of `options`: repeat,
// keepOutputs, cacheDir/cacheSalt, values (kZeroPages: zeros instead of the reference run's
// values), reuseIdentical, traceCommandLimit, onLayer; layers are compiled one after another.
// Throws NnapiError when an operation the accelerator claims does not compile or run on it.
std::vector<LayerRun> runOnnxLayers(const LoadedOnnx& loaded, const hw::HwConfig& hw, const LayerRunOptions& options);

}  // namespace weft::tool
