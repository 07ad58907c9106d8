// How an operation plugs into weft: validation, shape inference and execution side by side in
// one file (kernels_ref/ops/<Op>.cpp), registered in one list (kernels_ref/src/Operations.def).
// Modeled on AOSP's OperationResolver: the runtime validates models with `validate`, the CPU
// reference device runs `prepare` then `execute`.
#pragma once

#include <cstdint>

#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::nn {

// What an operation's validation may look at: types and declared shapes of its operands
// (dimensions may be partly unknown), never the request's values.
class IOperationValidationContext {
 public:
  virtual ~IOperationValidationContext() = default;
  virtual const char* getOperationName() const = 0;
  virtual uint32_t getNumInputs() const = 0;
  virtual OperandType getInputType(uint32_t index) const = 0;
  virtual Shape getInputShape(uint32_t index) const = 0;
  virtual const ExtraParams& getInputExtraParams(uint32_t index) const = 0;
  // Omitted optional operand (NO_VALUE lifetime).
  virtual bool isOmittedInput(uint32_t index) const = 0;
  // The value of a constant input (CONSTANT_COPY/REFERENCE), or nullptr when not constant.
  virtual const void* getConstantInputBuffer(uint32_t index) const = 0;
  virtual uint32_t getNumOutputs() const = 0;
  virtual OperandType getOutputType(uint32_t index) const = 0;
  virtual Shape getOutputShape(uint32_t index) const = 0;
  virtual bool isRelaxed() const = 0;  // relaxComputationFloat32toFloat16
  // The referenced subgraph a SUBGRAPH input names (IF/WHILE validation), or nullptr.
  virtual const Subgraph* getReferencedSubgraph(uint32_t /*index*/) const { return nullptr; }
};

// What `prepare` and `execute` see: the actual shapes and buffers of one execution.
class IOperationExecutionContext {
 public:
  virtual ~IOperationExecutionContext() = default;
  virtual uint32_t getNumInputs() const = 0;
  virtual OperandType getInputType(uint32_t index) const = 0;
  virtual Shape getInputShape(uint32_t index) const = 0;
  virtual const void* getInputBuffer(uint32_t index) const = 0;
  virtual const ExtraParams& getInputExtraParams(uint32_t index) const = 0;
  virtual bool isOmittedInput(uint32_t index) const = 0;

  virtual uint32_t getNumOutputs() const = 0;
  virtual OperandType getOutputType(uint32_t index) const = 0;
  virtual Shape getOutputShape(uint32_t index) const = 0;
  virtual void* getOutputBuffer(uint32_t index) = 0;
  virtual bool isOmittedOutput(uint32_t index) const = 0;
  // Called by prepare() with the inferred shape of output `index`. Fails with BAD_DATA when it
  // contradicts the model's declared dimensions, and with OUTPUT_INSUFFICIENT_SIZE when a model
  // output's buffer is too small (the executor then reports the shape to the client).
  virtual Status setOutputShape(uint32_t index, const Shape& shape) = 0;
  virtual bool isRelaxed() const = 0;

  template <typename T>
  const T* getInputBuffer(uint32_t index) const {
    return static_cast<const T*>(getInputBuffer(index));
  }
  template <typename T>
  T getInputValue(uint32_t index) const {
    return *getInputBuffer<T>(index);
  }
  template <typename T>
  T* getOutputBuffer(uint32_t index) {
    return static_cast<T*>(getOutputBuffer(index));
  }
};

struct OperationRegistration {
  OperationType type;
  const char* name;
  Status (*validate)(const IOperationValidationContext* context);
  // Infers and sets every output shape; may check values that validation cannot see.
  Status (*prepare)(IOperationExecutionContext* context);
  Status (*execute)(IOperationExecutionContext* context);
  struct Flags {
    // Optional inputs may be omitted (NO_VALUE); otherwise an omitted operand is BAD_DATA.
    bool allowOmittedOperand = false;
    // Inputs may have a zero dimension; execute() is skipped when an output ends up empty.
    bool allowZeroSizedInput = false;
  } flags;
};

// The one place every operation is found. Control-flow operations (IF, WHILE) are registered
// for validation; the executor runs them itself.
class OperationResolver {
 public:
  static const OperationResolver& get();
  // nullptr when `type` has no registration.
  const OperationRegistration* find(OperationType type) const;

 private:
  OperationResolver();
  const OperationRegistration* table_[kNumOperationTypes] = {};
};

}  // namespace weft::nn

// Defines the registration of one operation; put at the end of its ops/<Op>.cpp, e.g.
//   NN_REGISTER_OPERATION(ADD, "ADD", add::validate, add::prepare, add::execute,
//                         .allowZeroSizedInput = true);
#define NN_REGISTER_OPERATION(identifier, operationName, validateFn, prepareFn, executeFn, ...) \
  namespace weft::nn {                                                                        \
  const OperationRegistration* register_##identifier() {                                       \
    static const OperationRegistration registration{OperationType::identifier, operationName,  \
                                                    validateFn, prepareFn, executeFn,          \
                                                    {__VA_ARGS__}};                            \
    return &registration;                                                                      \
  }                                                                                            \
  }
