#include "GraphOrder.h"

#include <functional>
#include <queue>

namespace weft::runtime {

using LifeTime = nn::Operand::LifeTime;

namespace {

bool isWrittenByOperation(LifeTime lifetime) {
  return lifetime == LifeTime::TEMPORARY_VARIABLE || lifetime == LifeTime::SUBGRAPH_OUTPUT;
}

}  // namespace

nn::Result<std::vector<uint32_t>> sortIntoRunOrder(const nn::Subgraph& subgraph) {
  const size_t operandCount = subgraph.operands.size();
  const size_t operationCount = subgraph.operations.size();

  std::vector<int64_t> writer(operandCount, -1);
  for (size_t op = 0; op < operationCount; ++op) {
    for (uint32_t output : subgraph.operations[op].outputs) {
      const nn::Operand& operand = subgraph.operands[output];
      if (!isWrittenByOperation(operand.lifetime)) {
        return NN_ERROR(BAD_DATA) << "operation " << op << " (" << nn::toString(subgraph.operations[op].type)
                                  << ") writes operand " << output
                                  << ", which is a model input, a constant or omitted";
      }
      if (writer[output] >= 0) {
        return NN_ERROR(BAD_DATA) << "operand " << output << " is written by operations " << writer[output]
                                  << " and " << op;
      }
      writer[output] = static_cast<int64_t>(op);
    }
  }
  for (size_t i = 0; i < operandCount; ++i) {
    if (isWrittenByOperation(subgraph.operands[i].lifetime) && writer[i] < 0) {
      return NN_ERROR(BAD_DATA) << "operand " << i
                                << (subgraph.operands[i].lifetime == LifeTime::SUBGRAPH_OUTPUT ? " (a model output)" : "")
                                << " is never written: it is not a model input, a constant or an operation output";
    }
  }

  // Kahn's algorithm with the earliest-added ready operation first.
  std::vector<size_t> pendingInputs(operationCount, 0);
  std::vector<std::vector<uint32_t>> consumers(operandCount);
  for (size_t op = 0; op < operationCount; ++op) {
    for (uint32_t input : subgraph.operations[op].inputs) {
      if (writer[input] >= 0) {
        ++pendingInputs[op];
        consumers[input].push_back(static_cast<uint32_t>(op));
      }
    }
  }
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
  for (size_t op = 0; op < operationCount; ++op) {
    if (pendingInputs[op] == 0) ready.push(static_cast<uint32_t>(op));
  }
  std::vector<uint32_t> order;
  order.reserve(operationCount);
  while (!ready.empty()) {
    const uint32_t op = ready.top();
    ready.pop();
    order.push_back(op);
    for (uint32_t output : subgraph.operations[op].outputs) {
      for (uint32_t consumer : consumers[output]) {
        if (--pendingInputs[consumer] == 0) ready.push(consumer);
      }
    }
  }
  if (order.size() != operationCount) {
    for (size_t op = 0; op < operationCount; ++op) {
      if (pendingInputs[op] != 0) {
        return NN_ERROR(BAD_DATA) << "the graph has a cycle through operation " << op << " ("
                                  << nn::toString(subgraph.operations[op].type) << ")";
      }
    }
  }
  return order;
}

}  // namespace weft::runtime
