// What the importer needs of Einsum before conversion: ONNX 1.12's shape inference gives its
// output a rank only (torchvision's MaxViT, attention written with torch.einsum), so the sizes
// come from the equation here.
#pragma once

#include <vector>

#include "../HostTensor.h"
#include "../Node.h"

namespace weft::onnx::ops {

// The output shape of an Einsum node with inputs of `inputs`' shapes; ImportError naming the node
// for an equation that does not parse or does not fit them.
Shape einsumOutputShape(const Node& node, const std::vector<Shape>& inputs);

}  // namespace weft::onnx::ops
