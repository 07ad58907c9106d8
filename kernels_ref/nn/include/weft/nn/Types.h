// Canonical types of NNAPI models, shared by the runtime, the HAL interfaces, the devices and
// the reference kernels. Modeled on AOSP's nnapi/Types.h: plain structs with the NNAPI enum
// values, independent of the C API header so that every layer can use them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace weft::nn {

// Values as ANEURALNETWORKS_* in NeuralNetworksTypes.h.
enum class OperandType : int32_t {
  FLOAT32 = 0,
  INT32 = 1,
  UINT32 = 2,
  TENSOR_FLOAT32 = 3,
  TENSOR_INT32 = 4,
  TENSOR_QUANT8_ASYMM = 5,
  BOOL = 6,
  TENSOR_QUANT16_SYMM = 7,
  TENSOR_FLOAT16 = 8,
  TENSOR_BOOL8 = 9,
  FLOAT16 = 10,
  TENSOR_QUANT8_SYMM_PER_CHANNEL = 11,
  TENSOR_QUANT16_ASYMM = 12,
  TENSOR_QUANT8_SYMM = 13,
  TENSOR_QUANT8_ASYMM_SIGNED = 14,
  SUBGRAPH = 15,
};

enum class OperationType : int32_t {
  ADD = 0,
  AVERAGE_POOL_2D = 1,
  CONCATENATION = 2,
  CONV_2D = 3,
  DEPTHWISE_CONV_2D = 4,
  DEPTH_TO_SPACE = 5,
  DEQUANTIZE = 6,
  EMBEDDING_LOOKUP = 7,
  FLOOR = 8,
  FULLY_CONNECTED = 9,
  HASHTABLE_LOOKUP = 10,
  L2_NORMALIZATION = 11,
  L2_POOL_2D = 12,
  LOCAL_RESPONSE_NORMALIZATION = 13,
  LOGISTIC = 14,
  LSH_PROJECTION = 15,
  LSTM = 16,
  MAX_POOL_2D = 17,
  MUL = 18,
  RELU = 19,
  RELU1 = 20,
  RELU6 = 21,
  RESHAPE = 22,
  RESIZE_BILINEAR = 23,
  RNN = 24,
  SOFTMAX = 25,
  SPACE_TO_DEPTH = 26,
  SVDF = 27,
  TANH = 28,
  BATCH_TO_SPACE_ND = 29,
  DIV = 30,
  MEAN = 31,
  PAD = 32,
  SPACE_TO_BATCH_ND = 33,
  SQUEEZE = 34,
  STRIDED_SLICE = 35,
  SUB = 36,
  TRANSPOSE = 37,
  ABS = 38,
  ARGMAX = 39,
  ARGMIN = 40,
  AXIS_ALIGNED_BBOX_TRANSFORM = 41,
  BIDIRECTIONAL_SEQUENCE_LSTM = 42,
  BIDIRECTIONAL_SEQUENCE_RNN = 43,
  BOX_WITH_NMS_LIMIT = 44,
  CAST = 45,
  CHANNEL_SHUFFLE = 46,
  DETECTION_POSTPROCESSING = 47,
  EQUAL = 48,
  EXP = 49,
  EXPAND_DIMS = 50,
  GATHER = 51,
  GENERATE_PROPOSALS = 52,
  GREATER = 53,
  GREATER_EQUAL = 54,
  GROUPED_CONV_2D = 55,
  HEATMAP_MAX_KEYPOINT = 56,
  INSTANCE_NORMALIZATION = 57,
  LESS = 58,
  LESS_EQUAL = 59,
  LOG = 60,
  LOGICAL_AND = 61,
  LOGICAL_NOT = 62,
  LOGICAL_OR = 63,
  LOG_SOFTMAX = 64,
  MAXIMUM = 65,
  MINIMUM = 66,
  NEG = 67,
  NOT_EQUAL = 68,
  PAD_V2 = 69,
  POW = 70,
  PRELU = 71,
  QUANTIZE = 72,
  QUANTIZED_16BIT_LSTM = 73,
  RANDOM_MULTINOMIAL = 74,
  REDUCE_ALL = 75,
  REDUCE_ANY = 76,
  REDUCE_MAX = 77,
  REDUCE_MIN = 78,
  REDUCE_PROD = 79,
  REDUCE_SUM = 80,
  ROI_ALIGN = 81,
  ROI_POOLING = 82,
  RSQRT = 83,
  SELECT = 84,
  SIN = 85,
  SLICE = 86,
  SPLIT = 87,
  SQRT = 88,
  TILE = 89,
  TOPK_V2 = 90,
  TRANSPOSE_CONV_2D = 91,
  UNIDIRECTIONAL_SEQUENCE_LSTM = 92,
  UNIDIRECTIONAL_SEQUENCE_RNN = 93,
  RESIZE_NEAREST_NEIGHBOR = 94,
  QUANTIZED_LSTM = 95,
  IF = 96,
  WHILE = 97,
  ELU = 98,
  HARD_SWISH = 99,
  FILL = 100,
  RANK = 101,
  BATCH_MATMUL = 102,
  PACK = 103,
  MIRROR_PAD = 104,
  REVERSE = 105,
};
inline constexpr int32_t kNumOperationTypes = 106;

enum class FusedActivationFunc : int32_t { NONE = 0, RELU = 1, RELU1 = 2, RELU6 = 3 };

// ANEURALNETWORKS_* result codes.
enum class ErrorStatus : int32_t {
  NONE = 0,
  OUT_OF_MEMORY = 1,
  INCOMPLETE = 2,
  UNEXPECTED_NULL = 3,
  BAD_DATA = 4,
  OP_FAILED = 5,
  BAD_STATE = 6,
  UNMAPPABLE = 7,
  OUTPUT_INSUFFICIENT_SIZE = 8,
  UNAVAILABLE_DEVICE = 9,
  MISSED_DEADLINE_TRANSIENT = 10,
  MISSED_DEADLINE_PERSISTENT = 11,
  RESOURCE_EXHAUSTED_TRANSIENT = 12,
  RESOURCE_EXHAUSTED_PERSISTENT = 13,
  DEAD_OBJECT = 14,
};

enum class ExecutionPreference : int32_t { LOW_POWER = 0, FAST_SINGLE_ANSWER = 1, SUSTAINED_SPEED = 2 };
enum class Priority : int32_t { LOW = 90, MEDIUM = 100, HIGH = 110 };
enum class MeasureTiming : bool { NO = false, YES = true };
enum class DeviceType : int32_t { UNKNOWN = 0, OTHER = 1, CPU = 2, GPU = 3, ACCELERATOR = 4 };

// NNAPI feature levels (ANEURALNETWORKS_FEATURE_LEVEL_*).
inline constexpr int64_t kFeatureLevel1 = 27;
inline constexpr int64_t kFeatureLevel2 = 28;
inline constexpr int64_t kFeatureLevel3 = 29;
inline constexpr int64_t kFeatureLevel4 = 30;
inline constexpr int64_t kFeatureLevel5 = 31;
inline constexpr int64_t kFeatureLevel6 = 1000006;
inline constexpr int64_t kFeatureLevel7 = 1000007;
inline constexpr int64_t kFeatureLevel8 = 1000008;

using Dimensions = std::vector<uint32_t>;

struct SymmPerChannelQuantParams {
  std::vector<float> scales;
  uint32_t channelDim = 0;
};
// Operand::ExtraParams as in NNAPI: none, per-channel quantization, or extension bytes.
using ExtraParams = std::variant<std::monostate, SymmPerChannelQuantParams, std::vector<uint8_t>>;

// Where a constant's bytes are: an offset into Model::operandValues (CONSTANT_COPY), a memory
// pool (CONSTANT_REFERENCE, request arguments), or a subgraph index (SUBGRAPH).
struct DataLocation {
  const void* pointer = nullptr;  // POINTER lifetime (caller-owned), unused otherwise
  uint32_t poolIndex = 0;
  uint32_t offset = 0;
  uint32_t length = 0;
};

struct Operand {
  enum class LifeTime : int32_t {
    TEMPORARY_VARIABLE = 0,
    SUBGRAPH_INPUT = 1,
    SUBGRAPH_OUTPUT = 2,
    CONSTANT_COPY = 3,
    CONSTANT_REFERENCE = 4,
    NO_VALUE = 5,
    SUBGRAPH = 6,
    POINTER = 7,
  };

  OperandType type = OperandType::FLOAT32;
  Dimensions dimensions;  // 0 in a dimension = unknown; empty for scalars or unknown rank
  float scale = 0.0f;
  int32_t zeroPoint = 0;
  LifeTime lifetime = LifeTime::TEMPORARY_VARIABLE;
  DataLocation location;
  ExtraParams extraParams;
};

struct Operation {
  OperationType type = OperationType::ADD;
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
};

struct Subgraph {
  std::vector<Operand> operands;
  std::vector<Operation> operations;
  std::vector<uint32_t> inputIndexes;
  std::vector<uint32_t> outputIndexes;
};

// A block of shared memory (ANeuralNetworksMemory): bytes the model or a request points into.
class Memory {
 public:
  virtual ~Memory() = default;
  virtual uint8_t* data() = 0;
  virtual size_t size() const = 0;
};
using SharedMemory = std::shared_ptr<Memory>;

// Vendor extensions (NNAPI's extension mechanism). An extension operand or operation type holds
// in its high 16 bits the prefix its model gave the extension (Model::extensionNameToPrefix, from
// 1) and in its low 16 bits the code within the extension; base types have prefix 0.
inline constexpr uint32_t kExtensionTypeBits = 16;
struct ExtensionNameAndPrefix {
  std::string name;
  uint16_t prefix = 0;
};
// What a device says of an extension it supports (as NN HAL's Extension).
struct Extension {
  struct OperandTypeInformation {
    uint16_t type = 0;  // the code within the extension
    bool isTensor = false;
    uint32_t byteSize = 0;  // of a scalar, or of one element of a tensor
  };
  std::string name;
  std::vector<OperandTypeInformation> operandTypes;
};
bool isExtension(OperandType type);
bool isExtension(OperationType type);
uint16_t getExtensionPrefix(int32_t type);
uint16_t getTypeWithinExtension(int32_t type);
// The extension `prefix` denotes among `prefixes`, or nullptr.
const std::string* extensionNameOf(const std::vector<ExtensionNameAndPrefix>& prefixes, uint16_t prefix);
// The code within extension `name` of `type` (an operation's type in a model with these prefixes),
// when `type` is one of that extension's operations.
std::optional<uint16_t> extensionOperationCode(const std::vector<ExtensionNameAndPrefix>& prefixes, OperationType type,
                                               const std::string& name);

// The size rules of an operand type: a scalar of elementSize bytes, or a tensor of such elements.
struct OperandTypeInfo {
  bool isTensor = false;
  uint32_t elementSize = 0;
};
// The base types' rules; nullopt for an extension or unknown type.
std::optional<OperandTypeInfo> baseOperandTypeInfo(OperandType type);
// The rules of `type` (base or extension) in a model whose extensions have `prefixes`, with
// `extensions` describing the extensions known; nullopt when nobody defines the type.
std::optional<OperandTypeInfo> operandTypeInfo(OperandType type, const std::vector<ExtensionNameAndPrefix>& prefixes,
                                               const std::vector<Extension>& extensions);

struct Model {
  Subgraph main;
  std::vector<Subgraph> referenced;  // IF/WHILE bodies, indexed by SUBGRAPH operands
  std::vector<uint8_t> operandValues;  // CONSTANT_COPY bytes
  std::vector<SharedMemory> pools;     // CONSTANT_REFERENCE memories
  bool relaxComputationFloat32toFloat16 = false;
  std::vector<ExtensionNameAndPrefix> extensionNameToPrefix;  // the extensions its types use
};

// One input or output of a request.
struct RequestArgument {
  enum class LifeTime : int32_t { POOL = 0, NO_VALUE = 1, POINTER = 2 };
  LifeTime lifetime = LifeTime::POINTER;
  DataLocation location;  // pointer (POINTER) or pool + offset + length (POOL)
  Dimensions dimensions;  // overrides the model's when the model left them unspecified
};

struct Request {
  std::vector<RequestArgument> inputs;
  std::vector<RequestArgument> outputs;
  std::vector<SharedMemory> pools;
};

struct OutputShape {
  Dimensions dimensions;
  bool isSufficient = true;
};

// Durations in nanoseconds; kNoTiming where not available (NNAPI's UINT64_MAX).
inline constexpr uint64_t kNoTiming = std::numeric_limits<uint64_t>::max();
struct Timing {
  uint64_t timeOnDeviceNs = kNoTiming;
  uint64_t timeInDriverNs = kNoTiming;
};

// The shape (and quantization) of one operand value as the kernels see it.
struct Shape {
  OperandType type = OperandType::FLOAT32;
  Dimensions dimensions;
  float scale = 0.0f;
  int32_t offset = 0;  // zero point
  ExtraParams extraParams;
};

// Bytes of one element of `type` (1 for BOOL/TENSOR_BOOL8, 0 for SUBGRAPH).
size_t sizeOfElement(OperandType type);
bool isTensor(OperandType type);
bool isQuantized(OperandType type);
// Product of the dimensions (1 for a scalar); 0 when any dimension is 0.
size_t numberOfElements(const Dimensions& dims);
// sizeOfElement * numberOfElements, or 0 for unknown dimensions.
size_t sizeOfData(OperandType type, const Dimensions& dims);
// True when every dimension is known (and, for tensors, the rank is known).
bool isFullySpecified(OperandType type, const Dimensions& dims);

const char* toString(OperandType type);
const char* toString(OperationType type);
const char* toString(ErrorStatus status);

}  // namespace weft::nn
