// The reference device's engine: runs a model's operations in dependency order on the reference
// kernels, allocating temporaries, inferring dynamic shapes through prepare(), and running IF and
// WHILE over referenced subgraphs.
#include "weft/kernels/CpuExecutor.h"

#include <cstring>
#include <functional>
#include <map>
#include <queue>

#include "ExecutionContext.h"
#include "ValidationContext.h"
#include "weft/kernels/Extensions.h"
#include "weft/kernels/OperationResolver.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn {

namespace {

using Clock = std::chrono::steady_clock;
// IF/WHILE may nest, but a subgraph that references itself would recurse forever.
constexpr uint32_t kMaxSubgraphDepth = 64;

bool isTemporaryLike(Operand::LifeTime lifetime) {
  return lifetime == Operand::LifeTime::TEMPORARY_VARIABLE || lifetime == Operand::LifeTime::SUBGRAPH_OUTPUT;
}

// A non-owning copy of an operand: same shape, same bytes.
RunTimeOperand viewOf(const RunTimeOperand& o) {
  RunTimeOperand v;
  v.type = o.type;
  v.dimensions = o.dimensions;
  v.scale = o.scale;
  v.zeroPoint = o.zeroPoint;
  v.extraParams = o.extraParams;
  v.extensionElementSize = o.extensionElementSize;
  v.lifetime = o.lifetime;
  v.buffer = o.buffer;
  v.length = o.length;
  v.omitted = o.omitted;
  return v;
}

Status checkOperandIndexes(const Subgraph& subgraph, const Operation& operation) {
  const size_t n = subgraph.operands.size();
  for (uint32_t i : operation.inputs) NN_RET_CHECK_LT(i, n) << toString(operation.type) << ": input operand index";
  for (uint32_t i : operation.outputs) NN_RET_CHECK_LT(i, n) << toString(operation.type) << ": output operand index";
  return {};
}

// Operations in an order where every operand is written before it is read (Kahn's algorithm,
// preferring the model's own order). BAD_DATA for a cycle, an operand written twice, or an input
// nothing writes.
Result<std::vector<uint32_t>> executionOrder(const Subgraph& subgraph) {
  const size_t numOperands = subgraph.operands.size();
  std::vector<int64_t> writer(numOperands, -1);
  for (size_t k = 0; k < subgraph.operations.size(); ++k) {
    NN_TRY(checkOperandIndexes(subgraph, subgraph.operations[k]));
    for (uint32_t o : subgraph.operations[k].outputs) {
      NN_RET_CHECK(isTemporaryLike(subgraph.operands[o].lifetime))
          << "operation " << k << " writes operand " << o << ", which is not a temporary or output";
      NN_RET_CHECK_EQ(writer[o], -1) << "operand " << o << " is written by two operations";
      writer[o] = static_cast<int64_t>(k);
    }
  }
  std::vector<uint32_t> pending(subgraph.operations.size(), 0);
  std::vector<std::vector<uint32_t>> consumers(numOperands);
  for (size_t k = 0; k < subgraph.operations.size(); ++k) {
    for (uint32_t i : subgraph.operations[k].inputs) {
      if (!isTemporaryLike(subgraph.operands[i].lifetime)) continue;
      NN_RET_CHECK(writer[i] >= 0) << "operand " << i << " is read by operation " << k << " but never written";
      ++pending[k];
      consumers[i].push_back(static_cast<uint32_t>(k));
    }
  }
  for (uint32_t o : subgraph.outputIndexes) {
    NN_RET_CHECK_LT(o, numOperands);
    NN_RET_CHECK(writer[o] >= 0) << "subgraph output " << o << " is never written";
  }
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
  for (uint32_t k = 0; k < pending.size(); ++k) {
    if (pending[k] == 0) ready.push(k);
  }
  std::vector<uint32_t> order;
  order.reserve(subgraph.operations.size());
  while (!ready.empty()) {
    const uint32_t k = ready.top();
    ready.pop();
    order.push_back(k);
    for (uint32_t o : subgraph.operations[k].outputs) {
      for (uint32_t c : consumers[o]) {
        if (--pending[c] == 0) ready.push(c);
      }
    }
  }
  NN_RET_CHECK_EQ(order.size(), subgraph.operations.size()) << "the operations form a cycle";
  return order;
}

class Executor {
 public:
  Executor(const Model& model, const CpuExecutionOptions& options) : model_(model), options_(options) {}

  Result<std::vector<RunTimeOperand>> initOperands(const Subgraph& subgraph) const;
  Status run(const Subgraph& subgraph, std::vector<RunTimeOperand>& operands);

 private:
  Status checkDeadline() const {
    if (options_.deadline && Clock::now() > *options_.deadline) {
      return NN_ERROR(MISSED_DEADLINE_TRANSIENT) << "execution deadline passed";
    }
    return {};
  }
  Status runOperation(const Operation& operation, std::vector<RunTimeOperand>& operands);
  Status runIf(const Operation& operation, std::vector<RunTimeOperand>& operands);
  Status runWhile(const Operation& operation, std::vector<RunTimeOperand>& operands);
  // Runs referenced subgraph `index` on `args`; returns its outputs (owning their bytes).
  Result<std::vector<RunTimeOperand>> callSubgraph(int32_t index, const std::vector<RunTimeOperand>& args);
  Result<const std::vector<uint32_t>*> orderOf(const Subgraph& subgraph);

  const Model& model_;
  const CpuExecutionOptions& options_;
  std::map<const Subgraph*, std::vector<uint32_t>> orders_;
  uint32_t depth_ = 0;
};

Result<std::vector<RunTimeOperand>> Executor::initOperands(const Subgraph& subgraph) const {
  std::vector<RunTimeOperand> operands(subgraph.operands.size());
  for (size_t i = 0; i < subgraph.operands.size(); ++i) {
    const Operand& o = subgraph.operands[i];
    RunTimeOperand& r = operands[i];
    r.type = o.type;
    r.dimensions = o.dimensions;
    r.scale = o.scale;
    r.zeroPoint = o.zeroPoint;
    r.extraParams = o.extraParams;
    r.lifetime = o.lifetime;
    if (isExtension(o.type)) {
      const std::optional<OperandTypeInfo> info = operandTypeInfo(model_, o.type);
      NN_RET_CHECK(info.has_value()) << "operand " << i << " is of an extension type the kernels do not know";
      r.extensionElementSize = info->elementSize;
    }
    switch (o.lifetime) {
      case Operand::LifeTime::CONSTANT_COPY:
      case Operand::LifeTime::CONSTANT_REFERENCE:
      case Operand::LifeTime::POINTER: {
        const uint8_t* data = constantData(model_, o);
        const size_t needed = r.requiredBytes();
        NN_RET_CHECK(data != nullptr || needed == 0) << "constant operand " << i << " has no valid location";
        NN_RET_CHECK_GE(o.location.length, needed) << "constant operand " << i << " is shorter than its shape";
        // Kernels never write their inputs: the const_cast only lets constants share the field.
        r.buffer = const_cast<uint8_t*>(data);
        r.length = o.location.length;
        break;
      }
      case Operand::LifeTime::NO_VALUE:
        r.omitted = true;
        break;
      case Operand::LifeTime::SUBGRAPH: {
        NN_RET_CHECK(referencedSubgraph(model_, o) != nullptr) << "operand " << i << " names no subgraph";
        r.subgraphIndex = static_cast<int32_t>(o.location.offset);
        break;
      }
      default:
        break;
    }
  }
  for (const Operation& operation : subgraph.operations) {
    NN_TRY(checkOperandIndexes(subgraph, operation));
    for (uint32_t i : operation.inputs) ++operands[i].usesLeft;
  }
  return operands;
}

Result<const std::vector<uint32_t>*> Executor::orderOf(const Subgraph& subgraph) {
  auto it = orders_.find(&subgraph);
  if (it == orders_.end()) {
    auto order = executionOrder(subgraph);
    if (!order.ok()) return order.error();
    it = orders_.emplace(&subgraph, std::move(order).value()).first;
  }
  return &it->second;
}

Status Executor::run(const Subgraph& subgraph, std::vector<RunTimeOperand>& operands) {
  auto order = orderOf(subgraph);
  if (!order.ok()) return order.error();
  for (uint32_t k : **order) {
    NN_TRY(checkDeadline());
    const Operation& operation = subgraph.operations[k];
    const auto start = Clock::now();
    NN_TRY(runOperation(operation, operands));
    if (options_.operationNs != nullptr && &subgraph == &model_.main) {
      options_.operationNs->at(k) =
          static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
    }
    for (uint32_t i : operation.inputs) {
      RunTimeOperand& in = operands[i];
      // Free a temporary as soon as its last reader has run.
      if (--in.usesLeft == 0 && in.lifetime == Operand::LifeTime::TEMPORARY_VARIABLE) {
        std::vector<uint8_t>().swap(in.storage);
        in.buffer = nullptr;
        in.length = 0;
      }
    }
  }
  return {};
}

Status Executor::runOperation(const Operation& operation, std::vector<RunTimeOperand>& operands) {
  if (operation.type == OperationType::IF) return runIf(operation, operands);
  if (operation.type == OperationType::WHILE) return runWhile(operation, operands);
  const OperationRegistration* reg = OperationResolver::get().find(model_, operation.type);
  NN_RET_CHECK(reg != nullptr && reg->prepare != nullptr && reg->execute != nullptr)
      << toString(operation.type) << " has no kernel";
  ExecutionContext context(model_, operation, operands);
  for (uint32_t i = 0; i < context.getNumInputs(); ++i) {
    if (context.isOmittedInput(i)) {
      NN_RET_CHECK(reg->flags.allowOmittedOperand) << reg->name << ": input " << i << " is omitted";
      continue;
    }
    const RunTimeOperand& in = operands[operation.inputs[i]];
    if (isTensor(in.type) && numberOfElements(in.dimensions) == 0) {
      NN_RET_CHECK(reg->flags.allowZeroSizedInput) << reg->name << ": input " << i << " is zero-sized "
                                                   << toString(in.dimensions);
    }
  }
  if (Status s = reg->prepare(&context); !s.ok()) {
    Error e = s.error();
    e.message = std::string(reg->name) + ": " + e.message;
    return e;
  }
  bool anyOutputEmpty = false;
  for (uint32_t i = 0; i < context.getNumOutputs(); ++i) {
    const RunTimeOperand& out = operands[operation.outputs[i]];
    NN_RET_CHECK(out.shapeSet || isFullySpecified(out.type, out.dimensions))
        << reg->name << ": prepare() left output " << i << " with shape " << toString(out.dimensions);
    NN_RET_CHECK_GE(out.length, out.requiredBytes()) << reg->name << ": output " << i << " has no storage";
    anyOutputEmpty = anyOutputEmpty || out.requiredBytes() == 0;
  }
  if (anyOutputEmpty && reg->flags.allowZeroSizedInput) return {};
  if (Status s = reg->execute(&context); !s.ok()) {
    Error e = s.error();
    e.message = std::string(reg->name) + ": " + e.message;
    return e;
  }
  return {};
}

Result<std::vector<RunTimeOperand>> Executor::callSubgraph(int32_t index, const std::vector<RunTimeOperand>& args) {
  NN_RET_CHECK(index >= 0 && static_cast<size_t>(index) < model_.referenced.size()) << "bad subgraph index";
  NN_RET_CHECK_LT(depth_, kMaxSubgraphDepth) << "subgraphs nested deeper than " << kMaxSubgraphDepth;
  const Subgraph& subgraph = model_.referenced[index];
  NN_RET_CHECK_EQ(args.size(), subgraph.inputIndexes.size()) << "subgraph " << index << " input count";
  auto init = initOperands(subgraph);
  if (!init.ok()) return init.error();
  std::vector<RunTimeOperand> operands = std::move(init).value();
  for (size_t i = 0; i < args.size(); ++i) {
    const uint32_t o = subgraph.inputIndexes[i];
    NN_RET_CHECK_LT(o, operands.size());
    RunTimeOperand& in = operands[o];
    const RunTimeOperand& arg = args[i];
    NN_RET_CHECK(in.type == arg.type) << "subgraph " << index << " input " << i << " type mismatch";
    NN_RET_CHECK(in.dimensions.empty() || in.dimensions.size() == arg.dimensions.size())
        << "subgraph " << index << " input " << i << " rank mismatch";
    for (size_t d = 0; d < in.dimensions.size(); ++d) {
      NN_RET_CHECK(in.dimensions[d] == 0 || in.dimensions[d] == arg.dimensions[d])
          << "subgraph " << index << " input " << i << " shape mismatch";
    }
    in.dimensions = arg.dimensions;
    in.buffer = arg.buffer;
    in.length = arg.length;
    in.omitted = arg.omitted;
  }
  ++depth_;
  const Status status = run(subgraph, operands);
  --depth_;
  NN_TRY(status);
  std::vector<RunTimeOperand> outputs;
  outputs.reserve(subgraph.outputIndexes.size());
  for (size_t i = 0; i < subgraph.outputIndexes.size(); ++i) {
    const uint32_t o = subgraph.outputIndexes[i];
    bool seenBefore = false;
    for (size_t j = 0; j < i; ++j) seenBefore = seenBefore || subgraph.outputIndexes[j] == o;
    RunTimeOperand out = viewOf(operands[o]);
    if (seenBefore) {
      // The same operand listed twice as an output: give the second its own copy.
      out.storage.assign(out.buffer, out.buffer + out.length);
    } else {
      out.storage = std::move(operands[o].storage);
    }
    out.buffer = out.storage.empty() ? nullptr : out.storage.data();
    outputs.push_back(std::move(out));
  }
  return outputs;
}

// Copies an inner result into an outer output operand, giving the outer operand its shape.
Status copyToOuter(const RunTimeOperand& inner, RunTimeOperand& outer) {
  NN_TRY(setRunTimeShape(outer, inner.shape()));
  const size_t bytes = outer.requiredBytes();
  NN_RET_CHECK_GE(inner.length, bytes);
  if (bytes > 0) std::memcpy(outer.buffer, inner.buffer, bytes);
  return {};
}

Status Executor::runIf(const Operation& operation, std::vector<RunTimeOperand>& operands) {
  NN_RET_CHECK_GE(operation.inputs.size(), 3u) << "IF needs a condition and two branches";
  const RunTimeOperand& condition = operands[operation.inputs[0]];
  NN_RET_CHECK(condition.buffer != nullptr && condition.length >= 1) << "IF condition has no value";
  const bool takeThen = condition.buffer[0] != 0;
  const RunTimeOperand& branch = operands[operation.inputs[takeThen ? 1 : 2]];
  std::vector<RunTimeOperand> args;
  for (size_t i = 3; i < operation.inputs.size(); ++i) args.push_back(viewOf(operands[operation.inputs[i]]));
  auto results = callSubgraph(branch.subgraphIndex, args);
  if (!results.ok()) return results.error();
  NN_RET_CHECK_EQ(results->size(), operation.outputs.size()) << "IF branch output count";
  for (size_t i = 0; i < operation.outputs.size(); ++i) {
    NN_TRY(copyToOuter((*results)[i], operands[operation.outputs[i]]));
  }
  return {};
}

Status Executor::runWhile(const Operation& operation, std::vector<RunTimeOperand>& operands) {
  NN_RET_CHECK_GE(operation.inputs.size(), 3u) << "WHILE needs cond, body and inputs";
  const int32_t condIndex = operands[operation.inputs[0]].subgraphIndex;
  const int32_t bodyIndex = operands[operation.inputs[1]].subgraphIndex;
  // Loop variables: input-output, state-only, then input-only operands. The body rewrites the first
  // body.outputIndexes.size() of them each iteration.
  std::vector<RunTimeOperand> vars;
  for (size_t i = 2; i < operation.inputs.size(); ++i) vars.push_back(viewOf(operands[operation.inputs[i]]));
  const auto start = Clock::now();
  while (true) {
    NN_TRY(checkDeadline());
    if (Clock::now() - start > options_.loopTimeout) {
      return NN_ERROR(MISSED_DEADLINE_TRANSIENT) << "WHILE loop ran longer than the loop timeout of "
                                                 << options_.loopTimeout.count() << " ns";
    }
    auto cond = callSubgraph(condIndex, vars);
    if (!cond.ok()) return cond.error();
    NN_RET_CHECK_EQ(cond->size(), 1u) << "WHILE condition must have one output";
    const RunTimeOperand& c = cond->front();
    NN_RET_CHECK(c.type == OperandType::TENSOR_BOOL8 && c.buffer != nullptr && c.length >= 1)
        << "WHILE condition output must be a non-empty TENSOR_BOOL8";
    if (c.buffer[0] == 0) break;
    auto body = callSubgraph(bodyIndex, vars);
    if (!body.ok()) return body.error();
    NN_RET_CHECK_LE(body->size(), vars.size()) << "WHILE body has more outputs than loop variables";
    for (size_t j = 0; j < body->size(); ++j) vars[j] = std::move((*body)[j]);
  }
  NN_RET_CHECK_LE(operation.outputs.size(), vars.size());
  for (size_t i = 0; i < operation.outputs.size(); ++i) {
    NN_TRY(copyToOuter(vars[i], operands[operation.outputs[i]]));
  }
  return {};
}

struct ArgumentMemory {
  uint8_t* data = nullptr;
  size_t length = 0;
};

Result<ArgumentMemory> resolveArgument(const Request& request, const RequestArgument& arg) {
  switch (arg.lifetime) {
    case RequestArgument::LifeTime::POINTER:
      NN_RET_CHECK(arg.location.pointer != nullptr || arg.location.length == 0) << "null argument pointer";
      return ArgumentMemory{static_cast<uint8_t*>(const_cast<void*>(arg.location.pointer)), arg.location.length};
    case RequestArgument::LifeTime::POOL: {
      NN_RET_CHECK_LT(arg.location.poolIndex, request.pools.size()) << "argument pool index";
      const SharedMemory& pool = request.pools[arg.location.poolIndex];
      NN_RET_CHECK(pool != nullptr) << "null request pool";
      NN_RET_CHECK_LE(size_t{arg.location.offset} + arg.location.length, pool->size())
          << "argument lies outside its pool";
      return ArgumentMemory{pool->data() + arg.location.offset, arg.location.length};
    }
    case RequestArgument::LifeTime::NO_VALUE:
      return ArgumentMemory{};
  }
  return NN_ERROR(BAD_DATA) << "bad argument lifetime";
}

// The request's dimensions refine the model's unspecified ones and must agree with the known ones.
Result<Dimensions> argumentDimensions(const Operand& operand, const RequestArgument& arg) {
  if (arg.dimensions.empty()) return operand.dimensions;
  if (!operand.dimensions.empty()) {
    NN_RET_CHECK_EQ(arg.dimensions.size(), operand.dimensions.size()) << "argument rank differs from the model's";
    for (size_t d = 0; d < arg.dimensions.size(); ++d) {
      NN_RET_CHECK(operand.dimensions[d] == 0 || operand.dimensions[d] == arg.dimensions[d])
          << "argument dimensions " << toString(arg.dimensions) << " contradict the model's "
          << toString(operand.dimensions);
    }
  }
  return arg.dimensions;
}

Status bindRequest(const Model& model, const Request& request, std::vector<RunTimeOperand>& operands) {
  const Subgraph& main = model.main;
  NN_RET_CHECK_EQ(request.inputs.size(), main.inputIndexes.size()) << "request input count";
  NN_RET_CHECK_EQ(request.outputs.size(), main.outputIndexes.size()) << "request output count";
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    const uint32_t index = main.inputIndexes[i];
    NN_RET_CHECK_LT(index, operands.size());
    RunTimeOperand& r = operands[index];
    const RequestArgument& arg = request.inputs[i];
    auto memory = resolveArgument(request, arg);
    if (!memory.ok()) return memory.error();
    if (arg.lifetime == RequestArgument::LifeTime::NO_VALUE) {
      r.omitted = true;
      continue;
    }
    auto dims = argumentDimensions(main.operands[index], arg);
    if (!dims.ok()) return dims.error();
    r.dimensions = std::move(dims).value();
    NN_RET_CHECK(isFullySpecified(r.type, r.dimensions))
        << "input " << i << " has unspecified dimensions " << toString(r.dimensions);
    NN_RET_CHECK_GE(memory->length, r.requiredBytes()) << "input " << i << " buffer is too small";
    r.buffer = memory->data;
    r.length = memory->length;
  }
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    const uint32_t index = main.outputIndexes[i];
    NN_RET_CHECK_LT(index, operands.size());
    RunTimeOperand& r = operands[index];
    const RequestArgument& arg = request.outputs[i];
    auto memory = resolveArgument(request, arg);
    if (!memory.ok()) return memory.error();
    auto dims = argumentDimensions(main.operands[index], arg);
    if (!dims.ok()) return dims.error();
    r.dimensions = std::move(dims).value();
    if (arg.lifetime == RequestArgument::LifeTime::NO_VALUE) {
      r.omitted = true;  // computed into scratch storage and dropped
      continue;
    }
    r.buffer = memory->data;
    r.length = memory->length;
    r.fixedCapacity = true;
  }
  return {};
}

Status validateSubgraph(const Model& model, const Subgraph& subgraph) {
  for (uint32_t i : subgraph.inputIndexes) NN_RET_CHECK_LT(i, subgraph.operands.size()) << "subgraph input index";
  for (uint32_t i : subgraph.outputIndexes) NN_RET_CHECK_LT(i, subgraph.operands.size()) << "subgraph output index";
  for (const Operation& operation : subgraph.operations) NN_TRY(validateOperation(model, subgraph, operation));
  return {};
}

}  // namespace

Status validateOperation(const Model& model, const Subgraph& subgraph, const Operation& operation) {
  const auto typeValue = static_cast<int32_t>(operation.type);
  NN_RET_CHECK(isExtension(operation.type) || (typeValue >= 0 && typeValue < kNumOperationTypes))
      << "unknown operation type " << typeValue;
  NN_TRY(checkOperandIndexes(subgraph, operation));
  const OperationRegistration* reg = OperationResolver::get().find(model, operation.type);
  if (reg == nullptr || reg->validate == nullptr) {
    return NN_ERROR(BAD_DATA) << toString(operation.type) << " is not supported: it has no registration in the "
                              << "reference kernels";
  }
  for (size_t i = 0; i < operation.inputs.size(); ++i) {
    const Operand& operand = subgraph.operands[operation.inputs[i]];
    if (operand.lifetime == Operand::LifeTime::NO_VALUE) {
      NN_RET_CHECK(reg->flags.allowOmittedOperand) << reg->name << ": input " << i << " may not be omitted";
      continue;
    }
    if (Status s = validateQuantization(Shape{operand.type, operand.dimensions, operand.scale, operand.zeroPoint,
                                              operand.extraParams});
        !s.ok()) {
      return NN_ERROR(BAD_DATA) << reg->name << ": input " << i << ": " << s.error().message;
    }
  }
  for (size_t i = 0; i < operation.outputs.size(); ++i) {
    const Operand& operand = subgraph.operands[operation.outputs[i]];
    NN_RET_CHECK(operand.lifetime != Operand::LifeTime::NO_VALUE) << reg->name << ": output " << i << " is omitted";
    if (Status s = validateQuantization(Shape{operand.type, operand.dimensions, operand.scale, operand.zeroPoint,
                                              operand.extraParams});
        !s.ok()) {
      return NN_ERROR(BAD_DATA) << reg->name << ": output " << i << ": " << s.error().message;
    }
  }
  ValidationContext context(model, subgraph, operation);
  if (Status s = reg->validate(&context); !s.ok()) {
    return NN_ERROR(BAD_DATA) << reg->name << ": " << s.error().message;
  }
  return {};
}

Status validateModel(const Model& model) {
  NN_TRY(validateSubgraph(model, model.main));
  for (const Subgraph& subgraph : model.referenced) NN_TRY(validateSubgraph(model, subgraph));
  return {};
}

Result<std::vector<OutputShape>> executeOnCpu(const Model& model, const Request& request,
                                              const CpuExecutionOptions& options) {
  if (!options.modelValidated) NN_TRY(validateModel(model));

  Executor executor(model, options);
  auto init = executor.initOperands(model.main);
  if (!init.ok()) return init.error();
  std::vector<RunTimeOperand> operands = std::move(init).value();
  NN_TRY(bindRequest(model, request, operands));

  const Status status = executor.run(model.main, operands);
  if (!status.ok() && status.error().code != ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) return status.error();

  std::vector<OutputShape> shapes;
  for (uint32_t index : model.main.outputIndexes) {
    const RunTimeOperand& r = operands[index];
    shapes.push_back(OutputShape{r.dimensions, !r.insufficient});
  }
  return shapes;
}

}  // namespace weft::nn
