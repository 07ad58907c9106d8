// Runs a whole model on the reference kernels: the engine of the CPU reference device and the
// numeric ground truth every accelerator result is checked against.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::nn {

struct CpuExecutionOptions {
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // Limit on the time a WHILE loop may run (NNAPI's loop timeout; default 2 s, max 15 s).
  std::chrono::nanoseconds loopTimeout = std::chrono::seconds(2);
  // When set, receives the host time each operation of model.main took (prepare + execute),
  // indexed like model.main.operations; for the CPU device's per-operation profile.
  std::vector<uint64_t>* operationNs = nullptr;
  // validateModel() already accepted the model: executeOnCpu does not check it again.
  bool modelValidated = false;
};

// Executes model.main with the request's inputs into its outputs.
//  - Temporaries are allocated here; dynamic (unspecified) output shapes are inferred by each
//    operation's prepare().
//  - IF and WHILE run their referenced subgraphs.
//  - When an output buffer is too small the result is Ok with that OutputShape marked
//    isSufficient = false (and the actual dimensions).
//  - Failures: BAD_DATA for an invalid request or values an operation rejects, OP_FAILED for
//    execution errors, MISSED_DEADLINE_* on deadline or loop timeout.
Result<std::vector<OutputShape>> executeOnCpu(const Model& model, const Request& request,
                                              const CpuExecutionOptions& options = {});

// Validates every operation of every subgraph of `model` (what executeOnCpu does first unless told
// the model was validated already).
Status validateModel(const Model& model);

// Validates one operation of `subgraph` with its registered validate() (used by the runtime at
// ANeuralNetworksModel_addOperation and _finish). BAD_DATA with the reason when invalid or when
// the operation has no registration.
Status validateOperation(const Model& model, const Subgraph& subgraph, const Operation& operation);

}  // namespace weft::nn
