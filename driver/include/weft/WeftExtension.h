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
};

#endif /* WEFT_WEFT_EXTENSION_H */
