/*
 * The types of the Android NNAPI NDK C API (NNAPI feature level 8), for weft's
 * libneuralnetworks.so on Linux. Names, values and layouts are those of the NNAPI
 * reference header (AOSP packages/modules/NeuralNetworks runtime/include/NeuralNetworksTypes.h),
 * so that code written for Android compiles unchanged. The full documentation of each
 * operation is the NNAPI reference; the comments here only name what a value is.
 */
#ifndef WEFT_ANDROID_NEURAL_NETWORKS_TYPES_H
#define WEFT_ANDROID_NEURAL_NETWORKS_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Operand types (available since the feature level in brackets). */
typedef enum {
    ANEURALNETWORKS_FLOAT32 = 0,                        /**< float scalar [1] */
    ANEURALNETWORKS_INT32 = 1,                          /**< int32 scalar [1] */
    ANEURALNETWORKS_UINT32 = 2,                         /**< uint32 scalar [1] */
    ANEURALNETWORKS_TENSOR_FLOAT32 = 3,                 /**< [1] */
    ANEURALNETWORKS_TENSOR_INT32 = 4,                   /**< [1] */
    ANEURALNETWORKS_TENSOR_QUANT8_ASYMM = 5,            /**< uint8, scale > 0, zeroPoint 0..255 [1] */
    ANEURALNETWORKS_BOOL = 6,                           /**< 8-bit boolean scalar [3] */
    ANEURALNETWORKS_TENSOR_QUANT16_SYMM = 7,            /**< int16, scale > 0, zeroPoint 0 [3] */
    ANEURALNETWORKS_TENSOR_FLOAT16 = 8,                 /**< [3] */
    ANEURALNETWORKS_TENSOR_BOOL8 = 9,                   /**< [3] */
    ANEURALNETWORKS_FLOAT16 = 10,                       /**< half scalar [3] */
    ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL = 11,/**< int8, per-channel scales [3] */
    ANEURALNETWORKS_TENSOR_QUANT16_ASYMM = 12,          /**< uint16, zeroPoint 0..65535 [3] */
    ANEURALNETWORKS_TENSOR_QUANT8_SYMM = 13,            /**< int8, zeroPoint 0 [3] */
    ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED = 14,    /**< int8, zeroPoint -128..127 [4] */
    ANEURALNETWORKS_MODEL = 15,                         /**< reference to a model [4] */
} OperandCode;

/** Operation types; see the NNAPI reference for inputs, outputs and semantics. */
typedef enum {
    /* Feature level 1. */
    ANEURALNETWORKS_ADD = 0,
    ANEURALNETWORKS_AVERAGE_POOL_2D = 1,
    ANEURALNETWORKS_CONCATENATION = 2,
    ANEURALNETWORKS_CONV_2D = 3,
    ANEURALNETWORKS_DEPTHWISE_CONV_2D = 4,
    ANEURALNETWORKS_DEPTH_TO_SPACE = 5,
    ANEURALNETWORKS_DEQUANTIZE = 6,
    ANEURALNETWORKS_EMBEDDING_LOOKUP = 7,
    ANEURALNETWORKS_FLOOR = 8,
    ANEURALNETWORKS_FULLY_CONNECTED = 9,
    ANEURALNETWORKS_HASHTABLE_LOOKUP = 10,
    ANEURALNETWORKS_L2_NORMALIZATION = 11,
    ANEURALNETWORKS_L2_POOL_2D = 12,
    ANEURALNETWORKS_LOCAL_RESPONSE_NORMALIZATION = 13,
    ANEURALNETWORKS_LOGISTIC = 14,
    ANEURALNETWORKS_LSH_PROJECTION = 15,
    ANEURALNETWORKS_LSTM = 16,
    ANEURALNETWORKS_MAX_POOL_2D = 17,
    ANEURALNETWORKS_MUL = 18,
    ANEURALNETWORKS_RELU = 19,
    ANEURALNETWORKS_RELU1 = 20,
    ANEURALNETWORKS_RELU6 = 21,
    ANEURALNETWORKS_RESHAPE = 22,
    ANEURALNETWORKS_RESIZE_BILINEAR = 23,
    ANEURALNETWORKS_RNN = 24,
    ANEURALNETWORKS_SOFTMAX = 25,
    ANEURALNETWORKS_SPACE_TO_DEPTH = 26,
    ANEURALNETWORKS_SVDF = 27,
    ANEURALNETWORKS_TANH = 28,
    /* Feature level 2. */
    ANEURALNETWORKS_BATCH_TO_SPACE_ND = 29,
    ANEURALNETWORKS_DIV = 30,
    ANEURALNETWORKS_MEAN = 31,
    ANEURALNETWORKS_PAD = 32,
    ANEURALNETWORKS_SPACE_TO_BATCH_ND = 33,
    ANEURALNETWORKS_SQUEEZE = 34,
    ANEURALNETWORKS_STRIDED_SLICE = 35,
    ANEURALNETWORKS_SUB = 36,
    ANEURALNETWORKS_TRANSPOSE = 37,
    /* Feature level 3. */
    ANEURALNETWORKS_ABS = 38,
    ANEURALNETWORKS_ARGMAX = 39,
    ANEURALNETWORKS_ARGMIN = 40,
    ANEURALNETWORKS_AXIS_ALIGNED_BBOX_TRANSFORM = 41,
    ANEURALNETWORKS_BIDIRECTIONAL_SEQUENCE_LSTM = 42,
    ANEURALNETWORKS_BIDIRECTIONAL_SEQUENCE_RNN = 43,
    ANEURALNETWORKS_BOX_WITH_NMS_LIMIT = 44,
    ANEURALNETWORKS_CAST = 45,
    ANEURALNETWORKS_CHANNEL_SHUFFLE = 46,
    ANEURALNETWORKS_DETECTION_POSTPROCESSING = 47,
    ANEURALNETWORKS_EQUAL = 48,
    ANEURALNETWORKS_EXP = 49,
    ANEURALNETWORKS_EXPAND_DIMS = 50,
    ANEURALNETWORKS_GATHER = 51,
    ANEURALNETWORKS_GENERATE_PROPOSALS = 52,
    ANEURALNETWORKS_GREATER = 53,
    ANEURALNETWORKS_GREATER_EQUAL = 54,
    ANEURALNETWORKS_GROUPED_CONV_2D = 55,
    ANEURALNETWORKS_HEATMAP_MAX_KEYPOINT = 56,
    ANEURALNETWORKS_INSTANCE_NORMALIZATION = 57,
    ANEURALNETWORKS_LESS = 58,
    ANEURALNETWORKS_LESS_EQUAL = 59,
    ANEURALNETWORKS_LOG = 60,
    ANEURALNETWORKS_LOGICAL_AND = 61,
    ANEURALNETWORKS_LOGICAL_NOT = 62,
    ANEURALNETWORKS_LOGICAL_OR = 63,
    ANEURALNETWORKS_LOG_SOFTMAX = 64,
    ANEURALNETWORKS_MAXIMUM = 65,
    ANEURALNETWORKS_MINIMUM = 66,
    ANEURALNETWORKS_NEG = 67,
    ANEURALNETWORKS_NOT_EQUAL = 68,
    ANEURALNETWORKS_PAD_V2 = 69,
    ANEURALNETWORKS_POW = 70,
    ANEURALNETWORKS_PRELU = 71,
    ANEURALNETWORKS_QUANTIZE = 72,
    ANEURALNETWORKS_QUANTIZED_16BIT_LSTM = 73,
    ANEURALNETWORKS_RANDOM_MULTINOMIAL = 74,
    ANEURALNETWORKS_REDUCE_ALL = 75,
    ANEURALNETWORKS_REDUCE_ANY = 76,
    ANEURALNETWORKS_REDUCE_MAX = 77,
    ANEURALNETWORKS_REDUCE_MIN = 78,
    ANEURALNETWORKS_REDUCE_PROD = 79,
    ANEURALNETWORKS_REDUCE_SUM = 80,
    ANEURALNETWORKS_ROI_ALIGN = 81,
    ANEURALNETWORKS_ROI_POOLING = 82,
    ANEURALNETWORKS_RSQRT = 83,
    ANEURALNETWORKS_SELECT = 84,
    ANEURALNETWORKS_SIN = 85,
    ANEURALNETWORKS_SLICE = 86,
    ANEURALNETWORKS_SPLIT = 87,
    ANEURALNETWORKS_SQRT = 88,
    ANEURALNETWORKS_TILE = 89,
    ANEURALNETWORKS_TOPK_V2 = 90,
    ANEURALNETWORKS_TRANSPOSE_CONV_2D = 91,
    ANEURALNETWORKS_UNIDIRECTIONAL_SEQUENCE_LSTM = 92,
    ANEURALNETWORKS_UNIDIRECTIONAL_SEQUENCE_RNN = 93,
    ANEURALNETWORKS_RESIZE_NEAREST_NEIGHBOR = 94,
    /* Feature level 4. */
    ANEURALNETWORKS_QUANTIZED_LSTM = 95,
    ANEURALNETWORKS_IF = 96,
    ANEURALNETWORKS_WHILE = 97,
    ANEURALNETWORKS_ELU = 98,
    ANEURALNETWORKS_HARD_SWISH = 99,
    ANEURALNETWORKS_FILL = 100,
    ANEURALNETWORKS_RANK = 101,
    /* Feature level 6. */
    ANEURALNETWORKS_BATCH_MATMUL = 102,
    ANEURALNETWORKS_PACK = 103,
    /* Feature level 7. */
    ANEURALNETWORKS_MIRROR_PAD = 104,
    ANEURALNETWORKS_REVERSE = 105,
} OperationCode;

/** Fused activation function types. */
typedef enum {
    ANEURALNETWORKS_FUSED_NONE = 0,
    ANEURALNETWORKS_FUSED_RELU = 1,
    ANEURALNETWORKS_FUSED_RELU1 = 2,
    ANEURALNETWORKS_FUSED_RELU6 = 3,
} FuseCode;

/** Implicit padding algorithms. */
typedef enum {
    ANEURALNETWORKS_PADDING_SAME = 1,
    ANEURALNETWORKS_PADDING_VALID = 2,
} PaddingCode;

/** Execution preferences. */
typedef enum {
    ANEURALNETWORKS_PREFER_LOW_POWER = 0,
    ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER = 1,
    ANEURALNETWORKS_PREFER_SUSTAINED_SPEED = 2,
} PreferenceCode;

/** Device types. */
typedef enum {
    ANEURALNETWORKS_DEVICE_UNKNOWN = 0,
    ANEURALNETWORKS_DEVICE_OTHER = 1,
    ANEURALNETWORKS_DEVICE_CPU = 2,
    ANEURALNETWORKS_DEVICE_GPU = 3,
    ANEURALNETWORKS_DEVICE_ACCELERATOR = 4,
} DeviceTypeCode;

/** NNAPI feature levels (levels 1 to 5 equal the Android API level that introduced them). */
typedef enum {
    ANEURALNETWORKS_FEATURE_LEVEL_1 = 27,
    ANEURALNETWORKS_FEATURE_LEVEL_2 = 28,
    ANEURALNETWORKS_FEATURE_LEVEL_3 = 29,
    ANEURALNETWORKS_FEATURE_LEVEL_4 = 30,
    ANEURALNETWORKS_FEATURE_LEVEL_5 = 31,
    ANEURALNETWORKS_FEATURE_LEVEL_6 = 1000006,
    ANEURALNETWORKS_FEATURE_LEVEL_7 = 1000007,
    ANEURALNETWORKS_FEATURE_LEVEL_8 = 1000008,
} FeatureLevelCode;

/** Result codes. Any value other than ANEURALNETWORKS_NO_ERROR is a failure. */
typedef enum {
    ANEURALNETWORKS_NO_ERROR = 0,
    ANEURALNETWORKS_OUT_OF_MEMORY = 1,
    ANEURALNETWORKS_INCOMPLETE = 2,
    ANEURALNETWORKS_UNEXPECTED_NULL = 3,          /**< a required pointer argument was NULL */
    ANEURALNETWORKS_BAD_DATA = 4,                 /**< invalid argument, model or request */
    ANEURALNETWORKS_OP_FAILED = 5,                /**< the execution or compilation failed */
    ANEURALNETWORKS_BAD_STATE = 6,                /**< the object is in the wrong state */
    ANEURALNETWORKS_UNMAPPABLE = 7,               /**< a file descriptor could not be mapped */
    ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE = 8, /**< an output buffer is too small */
    ANEURALNETWORKS_UNAVAILABLE_DEVICE = 9,
    ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT = 10,
    ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT = 11,
    ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT = 12,
    ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT = 13,
    ANEURALNETWORKS_DEAD_OBJECT = 14,
} ResultCode;

/** setOperandValue copies values of at most this many bytes; larger ones are referenced. */
enum { ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES = 128 };

/** Size in bytes of the token of ANeuralNetworksCompilation_setCaching. */
enum { ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN = 32 };

/** Durations reported by ANeuralNetworksExecution_getDuration, in nanoseconds. */
typedef enum {
    ANEURALNETWORKS_DURATION_ON_HARDWARE = 0,        /**< time on the device */
    ANEURALNETWORKS_DURATION_IN_DRIVER = 1,          /**< time in the driver, including the device */
    ANEURALNETWORKS_FENCED_DURATION_ON_HARDWARE = 2, /**< ON_HARDWARE after the dependencies signalled */
    ANEURALNETWORKS_FENCED_DURATION_IN_DRIVER = 3,   /**< IN_DRIVER after the dependencies signalled */
} DurationCode;

/** Relative execution priority. */
typedef enum {
    ANEURALNETWORKS_PRIORITY_LOW = 90,
    ANEURALNETWORKS_PRIORITY_MEDIUM = 100,
    ANEURALNETWORKS_PRIORITY_HIGH = 110,
    ANEURALNETWORKS_PRIORITY_DEFAULT = ANEURALNETWORKS_PRIORITY_MEDIUM,
} PriorityCode;

/** Shared memory: a mapped file descriptor or a memory allocated for given roles. */
typedef struct ANeuralNetworksMemory ANeuralNetworksMemory;

/** The description of a model: operands and operations; immutable once finished. */
typedef struct ANeuralNetworksModel ANeuralNetworksModel;

/** A model compiled for one or more devices; immutable once finished. */
typedef struct ANeuralNetworksCompilation ANeuralNetworksCompilation;

/** One application of a compilation to inputs and outputs. */
typedef struct ANeuralNetworksExecution ANeuralNetworksExecution;

/** Parameters of an ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL operand. */
typedef struct ANeuralNetworksSymmPerChannelQuantParams {
    /** The index of the channel dimension. */
    uint32_t channelDim;
    /** The size of the scale array; must equal dimensions[channelDim]. */
    uint32_t scaleCount;
    /** The scale of each channel, each greater than zero. */
    const float* scales;
} ANeuralNetworksSymmPerChannelQuantParams;

/** A context for a rapid sequence of executions of one compilation. */
typedef struct ANeuralNetworksBurst ANeuralNetworksBurst;

/** The type of an operand: a scalar, or a tensor of possibly unspecified dimensions. */
typedef struct ANeuralNetworksOperandType {
    /** The data type, an OperandCode. */
    int32_t type;
    /** The number of dimensions (rank); 0 for scalars and for tensors of unknown rank. */
    uint32_t dimensionCount;
    /** The dimensions; 0 marks an unspecified dimension. NULL when dimensionCount is 0. */
    const uint32_t* dimensions;
    /** The quantization scale; 0 when not applicable. */
    float scale;
    /** The quantization zero point; 0 when not applicable. */
    int32_t zeroPoint;
} ANeuralNetworksOperandType;

/** An OperationCode (or an extension operation type), used by ANeuralNetworksModel_addOperation. */
typedef int32_t ANeuralNetworksOperationType;

/** Signalled when an execution completes. */
typedef struct ANeuralNetworksEvent ANeuralNetworksEvent;

/** A device that can run models. */
typedef struct ANeuralNetworksDevice ANeuralNetworksDevice;

/** The properties of a memory to be allocated for given roles of compilations. */
typedef struct ANeuralNetworksMemoryDesc ANeuralNetworksMemoryDesc;

#ifdef __cplusplus
}
#endif

#endif  // WEFT_ANDROID_NEURAL_NETWORKS_TYPES_H
