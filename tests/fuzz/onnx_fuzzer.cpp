// libFuzzer target: the ONNX importer (tools/onnx). Any bytes must import or be refused with an
// ImportError; an imported model must build through the NNAPI C API or be refused by it. Never a
// crash, a hang or an out-of-bounds read. Seeds: small models of ONNX's node tests, and the
// layer-norm and GELU chains the importer fuses (layer_norm_gelu_chains.onnx), and PyTorch's
// opset-6 PReLU of a slope per channel, which the importer lays out before converting
// (opset6_prelu_*_per_channel.onnx, from Debian's libonnx-testdata), and opset-6 Adds that
// broadcast a constant and an input from axis 1 (opset6_add_*_along_axis1.onnx), laid out too;
// transposes of rank 5 and 6 of a reshaped value (rank5_attention_transpose.onnx,
// rank6_window_partition.onnx), a training-mode Dropout of ratio 0, and a Swin-like rank-5 Gather
// and broadcast Add of a folded ScatterND mask (rank5_gather_mask_scatternd.onnx), MaxViT's
// Einsum attention on rank-5 values with a rank-5 Softmax (einsum_rank5_attention.onnx), and
// Einsums of three operands, a constant, ellipses, an implicit output and a summed label
// (einsum_operands_ellipsis_sum.onnx), and GPT-2's attention: a rank-5 Split of q, k, v, k
// transposed (0, 2, 3, 1) into a MatMul, a Where of a constant mask
// (gpt2_split_mask_transposed_k.onnx), and PyTorch's PixelShuffle, a DepthToSpace in CRD order
// (depth_to_space_crd.onnx).
#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "ApiModelBuilder.h"
#include "ImportError.h"
#include "Importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ::onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size))) return 0;
  // Keep the fuzzer off models whose tensors would take most of its memory budget.
  for (const auto& init : model.graph().initializer()) {
    int64_t n = 1;
    for (int64_t d : init.dims()) {
      if (d > (int64_t{1} << 20)) return 0;
      n *= d > 0 ? d : 1;
      if (n > (int64_t{1} << 20)) return 0;
    }
  }
  try {
    weft::onnx::ImportOptions options;
    options.maxElements = int64_t{1} << 20;  // the fuzzer's memory budget, not a crash
    weft::onnx::ImportedModel imported = weft::onnx::importOnnx(std::move(model), options, "fuzz.onnx");
    weft::test::ApiModelBuilder builder(imported.model);
    (void)builder.model();
  } catch (const weft::onnx::ImportError&) {
  }
  return 0;
}
