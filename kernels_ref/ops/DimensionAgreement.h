// Validation of shapes that must agree across operands, on the shapes a model declares (where 0
// means unknown and an empty tensor shape means unknown rank). Each dimension is given a name;
// every known dimension with the same name must have the same size:
//
//   DimensionAgreement dims(context);
//   NN_TRY(dims.input(kInput, {"batch", "inputSize"}));
//   NN_TRY(dims.input(kWeights, {"numUnits", "inputSize"}));
//   NN_TRY(dims.input(kBias, {"numUnits"}));
//   NN_TRY(dims.output(kOutput, {"batch", "numUnits"}));
//
// Omitted inputs and shapes with no known dimension are skipped, so optional operands can be
// described unconditionally. A name may
// also be fixed to a number ("4" for box coordinates) or left free (nullptr).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>

#include "weft/kernels/OperationResolver.h"

namespace weft::nn {

class DimensionAgreement {
 public:
  explicit DimensionAgreement(const IOperationValidationContext* context) : context_(context) {}

  // Input `index` has rank names.size() (when its rank is known) and dimension d of size `names[d]`.
  Status input(uint32_t index, std::initializer_list<const char*> names);
  Status output(uint32_t index, std::initializer_list<const char*> names);
  // Fixes `name` to `size` (e.g. a size given by a constant scalar).
  Status set(const std::string& name, uint32_t size);
  // The size of `name` when some operand has given it, else 0.
  uint32_t get(const std::string& name) const;

 private:
  Status check(const Shape& shape, const std::string& what, std::initializer_list<const char*> names);

  const IOperationValidationContext* context_;
  std::map<std::string, uint32_t> sizes_;
};

}  // namespace weft::nn
