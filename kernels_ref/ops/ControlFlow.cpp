// IF and WHILE (NNAPI 1.3). Only validation lives here: the executor runs the referenced
// subgraphs itself (CpuExecutor.cpp), so these registrations have no prepare/execute.
#include "weft/kernels/OperationResolver.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn {
namespace control_flow {

namespace {

// Operand `index` of the outer operation and operand `inner` of the subgraph must agree in type,
// quantization and (where both are known) dimensions.
Status checkCompatible(const char* what, const Shape& outer, const Operand& inner) {
  NN_RET_CHECK(outer.type == inner.type) << what << ": type " << toString(outer.type) << " vs subgraph "
                                         << toString(inner.type);
  NN_RET_CHECK(outer.scale == inner.scale && outer.offset == inner.zeroPoint) << what << ": quantization differs";
  if (!outer.dimensions.empty() && !inner.dimensions.empty()) {
    NN_RET_CHECK_EQ(outer.dimensions.size(), inner.dimensions.size()) << what << ": rank differs";
    for (size_t d = 0; d < outer.dimensions.size(); ++d) {
      NN_RET_CHECK(outer.dimensions[d] == 0 || inner.dimensions[d] == 0 || outer.dimensions[d] == inner.dimensions[d])
          << what << ": dimensions differ";
    }
  }
  return {};
}

const Subgraph* subgraphInput(const IOperationValidationContext* context, uint32_t index) {
  if (context->getInputType(index) != OperandType::SUBGRAPH) return nullptr;
  return context->getReferencedSubgraph(index);
}

Status checkBoolScalarTensor(const char* what, OperandType type, const Dimensions& dims) {
  NN_RET_CHECK(type == OperandType::TENSOR_BOOL8) << what << " must be TENSOR_BOOL8";
  NN_RET_CHECK(dims.empty() || numberOfElements(dims) == 1 || numberOfElements(dims) == 0)
      << what << " must hold one value, has shape " << toString(dims);
  return {};
}

}  // namespace

Status validateIf(const IOperationValidationContext* context) {
  NN_RET_CHECK_GE(context->getNumInputs(), 3u) << "IF needs a condition, two branches and the branch inputs";
  NN_RET_CHECK_GE(context->getNumOutputs(), 1u) << "IF needs outputs";
  NN_TRY(checkBoolScalarTensor("IF condition", context->getInputType(0), context->getInputShape(0).dimensions));
  const uint32_t numBranchInputs = context->getNumInputs() - 3;
  for (uint32_t b = 1; b <= 2; ++b) {
    const Subgraph* branch = subgraphInput(context, b);
    NN_RET_CHECK(branch != nullptr) << "IF input " << b << " must name a referenced subgraph";
    NN_RET_CHECK_EQ(branch->inputIndexes.size(), numBranchInputs) << "IF branch input count";
    NN_RET_CHECK_EQ(branch->outputIndexes.size(), context->getNumOutputs()) << "IF branch output count";
    for (uint32_t i = 0; i < numBranchInputs; ++i) {
      NN_TRY(checkCompatible("IF input", context->getInputShape(3 + i), branch->operands[branch->inputIndexes[i]]));
    }
    for (uint32_t i = 0; i < context->getNumOutputs(); ++i) {
      NN_TRY(checkCompatible("IF output", context->getOutputShape(i), branch->operands[branch->outputIndexes[i]]));
    }
  }
  return {};
}

Status validateWhile(const IOperationValidationContext* context) {
  NN_RET_CHECK_GE(context->getNumInputs(), 3u) << "WHILE needs cond, body and at least one input";
  NN_RET_CHECK_GE(context->getNumOutputs(), 1u) << "WHILE needs outputs";
  const Subgraph* cond = subgraphInput(context, 0);
  const Subgraph* body = subgraphInput(context, 1);
  NN_RET_CHECK(cond != nullptr && body != nullptr) << "WHILE inputs 0 and 1 must name referenced subgraphs";
  const uint32_t numVars = context->getNumInputs() - 2;
  NN_RET_CHECK_EQ(cond->inputIndexes.size(), numVars) << "WHILE condition input count";
  NN_RET_CHECK_EQ(cond->outputIndexes.size(), 1u) << "WHILE condition must have one output";
  const Operand& condOut = cond->operands[cond->outputIndexes[0]];
  NN_TRY(checkBoolScalarTensor("WHILE condition output", condOut.type, condOut.dimensions));
  NN_RET_CHECK_EQ(body->inputIndexes.size(), numVars) << "WHILE body input count";
  NN_RET_CHECK(body->outputIndexes.size() >= context->getNumOutputs() && body->outputIndexes.size() <= numVars)
      << "WHILE body must output the loop outputs and state, got " << body->outputIndexes.size();
  for (uint32_t i = 0; i < numVars; ++i) {
    const Shape outer = context->getInputShape(2 + i);
    NN_TRY(checkCompatible("WHILE condition input", outer, cond->operands[cond->inputIndexes[i]]));
    NN_TRY(checkCompatible("WHILE body input", outer, body->operands[body->inputIndexes[i]]));
  }
  for (uint32_t i = 0; i < body->outputIndexes.size(); ++i) {
    const Operand& out = body->operands[body->outputIndexes[i]];
    NN_RET_CHECK(out.type == context->getInputType(2 + i)) << "WHILE body output " << i << " type";
  }
  for (uint32_t i = 0; i < context->getNumOutputs(); ++i) {
    NN_TRY(checkCompatible("WHILE output", context->getOutputShape(i), body->operands[body->outputIndexes[i]]));
  }
  return {};
}

}  // namespace control_flow
}  // namespace weft::nn

NN_REGISTER_OPERATION(IF, "IF", control_flow::validateIf, nullptr, nullptr, .allowOmittedOperand = false,
                      .allowZeroSizedInput = true)
NN_REGISTER_OPERATION(WHILE, "WHILE", control_flow::validateWhile, nullptr, nullptr, .allowOmittedOperand = false,
                      .allowZeroSizedInput = true)
