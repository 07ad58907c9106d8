#include "DimensionAgreement.h"

#include <algorithm>
#include <cctype>

#include "weft/kernels/OperationUtils.h"

namespace weft::nn {

Status DimensionAgreement::input(uint32_t index, std::initializer_list<const char*> names) {
  if (index >= context_->getNumInputs() || context_->isOmittedInput(index)) return {};
  return check(context_->getInputShape(index), "input " + std::to_string(index), names);
}

Status DimensionAgreement::output(uint32_t index, std::initializer_list<const char*> names) {
  if (index >= context_->getNumOutputs()) return {};
  return check(context_->getOutputShape(index), "output " + std::to_string(index), names);
}

Status DimensionAgreement::set(const std::string& name, uint32_t size) {
  auto [it, inserted] = sizes_.emplace(name, size);
  NN_RET_CHECK(inserted || it->second == size)
      << context_->getOperationName() << ": " << name << " is " << it->second << " and " << size;
  return {};
}

uint32_t DimensionAgreement::get(const std::string& name) const {
  auto it = sizes_.find(name);
  return it == sizes_.end() ? 0 : it->second;
}

Status DimensionAgreement::check(const Shape& shape, const std::string& what,
                                 std::initializer_list<const char*> names) {
  if (hasUnknownRank(shape)) return {};
  // All dimensions unknown says nothing, not even the rank: optional operands that are model
  // inputs (omitted only by the request) are often declared [0].
  if (std::all_of(shape.dimensions.begin(), shape.dimensions.end(), [](uint32_t d) { return d == 0; })) return {};
  NN_RET_CHECK_EQ(shape.dimensions.size(), names.size())
      << context_->getOperationName() << ": " << what << " has rank " << shape.dimensions.size() << ", expected "
      << names.size();
  size_t d = 0;
  for (const char* name : names) {
    const uint32_t size = shape.dimensions[d++];
    if (name == nullptr || size == 0) continue;  // free, or unknown until execution
    if (std::isdigit(static_cast<unsigned char>(name[0]))) {
      NN_RET_CHECK_EQ(size, static_cast<uint32_t>(std::stoul(name)))
          << context_->getOperationName() << ": dimension " << d - 1 << " of " << what << " must be " << name;
      continue;
    }
    auto [it, inserted] = sizes_.emplace(name, size);
    NN_RET_CHECK(inserted || it->second == size)
        << context_->getOperationName() << ": dimension " << d - 1 << " of " << what << " is " << size << ", but "
        << name << " is " << it->second;
  }
  return {};
}

}  // namespace weft::nn
