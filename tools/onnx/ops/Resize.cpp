// Resize and Upsample of NCHW images in height and width: bilinear with ONNX's coordinate modes
// that NNAPI's RESIZE_BILINEAR flags express (half_pixel, pytorch_half_pixel, align_corners,
// asymmetric), nearest with asymmetric coordinates and floor rounding (or rounding that equals it
// at the given scale). Cubic and cropping modes are refused.
#include <fmt/format.h>

#include <cmath>

#include "OpUtil.h"
#include "Registry.h"

namespace weft::onnx::ops {
namespace {

using Op = nn::OperationType;

void convertResize(const Node& node, Lowering& l) {
  onlyAttributes(node, {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside",
                        "extrapolation_value", "scales"});
  requireFloat(node, l, node.input(0));
  const Shape &x = shapeOf(l, node.input(0)), &y = shapeOf(l, node.output(0));
  if (x.size() != 4 || y[0] != x[0] || y[1] != x[1]) {
    throw ImportError(node.error("only 4-D NCHW inputs resized in height and width are supported"));
  }
  // ONNX interpolates with the scale it is given, NNAPI with the ratio of the sizes: the same only
  // when the scale makes whole sizes.
  const size_t scalesInput = node.op() == "Upsample" || node.opset() < 11 ? 1 : 2;
  std::vector<float> scales = node.attrFloats("scales");
  const size_t sizesInput = 3;
  const bool bySizes = node.op() == "Resize" && node.opset() >= 11 && node.hasInput(sizesInput);
  if (!bySizes && node.hasInput(scalesInput) && !l.isConstant(node.input(scalesInput))) {
    throw ImportError(node.error("scales computed at run time (weft needs them when the model is compiled)"));
  }
  if (node.hasInput(scalesInput) && l.isConstant(node.input(scalesInput))) {
    const HostTensor& t = l.constant(node.input(scalesInput));
    scales.clear();
    for (int64_t i = 0; i < t.size(); ++i) scales.push_back(static_cast<float>(t.asDouble(i)));
  }
  if (scales.size() == 4) {
    for (int d = 2; d < 4; ++d) {
      if (std::fabs(static_cast<double>(x[d]) * scales[d] - static_cast<double>(y[d])) > 1e-4) {
        throw ImportError(node.error(fmt::format("scale {} makes a size of {} (ONNX interpolates with the scale, "
                                                 "NNAPI with the whole sizes' ratio)",
                                                 scales[d], static_cast<double>(x[d]) * scales[d])));
      }
    }
  }
  const std::string mode = node.attrString("mode", "nearest");
  const bool upsample = node.op() == "Upsample";
  const std::string coords =
      upsample || node.opset() < 11 ? "asymmetric" : node.attrString("coordinate_transformation_mode", "half_pixel");
  if (node.attrInt("exclude_outside", 0) != 0) throw ImportError(node.error("exclude_outside=1"));
  bool alignCorners = false, halfPixel = false;
  Op op;
  if (mode == "linear" || mode == "bilinear") {
    op = Op::RESIZE_BILINEAR;
    if (coords == "half_pixel" || coords == "pytorch_half_pixel") {
      halfPixel = true;
      if (coords == "pytorch_half_pixel" && (y[2] == 1 || y[3] == 1)) {
        throw ImportError(node.error("pytorch_half_pixel to a size of 1 (it maps to 0, NNAPI's half pixel does not)"));
      }
    } else if (coords == "align_corners") {
      alignCorners = true;
    } else if (coords != "asymmetric") {
      throw ImportError(node.error("coordinate_transformation_mode '" + coords + "' with linear interpolation"));
    }
  } else if (mode == "nearest") {
    op = Op::RESIZE_NEAREST_NEIGHBOR;
    if (coords != "asymmetric") {
      throw ImportError(node.error("nearest with coordinate_transformation_mode '" + coords +
                                   "' (NNAPI's nearest rounds asymmetric coordinates down)"));
    }
    const std::string rounding = upsample || node.opset() < 11 ? "floor" : node.attrString("nearest_mode", "round_prefer_floor");
    // Rounding differs from floor only where a source coordinate has a fraction above one half,
    // which whole-number up- or down-scaling never produces.
    const bool whole = (y[2] % x[2] == 0 || x[2] % y[2] == 0) && (y[3] % x[3] == 0 || x[3] % y[3] == 0);
    if (rounding != "floor" && !(rounding == "round_prefer_floor" && whole)) {
      throw ImportError(node.error("nearest_mode '" + rounding + "' at this scale (NNAPI rounds down)"));
    }
  } else {
    throw ImportError(node.error("mode '" + mode + "' (NNAPI resizes bilinearly or to the nearest)"));
  }
  l.add(op,
        {in(node, l, 0), l.nn().scalarInt32(static_cast<int32_t>(y[3])), l.nn().scalarInt32(static_cast<int32_t>(y[2])),
         l.nn().scalarBool(true), l.nn().scalarBool(alignCorners), l.nn().scalarBool(halfPixel)},
        {l.output(node, 0)});
}

}  // namespace

void registerResize(Registry& r) {
  r.add("Resize", convertResize);
  r.add("Upsample", convertResize);
}

}  // namespace weft::onnx::ops
