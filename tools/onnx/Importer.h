// ONNX import: reads an ONNX model (opsets 7 to 17), binds its symbolic dimensions, infers its
// static shapes (ONNX's own shape inference), folds its constants and shape arithmetic, and
// converts each remaining node into NNAPI operations (ops/). The result is an NNAPI model
// (tools/conformance's TestModel) that `weft run`, `weft layers` and sweeps build through the NNAPI C
// API like any application's, with a record of which ONNX node became which operations.
// An unsupported operator, attribute, type or dynamic shape is an ImportError naming the node;
// nothing is dropped or approximated.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "HostTensor.h"
#include "Lowering.h"
#include "TestModel.h"

namespace onnx {
class ModelProto;
}

namespace weft::onnx {

constexpr int64_t kMinOpset = 7, kMaxOpset = 17;

struct ImportOptions {
  // --shape NAME=1x3x224x224: a whole input's shape by the input's name, or the value of a
  // symbolic dimension by its name (--shape batch=1). Unbound symbolic dimensions are 1, with a note.
  std::map<std::string, Shape> shapes;
  // The model's float32 arithmetic may run in float16 (NNAPI's relaxComputationFloat32toFloat16):
  // what runs float models on an fp16 configuration's accelerator.
  bool relaxed = false;
  // The most elements a value of the model may have: larger is an ImportError before anything of
  // that size is allocated (2^28: a gigabyte of float32).
  int64_t maxElements = int64_t{1} << 28;
  // LayerNormalization and GELU (the operators, and the chains exporters write for them, Fusion.h)
  // as org.weft.accel's WEFT_LAYER_NORM and WEFT_GELU (weft/WeftExtension.h). NNAPI builds such a
  // model only in a program an extension allowlist names (the weft tool runs under its own);
  // false imports them as before: LayerNormalization composed of NNAPI operations, GELU refused.
  bool weftExtensions = true;
};

struct NodeRecord {
  int index = 0;
  std::string name, op;
  bool folded = false;                 // evaluated at import (a constant), or lowered with another node
  std::vector<size_t> operations;      // the NNAPI operations it became (model order)
};

struct ImportedModel {
  std::string name;     // the graph's name, else the file's stem
  int64_t opset = 0;    // of the default domain
  test::TestModel model;
  std::vector<std::string> inputNames, outputNames;  // in the model's input and output order
  std::vector<ValueInfo> inputs, outputs;            // their ONNX types and static shapes
  // Per output: one step of the quantized value it is or was dequantized from (its scale), else
  // 0. A quantized result may differ from another implementation's by that much (rounding).
  std::vector<double> outputQuanta;
  std::vector<NodeRecord> nodes;
  std::vector<std::string> notes;  // what the user should know (defaulted dimensions)
};

// Whether `path` names an ONNX model (by its extension: .onnx).
bool isOnnxPath(const std::string& path);

ImportedModel importOnnxFile(const std::string& path, const ImportOptions& options = {});
// The same from a parsed model (the Python binding's onnx.ModelProto); `origin` names it in errors.
ImportedModel importOnnx(::onnx::ModelProto model, const ImportOptions& options, const std::string& origin);

// "1x3x224x224" -> {1, 3, 224, 224}; ImportError on anything else.
Shape parseShape(const std::string& text);

}  // namespace weft::onnx
