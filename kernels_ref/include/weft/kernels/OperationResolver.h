// How an operation plugs into weft: validation, shape inference and execution side by side in
// one file (kernels_ref/ops/<Op>.cpp), registered in one list (weft/nn/Operations.def, kernels_ref/nn/include).
// Modeled on AOSP's OperationResolver: the runtime validates models with `validate`, the CPU
// reference device runs `prepare` then `execute`.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

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
  // The type this model gives operand type `code` of `extension` (its prefix and the code), or a
  // type no operand has when the model does not use the extension: for extension operations,
  // which compare their operands' types against it.
  virtual OperandType extensionOperandType(std::string_view extension, uint16_t code) const = 0;
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
  // As IOperationValidationContext::extensionOperandType.
  virtual OperandType extensionOperandType(std::string_view extension, uint16_t code) const = 0;

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

// An operation of a vendor extension (weft/kernels/Extensions.h): found by the extension's name
// and its code within the extension, since each model gives the extension its own prefix.
// `operation.type` is unused.
struct ExtensionOperationRegistration {
  std::string_view extension;
  uint16_t code;
  OperationRegistration operation;
};

// The one place every operation is found. Control-flow operations (IF, WHILE) are registered
// for validation; the executor runs them itself.
class OperationResolver {
 public:
  static const OperationResolver& get();
  // nullptr when `type` has no registration (extension types never have one here).
  const OperationRegistration* find(OperationType type) const;
  // Operation `type` of `model`: a base operation, or an extension operation through the model's
  // extension prefixes. nullptr when the kernels implement no such operation.
  const OperationRegistration* find(const Model& model, OperationType type) const;
  // Extension operation `code` of `extension`, or nullptr.
  const OperationRegistration* findExtension(std::string_view extension, uint16_t code) const;

 private:
  OperationResolver();
  const OperationRegistration* table_[kNumOperationTypes] = {};
  std::vector<const ExtensionOperationRegistration*> extensions_;
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

// Defines the registration of an extension operation (listed in src/ExtensionOperations.def),
// e.g. NN_REGISTER_EXTENSION_OPERATION(WEFT_MATMUL_INT32, weft_extension::kName,
//                                      weft_extension::kMatmulInt32, "WEFT_MATMUL_INT32", ...).
#define NN_REGISTER_EXTENSION_OPERATION(identifier, extensionName, codeWithinExtension, operationName, validateFn, \
                                        prepareFn, executeFn, ...)                                              \
  namespace weft::nn {                                                                                          \
  const ExtensionOperationRegistration* register_extension_##identifier() {                                     \
    static const ExtensionOperationRegistration registration{                                                   \
        extensionName, codeWithinExtension,                                                                     \
        {static_cast<OperationType>(-1), operationName, validateFn, prepareFn, executeFn, {__VA_ARGS__}}};       \
    return &registration;                                                                                       \
  }                                                                                                             \
  }
