/*
 * weft's NNAPI vendor extension, "org.weft.accel": what the systolic array computes that NNAPI's
 * own operations cannot express. Modeled on Android's example extension
 * (packages/modules/NeuralNetworks/extensions/example/fibonacci/FibonacciExtension.h).
 *
 * Using it (see driver/runtime/README.md, "Extensions"):
 *
 *   bool supported = false;
 *   ANeuralNetworksDevice_getExtensionSupport(device, WEFT_EXTENSION_NAME, &supported);
 *   int32_t accumulatorType = 0;
 *   ANeuralNetworksModel_getExtensionOperandType(model, WEFT_EXTENSION_NAME,
 *                                                WEFT_TENSOR_INT32_ACCUMULATOR, &accumulatorType);
 *   ANeuralNetworksOperationType matmul = 0;
 *   ANeuralNetworksModel_getExtensionOperationType(model, WEFT_EXTENSION_NAME, WEFT_MATMUL_INT32,
 *                                                  &matmul);
 *   ... ANeuralNetworksModel_addOperation(model, matmul, 2, inputs, 1, outputs);
 *
 * The types the model functions return are valid in that model only. As on Android, only
 * programs on the extension allowlist may add operands or operations of an extension: the file
 * /etc/weft/nnapi_extensions_app_allowlist, or the one WEFT_EXTENSIONS_ALLOWLIST names, lists
 * the allowed executables, one absolute path a line; any other program gets
 * ANEURALNETWORKS_BAD_DATA from ANeuralNetworksModel_addOperand / _addOperation.
 */
#ifndef WEFT_WEFT_EXTENSION_H
#define WEFT_WEFT_EXTENSION_H

#include <stdint.h>

static const char WEFT_EXTENSION_NAME[] = "org.weft.accel";

/**
 * Extension data of a {@link WEFT_TENSOR_INT32_ACCUMULATOR} operand
 * (ANeuralNetworksModel_setOperandExtensionData, exactly sizeof(WeftAccumulatorParams) bytes).
 */
typedef struct WeftAccumulatorParams {
  /** The real value of one accumulator unit: real_value = integer_value * scale. Finite, > 0. */
  float scale;
} WeftAccumulatorParams;

enum {
  /**
   * A tensor of 32-bit signed integers holding raw GEMM accumulators: sums of products of
   * zero-point-corrected 8-bit values, before any requantization. With
   * {@link WeftAccumulatorParams} attached, real_value = integer_value * scale; without, the
   * values are plain integers. Scale and zero point of the operand type must be 0.
   */
  WEFT_TENSOR_INT32_ACCUMULATOR = 0,
};

enum {
  /**
   * Matrix multiplication of 8-bit quantized matrices into 32-bit accumulators, with no
   * requantization: what the array computes before its post-processing (a GEMM whose STORE
   * writes the accumulators raw).
   *
   *   output[m][n] = sum over k of (lhs[m][k] - lhs.zeroPoint) * (rhs[n][k] - rhs.zeroPoint)
   *
   * Supported input types (each input independently):
   * - {@link ANEURALNETWORKS_TENSOR_QUANT8_ASYMM}
   * - {@link ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED}
   *
   * Supported output types:
   * - {@link ANEURALNETWORKS_TENSOR_INT32}: scale 0 or lhs.scale * rhs.scale, zero point 0.
   * - {@link WEFT_TENSOR_INT32_ACCUMULATOR}: its {@link WeftAccumulatorParams}, when attached,
   *   must give scale lhs.scale * rhs.scale.
   *
   * Inputs:
   * * 0: lhs, a 2-D tensor [M, K].
   * * 1: rhs, a 2-D tensor [N, K]: each row holds the K weights of one output column, the layout
   *      of ANEURALNETWORKS_FULLY_CONNECTED's weights. K at most 33025, so that no sum can
   *      leave the int32 range.
   *
   * Outputs:
   * * 0: the 2-D tensor [M, N] of accumulators.
   */
  WEFT_MATMUL_INT32 = 0,

  /**
   * Layer normalization over the last axis (torch.nn.LayerNorm, ONNX LayerNormalization with
   * axis -1): each row normalized to zero mean and unit variance, then scaled and shifted.
   *
   *   output[..., c] = (input[..., c] - mean) / sqrt(variance + epsilon) * gamma[c] + beta[c]
   *
   * with the row's mean and biased variance.
   *
   * Supported tensor types:
   * - {@link ANEURALNETWORKS_TENSOR_FLOAT32} and {@link ANEURALNETWORKS_TENSOR_FLOAT16}: gamma,
   *   beta and the output of the input's type, epsilon of FLOAT32 (FLOAT16 for float16 inputs).
   * - {@link ANEURALNETWORKS_TENSOR_QUANT8_ASYMM} and
   *   {@link ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED}: gamma and beta are
   *   {@link ANEURALNETWORKS_TENSOR_FLOAT32}, epsilon FLOAT32; the output has the input's type
   *   and its own scale and zero point. The row's statistics are exact integer sums of
   *   (q - zeroPoint); the result is rounded half away from zero and saturated. Rows of at most
   *   32768 elements.
   *
   * Inputs:
   * * 0: input, a tensor of rank 1 to 4; the last axis is normalized.
   * * 1: gamma, a 1-D tensor [C], C the last dimension of the input.
   * * 2: beta, a 1-D tensor [C].
   * * 3: epsilon, a scalar >= 0 added to the variance.
   *
   * Outputs:
   * * 0: a tensor of the input's shape.
   */
  WEFT_LAYER_NORM = 1,

  /**
   * The Gaussian error linear unit, element-wise:
   *   {@link WEFT_GELU_EXACT}: output = x / 2 * (1 + erf(x / sqrt(2)))
   *   {@link WEFT_GELU_TANH}:  output = x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
   *
   * Supported tensor types: {@link ANEURALNETWORKS_TENSOR_FLOAT32},
   * {@link ANEURALNETWORKS_TENSOR_FLOAT16} (computed in float32, rounded once),
   * {@link ANEURALNETWORKS_TENSOR_QUANT8_ASYMM} and
   * {@link ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED} (the input dequantized exactly, GELU in
   * double precision, requantized to the output's own scale and zero point rounding half away
   * from zero and saturating: a function of the input byte, which the accelerator evaluates
   * through a lookup table).
   *
   * Inputs:
   * * 0: input, a tensor of any rank.
   * * 1: optional, an INT32 scalar: {@link WEFT_GELU_EXACT} (the default) or {@link WEFT_GELU_TANH}.
   *
   * Outputs:
   * * 0: a tensor of the input's shape and type.
   */
  WEFT_GELU = 2,

  /**
   * An element-wise function of one value, chosen by input 1 among those NNAPI's 8-bit types do
   * not take (NNAPI's EXP, LOG, SQRT, ABS, SIN and NEG are float only, and DIV by a computed value
   * is a MUL by a reciprocal), so that a model quantized to 8 bits keeps them quantized:
   *   {@link WEFT_UNARY_EXP}: e^x            {@link WEFT_UNARY_LOG}: ln x
   *   {@link WEFT_UNARY_SQRT}: sqrt x        {@link WEFT_UNARY_ABS}: |x|
   *   {@link WEFT_UNARY_SIN}: sin x          {@link WEFT_UNARY_NEG}: -x
   *   {@link WEFT_UNARY_SOFTPLUS}: ln(1 + e^x)  {@link WEFT_UNARY_RECIPROCAL}: 1 / x
   *
   * Supported tensor types: {@link ANEURALNETWORKS_TENSOR_FLOAT32} and
   * {@link ANEURALNETWORKS_TENSOR_FLOAT16} (computed in double precision, rounded once),
   * {@link ANEURALNETWORKS_TENSOR_QUANT8_ASYMM} and
   * {@link ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED}: the input dequantized exactly, the
   * function in double precision, requantized to the output's own scale and zero point rounding
   * half away from zero and saturating, a result of +-infinity (ln 0, 1 / 0) saturating too and a NaN (the
   * logarithm or square root of a negative value) giving the output's zero point (the real value
   * 0); a function of the input byte, which the accelerator evaluates through a lookup table.
   *
   * Inputs:
   * * 0: input, a tensor of any rank.
   * * 1: an INT32 scalar, the function: one of the WEFT_UNARY_* values.
   *
   * Outputs:
   * * 0: a tensor of the input's shape and type.
   */
  WEFT_UNARY = 3,
};

/** The forms of {@link WEFT_GELU} (its input 1). */
enum {
  WEFT_GELU_EXACT = 0,
  WEFT_GELU_TANH = 1,
};

/** The functions of {@link WEFT_UNARY} (its input 1). */
enum {
  WEFT_UNARY_EXP = 0,
  WEFT_UNARY_LOG = 1,
  WEFT_UNARY_SQRT = 2,
  WEFT_UNARY_ABS = 3,
  WEFT_UNARY_SIN = 4,
  WEFT_UNARY_NEG = 5,
  WEFT_UNARY_SOFTPLUS = 6,
  WEFT_UNARY_RECIPROCAL = 7,
};

#endif /* WEFT_WEFT_EXTENSION_H */
