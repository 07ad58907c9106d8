#!/usr/bin/python3
"""Writes a quantized network description for traces/networks/ (format: traces/README.md).

The network is defined by its layer structure, per-layer quantization parameters and integer
seeds: every weight, bias and input value is an integer drawn from splitmix64 (the same
generator weft implements in C++, tools/weft/Network.cpp), so the description stays small and
the model is bit-for-bit the same wherever it is rebuilt. Quantization parameters are
calibrated here, as post-training quantization does: the float network (dequantized weights) is
run on the deterministic input, each convolution's weight scale is set so its pre-activation
standard deviation is about 1 (batch norm folded into the weights), its bias centres it, and
each output scale covers the observed activation range. Each layer's output statistics go to
stderr; a layer that uses too few levels or clamps too much fails the run and nothing is written.

    /usr/bin/python3 scripts/make_network.py mobilenet_v1 traces/networks/mobilenet_v1_224_quant.json
    /usr/bin/python3 scripts/make_network.py resnet18 traces/networks/resnet18_224_quant.json
    /usr/bin/python3 scripts/make_network.py squeezenet traces/networks/squeezenet1_1_224_quant.json
    /usr/bin/python3 scripts/make_network.py small_graph tests/tool/small_graph_net.json
"""
import json
import math
import sys
from collections import namedtuple

import numpy as np

MASK64 = (1 << 64) - 1


def splitmix64(seed, n):
    """n successive splitmix64 outputs for `seed` (uint64 numpy array)."""
    out = np.empty(n, dtype=np.uint64)
    state = seed & MASK64
    # Vectorised: state_i = seed + (i+1) * golden; then the finaliser.
    idx = np.arange(1, n + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(state) + idx * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    out[:] = z
    return out


def weights_q(seed, n, zero_point):
    """Centred integers: (sum of 4 random bytes - 510) >> 1, clamped to the uint8 range."""
    r = splitmix64(seed, n)
    s = sum(((r >> np.uint64(8 * k)) & np.uint64(0xFF)).astype(np.int64) for k in range(4))
    v = (s - 510) >> 1
    return np.clip(v + zero_point, 0, 255).astype(np.int64)


def bias_q(seed, n, bound):
    r = splitmix64(seed, n)
    return ((r >> np.uint64(16)) % np.uint64(2 * bound + 1)).astype(np.int64) - bound


def input_q(seed, n):
    return (splitmix64(seed, n) & np.uint64(0xFF)).astype(np.int64)


def as_int8(q):
    """Bytes 0..255 as a signed tensor reads them (two's complement)."""
    return ((q + 128) % 256) - 128


SIGNED = "TENSOR_QUANT8_ASYMM_SIGNED"


def pads_of(size, k, stride, padding, before, after):
    """Output size and (before, after) padding of one spatial dimension under NNAPI's rules."""
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + k - size, 0)
        return out, total // 2, total - total // 2
    if padding == "VALID":
        return (size - k) // stride + 1, 0, 0
    p0, p1 = padding[before], padding[after]
    return (size + p0 + p1 - k) // stride + 1, p0, p1


def windows(x, kh, kw, stride, padding, fill=0.0):
    """The kh x kw windows of x (HxWxC) as an (oh, ow, kh, kw, C) array; padding is SAME,
    VALID or explicit {"top", "bottom", "left", "right"}, padded with `fill`."""
    h, wd, c = x.shape
    oh, pt, pb = pads_of(h, kh, stride, padding, "top", "bottom")
    ow, pl, pr = pads_of(wd, kw, stride, padding, "left", "right")
    xp = np.pad(x, ((pt, pb), (pl, pr), (0, 0)), constant_values=fill)
    cols = np.empty((oh, ow, kh, kw, c))
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j, :] = xp[i:i + stride * oh:stride, j:j + stride * ow:stride, :]
    return cols


def conv_float(x, w, stride, depthwise, padding):
    """x: HxWxC float, w: OxKhxKwxI (or 1xKhxKwxC for depthwise)."""
    kh, kw = w.shape[1], w.shape[2]
    cols = windows(x, kh, kw, stride, padding)
    oh, ow = cols.shape[:2]
    if depthwise:
        return np.einsum("hwijc,ijc->hwc", cols, w[0])
    return (cols.reshape(oh * ow, kh * kw * x.shape[2]) @ w.reshape(w.shape[0], -1).T).reshape(oh, ow, -1)


def activate(y, activation):
    if activation == "RELU":
        return np.maximum(y, 0.0)
    if activation == "RELU1":
        return np.clip(y, -1.0, 1.0)
    if activation == "RELU6":
        return np.clip(y, 0.0, 6.0)
    return y


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


# A quantized tensor as the calibration sees it: dequantized values (HxWxC, batch left out),
# scale and zero point.
Tensor = namedtuple("Tensor", "x scale zp")

# What calibration must reach on every layer's quantized output (checked, and printed by
# print_statistics): enough distinct levels to carry information, and hardly any values
# pinned at the end of the range that the activation does not explain.
MIN_LEVELS = 16
MAX_CLIPPED = 0.01


def output_statistics(name, op, q, zp):
    q = q.astype(np.int64).ravel()
    at_zero = float(np.mean(q == zp))
    # A clamped value is at 0 or 255 without being the zero point (RELU's zeros are not).
    clipped = float(np.mean(((q == 0) | (q == 255)) & (q != zp)))
    return {"name": name, "op": op, "elements": int(q.size), "min": int(q.min()), "max": int(q.max()),
            "levels": int(np.unique(q).size), "atZeroPoint": at_zero, "clipped": clipped}


def print_statistics(stats, out):
    out.write(f"{'layer':<22} {'op':<17} {'min':>4} {'max':>4} {'levels':>6} {'at zp':>6} {'clipped':>7}\n")
    for s in stats:
        out.write(f"{s['name']:<22} {s['op']:<17} {s['min']:>4} {s['max']:>4} {s['levels']:>6} "
                  f"{100 * s['atZeroPoint']:>5.1f}% {100 * s['clipped']:>6.2f}%\n")


def calibration_problems(stats):
    problems = []
    for s in stats:
        n = s["elements"]
        # SOFTMAX's quantization is NNAPI's (1/256): over 1000 classes most probabilities round
        # to 0 in any network; what matters is that some do not.
        min_levels = 2 if s["op"] == "SOFTMAX" else 1 if s.get("fewLevels") else min(MIN_LEVELS, n // 2)
        if s["levels"] < min_levels:
            problems.append(f"{s['name']}: only {s['levels']} distinct output levels")
        # The calibrated minimum and maximum land on 0 and 255 themselves: two values a layer.
        if s["clipped"] * n > max(MAX_CLIPPED * n, 2):
            problems.append(f"{s['name']}: {100 * s['clipped']:.1f}% of the outputs clamped")
    return problems


class Builder:
    """Adds layers to a network description and runs the float network alongside, as the
    quantized one will compute it (each output rounded to its quantization), to calibrate.

    Every layer reads the previous one unless `inputs` names others ("input" is the network's
    input); a description that names any is written as format 2."""

    def __init__(self, name, input_shape, seed):
        self.name = name
        self.seed = seed
        self.layers = []
        self.stats = []
        n = int(np.prod(input_shape))
        in_scale, in_zp = 1.0 / 128, 128  # an image in [-1, 1)
        q = input_q(seed, n).reshape(input_shape[1:])
        self.tensors = {"input": Tensor((q - in_zp) * in_scale, in_scale, in_zp)}
        self.last = "input"
        self.input = {"shape": input_shape, "type": "TENSOR_QUANT8_ASYMM",
                      "scale": in_scale, "zeroPoint": in_zp, "seed": seed}
        self.next_seed = seed + 1

    def _seed(self):
        self.next_seed += 1
        return self.next_seed

    def _read(self, inputs):
        names = list(inputs) if inputs else [self.last]
        return names, [self.tensors[n] for n in names]

    def _add(self, layer, names, y, scale, zp):
        """Records the layer and rounds its float output y to the layer's quantization."""
        if names != [self.last]:
            head = {"name": layer["name"], "op": layer["op"], "inputs": names}
            layer = {**head, **layer}
        layer["output"] = {"scale": scale, "zeroPoint": zp}
        self.layers.append(layer)
        q = np.clip(np.round(y / scale) + zp, 0, 255)
        self.tensors[layer["name"]] = Tensor((q - zp) * scale, scale, zp)
        self.last = layer["name"]
        self.stats.append(output_statistics(layer["name"], layer["op"], q, zp))

    def conv(self, name, out_ch, k, stride, depthwise=False, activation="RELU6", padding="SAME",
             inputs=None, pre_std=1.0):
        """A convolution with batch norm folded in: the weight scale makes the pre-activation's
        standard deviation pre_std, the bias (within +-pre_std / 2) moves its centre."""
        names, (x,) = self._read(inputs)
        c = x.x.shape[2]
        shape = [1, k, k, c] if depthwise else [out_ch, k, k, c]
        wseed, bseed = self._seed(), self._seed()
        w_zp = 128
        wq = weights_q(wseed, int(np.prod(shape)), w_zp).reshape(shape)
        pre = conv_float(x.x, (wq - w_zp).astype(np.float64), stride, depthwise, padding)
        w_scale = float(np.float32(pre_std / max(pre.std(), 1e-9)))
        pre *= w_scale
        bias_scale = x.scale * w_scale
        bound = max(1, int(0.5 * pre_std / bias_scale))
        bq = bias_q(bseed, shape[3] if depthwise else out_ch, bound)
        y = activate(pre + bq * bias_scale, activation)
        self._add({"name": name, "op": "DEPTHWISE_CONV_2D" if depthwise else "CONV_2D",
                   "stride": stride, "padding": padding, "activation": activation,
                   "weights": {"shape": shape, "seed": wseed, "scale": w_scale, "zeroPoint": w_zp},
                   "bias": {"seed": bseed, "bound": bound}},
                  names, y, *self._output_quant(y, activation))

    def max_pool(self, name, k, stride, padding, inputs=None):
        names, (x,) = self._read(inputs)
        y = windows(x.x, k, k, stride, padding, fill=-np.inf).max(axis=(2, 3))
        self._add({"name": name, "op": "MAX_POOL_2D", "filter": [k, k], "stride": stride,
                   "padding": padding, "activation": "NONE"},
                  names, y, x.scale, x.zp)  # NNAPI: pools keep the quantization

    def avg_pool(self, name):
        """Global average pooling as an AVERAGE_POOL_2D over the whole input (tf-slim's form)."""
        names, (x,) = self._read(None)
        h, w, _ = x.x.shape
        self._add({"name": name, "op": "AVERAGE_POOL_2D", "filter": [h, w], "stride": 1,
                   "padding": "VALID", "activation": "NONE"},
                  names, x.x.mean(axis=(0, 1), keepdims=True), x.scale, x.zp)

    def mean(self, name, keep_dims):
        """Global average pooling as MEAN over height and width (NHWC axes 1 and 2), the form
        TFLite's converter gives Keras' GlobalAveragePooling2D and PyTorch's AdaptiveAvgPool2d(1)."""
        names, (x,) = self._read(None)
        y = x.x.mean(axis=(0, 1), keepdims=keep_dims)
        self._add({"name": name, "op": "MEAN", "axes": [1, 2], "keepDims": keep_dims},
                  names, y, x.scale, x.zp)  # NNAPI: MEAN keeps the quantization

    def reshape(self, name, shape):
        names, (x,) = self._read(None)
        self._add({"name": name, "op": "RESHAPE", "shape": shape},
                  names, x.x.reshape(shape[1:]), x.scale, x.zp)

    def add(self, name, inputs, activation):
        names, (a, b) = self._read(inputs)
        y = activate(a.x + b.x, activation)
        self._add({"name": name, "op": "ADD", "activation": activation},
                  names, y, *self._output_quant(y, activation))

    def concat(self, name, inputs):
        """Channel concatenation; each input keeps its own scale, the output covers them all."""
        names, ts = self._read(inputs)
        y = np.concatenate([t.x for t in ts], axis=-1)
        self._add({"name": name, "op": "CONCATENATION", "axis": 3}, names, y, *self._output_quant(y, "NONE"))

    def fully_connected(self, name, units):
        names, (x,) = self._read(None)
        k = int(np.prod(x.x.shape))
        shape = [units, k]
        wseed, bseed = self._seed(), self._seed()
        w_zp = 128
        wq = weights_q(wseed, units * k, w_zp).reshape(shape)
        pre = x.x.reshape(1, k) @ (wq - w_zp).T.astype(np.float64)
        w_scale = float(np.float32(2.0 / max(pre.std(), 1e-9)))
        pre *= w_scale
        bias_scale = x.scale * w_scale
        bound = max(1, int(0.5 / bias_scale))
        y = pre + bias_q(bseed, units, bound) * bias_scale
        self._add({"name": name, "op": "FULLY_CONNECTED", "activation": "NONE",
                   "weights": {"shape": shape, "seed": wseed, "scale": w_scale, "zeroPoint": w_zp},
                   "bias": {"seed": bseed, "bound": bound}},
                  names, y.reshape(1, 1, units), *self._output_quant(y, "NONE"))

    def softmax(self, name):
        names, (x,) = self._read(None)
        # NNAPI: a quant8 softmax's output is scale 1/256, zero point 0.
        self._add({"name": name, "op": "SOFTMAX", "beta": 1.0}, names, softmax(x.x), 1.0 / 256, 0)

    def _output_quant(self, y, activation):
        lo, hi = min(float(y.min()), 0.0), max(float(y.max()), 1e-3)
        if activation == "RELU6":
            lo, hi = 0.0, min(hi, 6.0)
        scale = float(np.float32((hi - lo) / 255.0))
        zp = int(round(-lo / scale))
        return scale, min(max(zp, 0), 255)

    def doc(self, description):
        graph = any("inputs" in layer for layer in self.layers)
        return {"name": self.name, "description": description, "format": 2 if graph else 1,
                "input": self.input, "layers": self.layers}


def mobilenet_v1():
    b = Builder("mobilenet_v1_224_quant", [1, 224, 224, 3], seed=20261122)
    b.conv("conv1", 32, 3, 2)
    plan = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2),
            (512, 1), (512, 1), (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)]
    for i, (ch, s) in enumerate(plan, start=1):
        b.conv(f"conv_dw_{i}", 0, 3, s, depthwise=True)
        b.conv(f"conv_pw_{i}", ch, 1, 1)
    b.avg_pool("avg_pool")
    b.fully_connected("logits", 1001)
    b.softmax("softmax")
    return b, ("MobileNet v1 (width 1.0, 224x224), uint8 quantized like TFLite's "
               "mobilenet_v1_1.0_224_quant, with deterministic weights; logits as FULLY_CONNECTED.")


def symmetric(p):
    """PyTorch's padding=p as NNAPI explicit padding (TFLite's SAME pads only bottom/right at
    stride 2, so a stride-2 layer needs it spelled out to match torchvision)."""
    return {"top": p, "bottom": p, "left": p, "right": p}


def resnet18():
    b = Builder("resnet18_224_quant", [1, 224, 224, 3], seed=20261201)
    b.conv("conv1", 64, 7, 2, activation="RELU", padding=symmetric(3))
    b.max_pool("maxpool", 3, 2, symmetric(1))
    channels = 64
    for stage, width in enumerate([64, 128, 256, 512], start=1):
        for block in range(2):
            stride = 2 if stage > 1 and block == 0 else 1
            prefix = f"layer{stage}.{block}"
            block_input = b.last
            # Stride 1: SAME is PyTorch's padding=1 for a 3x3 window.
            b.conv(f"{prefix}.conv1", width, 3, stride, activation="RELU",
                   padding=symmetric(1) if stride == 2 else "SAME")
            b.conv(f"{prefix}.conv2", width, 3, 1, activation="NONE")
            shortcut = block_input
            if stride != 1 or channels != width:
                b.conv(f"{prefix}.downsample", width, 1, stride, activation="NONE", padding="VALID",
                       inputs=[block_input])
                shortcut = b.last
            b.add(f"{prefix}.add", [f"{prefix}.conv2", shortcut], "RELU")
            channels = width
    b.mean("avgpool", keep_dims=False)
    b.fully_connected("fc", 1000)
    b.softmax("softmax")
    return b, ("ResNet-18 (torchvision's structure, 224x224), uint8 quantized with deterministic weights: "
               "batch norm folded into the convolutions, residual ADDs with fused RELU, global average "
               "pooling as MEAN, logits as FULLY_CONNECTED.")


def squeezenet():
    b = Builder("squeezenet1_1_224_quant", [1, 224, 224, 3], seed=20261301)
    b.conv("conv1", 64, 3, 2, activation="RELU", padding="VALID")
    b.max_pool("pool1", 3, 2, "VALID")

    def fire(n, squeeze, expand):
        b.conv(f"fire{n}/squeeze1x1", squeeze, 1, 1, activation="RELU")
        b.conv(f"fire{n}/expand1x1", expand, 1, 1, activation="RELU")
        b.conv(f"fire{n}/expand3x3", expand, 3, 1, activation="RELU", inputs=[f"fire{n}/squeeze1x1"])
        b.concat(f"fire{n}/concat", [f"fire{n}/expand1x1", f"fire{n}/expand3x3"])

    fire(2, 16, 64)
    fire(3, 16, 64)
    b.max_pool("pool3", 3, 2, "VALID")
    fire(4, 32, 128)
    fire(5, 32, 128)
    b.max_pool("pool5", 3, 2, "VALID")
    fire(6, 48, 192)
    fire(7, 48, 192)
    fire(8, 64, 256)
    fire(9, 64, 256)
    # The classifier: a trained one's class scores differ by several units; at pre_std 1 these
    # would differ by a fraction of one and the softmax would round to zero everywhere.
    b.conv("conv10", 1000, 1, 1, activation="RELU", pre_std=CLASSIFIER_STD)
    b.mean("pool10", keep_dims=True)
    b.reshape("flatten", [1, -1])
    b.softmax("softmax")
    return b, ("SqueezeNet 1.1 (torchvision's structure, 224x224), uint8 quantized with deterministic "
               "weights: fire modules whose 1x1 and 3x3 expands (each with its own scale) meet in a channel "
               "CONCATENATION, max pools, the 1x1 conv10 classifier with RELU, global average pooling as "
               "MEAN, flatten as RESHAPE.")


def small_graph():
    b = Builder("small_graph_net", [1, 28, 28, 16], seed=20261401)
    b.conv("stem", 32, 3, 2, activation="RELU", padding=symmetric(1))
    b.max_pool("pool", 3, 1, "SAME")
    b.conv("squeeze", 8, 1, 1, activation="RELU")
    b.conv("expand1x1", 16, 1, 1, activation="RELU")
    b.conv("expand3x3", 16, 3, 1, activation="RELU", inputs=["squeeze"])
    b.concat("concat", ["expand1x1", "expand3x3"])
    b.add("residual", ["concat", "pool"], "RELU")
    b.mean("gap", keep_dims=True)
    b.reshape("flatten", [1, -1])
    b.fully_connected("fc", 10)
    b.softmax("softmax")
    return b, ("A small graph for weft's tool tests (tests/tool): a fire module whose concatenation is "
               "added to the max pool it branched from, then MEAN, RESHAPE, FULLY_CONNECTED, SOFTMAX.")


class TransformerBuilder(Builder):
    """A Builder whose tensors keep every dimension (batch included), for the token-major
    layers of transformers: FULLY_CONNECTED over [tokens, features], RESHAPE/TRANSPOSE to split
    and merge heads, BATCH_MATMUL, SOFTMAX along rows, LAYER_NORM and GELU (org.weft.accel), and
    named extra inputs (format 3: a KV cache, a mask, position embeddings)."""

    def __init__(self, name, input_shape, seed, in_scale=1.0 / 32, in_zp=0):
        super().__init__(name, [1, 1], seed)
        n = int(np.prod(input_shape))
        q = as_int8(input_q(seed, n)).reshape(input_shape)
        self.tensors = {"input": Tensor((q - in_zp) * in_scale, in_scale, in_zp)}
        self.input = {"shape": list(input_shape), "type": SIGNED,
                      "scale": in_scale, "zeroPoint": in_zp, "seed": seed}
        self.extra_inputs = []

    # Every tensor is TENSOR_QUANT8_ASYMM_SIGNED (NNAPI's BATCH_MATMUL takes no unsigned quant8):
    # values in [-128, 127], zero points too; weights drawn as weft's drawSignedWeights draws them.
    def _add(self, layer, names, y, scale, zp):
        if names != [self.last]:
            layer = {"name": layer["name"], "op": layer["op"], "inputs": names, **layer}
        layer["output"] = {"scale": scale, "zeroPoint": zp}
        self.layers.append(layer)
        q = np.clip(np.round(y / scale) + zp, -128, 127)
        self.tensors[layer["name"]] = Tensor((q - zp) * scale, scale, zp)
        self.last = layer["name"]
        self.stats.append(output_statistics(layer["name"], layer["op"], q + 128, zp + 128))

    def _output_quant(self, y, activation):
        scale, zp = super()._output_quant(y, activation)
        return scale, zp - 128

    def _weights(self, seed, n):
        """Signed weights around zero point 0 (drawSignedWeights: drawn around 128, less 128)."""
        return weights_q(seed, n, 128) - 128

    def extra_input(self, name, shape, scale, zp, fill=None):
        """A network input of its own; its values drawn from a seed, or all `fill`."""
        entry = {"name": name, "shape": list(shape), "type": SIGNED, "scale": scale, "zeroPoint": zp}
        if fill is None:
            entry["seed"] = self._seed()
            q = as_int8(input_q(entry["seed"], int(np.prod(shape)))).reshape(shape)
        else:
            entry["fill"] = fill
            q = np.full(shape, fill, dtype=np.int64)
        self.extra_inputs.append(entry)
        self.tensors[name] = Tensor((q - zp) * scale, scale, zp)
        return name

    def fully_connected(self, name, units, inputs=None, pre_std=1.0):
        """y = x W^T + b over the rows of x ([..., K] read as [rows, K], NNAPI's rule); the weight
        scale makes y's standard deviation pre_std, the bias stays within +-pre_std / 2."""
        names, (x,) = self._read(inputs)
        k = x.x.shape[-1]
        rows = x.x.reshape(-1, k)
        wseed, bseed = self._seed(), self._seed()
        wq = self._weights(wseed, units * k).reshape(units, k)
        pre = rows @ wq.T.astype(np.float64)
        w_scale = float(np.float32(pre_std / max(pre.std(), 1e-9)))
        pre *= w_scale
        bias_scale = x.scale * w_scale
        bound = max(1, int(0.5 * pre_std / bias_scale))
        y = pre + bias_q(bseed, units, bound) * bias_scale
        self._add({"name": name, "op": "FULLY_CONNECTED", "activation": "NONE",
                   "weights": {"shape": [units, k], "seed": wseed, "scale": w_scale, "zeroPoint": 0},
                   "bias": {"seed": bseed, "bound": bound}},
                  names, y, *self._output_quant(y, "NONE"))

    def conv_patches(self, name, out_ch, patch, inputs=None, pre_std=1.0):
        """A patch embedding: a patch x patch CONV_2D at stride patch, VALID, over an NHWC image."""
        names, (x,) = self._read(inputs)
        n, h, w, c = x.x.shape
        gh, gw = h // patch, w // patch
        patches = x.x[:, :gh * patch, :gw * patch, :].reshape(n, gh, patch, gw, patch, c)
        patches = patches.transpose(0, 1, 3, 2, 4, 5).reshape(n * gh * gw, patch * patch * c)
        shape = [out_ch, patch, patch, c]
        wseed, bseed = self._seed(), self._seed()
        wq = self._weights(wseed, int(np.prod(shape))).reshape(out_ch, -1)
        pre = patches @ wq.T.astype(np.float64)
        w_scale = float(np.float32(pre_std / max(pre.std(), 1e-9)))
        pre *= w_scale
        bias_scale = x.scale * w_scale
        bound = max(1, int(0.5 * pre_std / bias_scale))
        y = (pre + bias_q(bseed, out_ch, bound) * bias_scale).reshape(n, gh, gw, out_ch)
        self._add({"name": name, "op": "CONV_2D", "stride": patch, "padding": "VALID", "activation": "NONE",
                   "weights": {"shape": shape, "seed": wseed, "scale": w_scale, "zeroPoint": 0},
                   "bias": {"seed": bseed, "bound": bound}},
                  names, y, *self._output_quant(y, "NONE"))

    def reshape(self, name, shape, inputs=None):
        names, (x,) = self._read(inputs)
        self._add({"name": name, "op": "RESHAPE", "shape": list(shape)}, names, x.x.reshape(shape), x.scale, x.zp)

    def transpose(self, name, perm, inputs=None):
        names, (x,) = self._read(inputs)
        self._add({"name": name, "op": "TRANSPOSE", "perm": list(perm)}, names, x.x.transpose(perm), x.scale, x.zp)

    def slice(self, name, begin, size, inputs=None):
        names, (x,) = self._read(inputs)
        box = tuple(slice(b, b + (x.x.shape[d] - b if n == -1 else n)) for d, (b, n) in enumerate(zip(begin, size)))
        self._add({"name": name, "op": "SLICE", "begin": list(begin), "size": list(size)}, names, x.x[box],
                  x.scale, x.zp)

    def concat(self, name, inputs, axis=-1):
        names, ts = self._read(inputs)
        y = np.concatenate([t.x for t in ts], axis=axis)
        self._add({"name": name, "op": "CONCATENATION", "axis": axis}, names, y, *self._output_quant(y, "NONE"))

    def batch_matmul(self, name, inputs, adj_y=False):
        names, (a, b) = self._read(inputs)
        y = a.x @ (np.swapaxes(b.x, -1, -2) if adj_y else b.x)
        layer = {"name": name, "op": "BATCH_MATMUL"}
        if adj_y:
            layer["adjY"] = True
        self._add(layer, names, y, *self._output_quant(y, "NONE"))

    def softmax(self, name, beta=1.0, inputs=None):
        names, (x,) = self._read(inputs)
        z = beta * x.x
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        self._add({"name": name, "op": "SOFTMAX", "beta": beta}, names, e / e.sum(axis=-1, keepdims=True),
                  1.0 / 256, -128)

    def layer_norm(self, name, inputs=None, epsilon=1e-5):
        """WEFT_LAYER_NORM over the last axis; gamma and beta drawn as weft draws them
        (tools/weft/LayerRules.cpp: std::mt19937 of affineSeed, three words an element)."""
        names, (x,) = self._read(inputs)
        seed = self._seed() & 0xFFFFFFFF
        width = x.x.shape[-1]
        bits = np.random.MT19937(0)
        bits._legacy_seeding(seed)
        words = bits.random_raw(3 * width).reshape(width, 3)
        unit = lambda w: (w.astype(np.float32) / np.float32(4294967296.0)).astype(np.float64)
        magnitude = 0.5 + unit(words[:, 0])
        gamma = np.where(words[:, 1] % 8 == 0, -magnitude, magnitude)
        beta = unit(words[:, 2]) - 0.5
        mean = x.x.mean(axis=-1, keepdims=True)
        var = x.x.var(axis=-1, keepdims=True)
        y = (x.x - mean) / np.sqrt(var + epsilon) * gamma + beta
        self._add({"name": name, "op": "LAYER_NORM", "epsilon": epsilon, "affineSeed": seed},
                  names, y, *self._output_quant(y, "NONE"))

    def gelu(self, name, approximate="none", inputs=None):
        names, (x,) = self._read(inputs)
        if approximate == "tanh":
            y = 0.5 * x.x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x.x + 0.044715 * x.x ** 3)))
        else:
            y = 0.5 * x.x * (1 + np.vectorize(math.erf)(x.x / np.sqrt(2)))
        layer = {"name": name, "op": "GELU"}
        if approximate != "none":
            layer["approximate"] = approximate
        # GELU's minimum (-0.17) is where many outputs gather: a level below it keeps them off the
        # range's end (they are not clamped, and the statistics should not say so).
        floor = y.min() - (y.max() - y.min()) / 254
        self._add(layer, names, y, *self._output_quant(np.append(y.ravel(), floor), "NONE"))

    def tanh(self, name, inputs=None):
        names, (x,) = self._read(inputs)
        self._add({"name": name, "op": "TANH"}, names, np.tanh(x.x), 1.0 / 128, 0)

    def attention(self, prefix, x, tokens, width, heads, mask=None, past=None):
        """Multi-head self-attention of `x` ([tokens, width]): Q, K, V projections, heads split by
        RESHAPE and TRANSPOSE, Q.K^T as BATCH_MATMUL with adjY, an additive mask, SOFTMAX with
        beta 1/sqrt(head width), the context merged back and projected. With `past` (a decode
        step: one token, past = (key input, value input, cached tokens)) one fused projection is
        sliced in three (GPT-2's c_attn) and the token attends to the cache and to itself."""
        d = width // heads
        split = [1, tokens, heads, d]
        if past is not None:
            return self._decode_attention(prefix, x, width, heads, mask, past)
        for part, std in (("query", 2.0), ("key", 2.0), ("value", 1.0)):
            self.fully_connected(f"{prefix}.{part}", width, inputs=[x], pre_std=std)
            self.reshape(f"{prefix}.{part}.split", split)
            self.transpose(f"{prefix}.{part}.heads", [0, 2, 1, 3])
        q, k, v = (f"{prefix}.{p}.heads" for p in ("query", "key", "value"))
        self.batch_matmul(f"{prefix}.scores", [q, k], adj_y=True)
        scores = f"{prefix}.scores"
        if mask is not None:
            self.add(f"{prefix}.masked", [scores, mask], "NONE")
            scores = f"{prefix}.masked"
        self.softmax(f"{prefix}.probs", beta=1.0 / math.sqrt(d), inputs=[scores])
        self.batch_matmul(f"{prefix}.context", [f"{prefix}.probs", v])
        self.transpose(f"{prefix}.context.tokens", [0, 2, 1, 3])
        self.reshape(f"{prefix}.context.merged", [tokens, width])
        return self._output_projection(prefix, width)

    def _output_projection(self, prefix, width):
        # Random weights mix tokens into one another layer after layer (attention averages them);
        # a trained network keeps them apart. An output smaller than the residual it joins keeps
        # each token's own part, so that the twelfth layer's attention still has rows to tell apart.
        self.fully_connected(f"{prefix}.output", width, pre_std=0.5)
        return f"{prefix}.output"

    def _decode_attention(self, prefix, x, width, heads, mask, past):
        """One new token against a KV cache given as inputs [1, heads, cached, d]. The new K and V
        rows are outputs (the app appends them to its cache; NNAPI has no in-place update, and a
        CONCATENATION would copy the whole cache every step): scores against the cache and against
        the token itself meet in one row for the mask and the softmax, which is then split again
        for the two weighted sums."""
        d = width // heads
        key_input, value_input, cached = past
        self.fully_connected(f"{prefix}.c_attn", 3 * width, inputs=[x], pre_std=2.0)
        for i, part in enumerate(("query", "key", "value")):
            self.slice(f"{prefix}.{part}", [0, i * width], [1, width], inputs=[f"{prefix}.c_attn"])
            # One token: [1, width] is [1, heads, 1, d] without a transpose.
            self.reshape(f"{prefix}.{part}.heads", [1, heads, 1, d])
        q, k, v = (f"{prefix}.{p}.heads" for p in ("query", "key", "value"))
        for name, new in ((key_input, k), (value_input, v)):
            t = self.tensors[new]  # the cache holds earlier steps' rows: their quantization
            self.extra_input(name, [1, heads, cached, d], t.scale, t.zp)
        self.batch_matmul(f"{prefix}.scores.past", [q, key_input], adj_y=True)
        self.batch_matmul(f"{prefix}.scores.new", [q, k], adj_y=True)
        self.concat(f"{prefix}.scores", [f"{prefix}.scores.past", f"{prefix}.scores.new"], axis=3)
        self.add(f"{prefix}.masked", [f"{prefix}.scores", mask], "NONE")
        self.softmax(f"{prefix}.probs", beta=1.0 / math.sqrt(d))
        self.slice(f"{prefix}.probs.past", [0, 0, 0, 0], [1, heads, 1, cached], inputs=[f"{prefix}.probs"])
        self.slice(f"{prefix}.probs.new", [0, 0, 0, cached], [1, heads, 1, 1], inputs=[f"{prefix}.probs"])
        self.batch_matmul(f"{prefix}.context.past", [f"{prefix}.probs.past", value_input])
        self.mul(f"{prefix}.context.new", [f"{prefix}.probs.new", v])
        # The token's own weight is one of 513 softmax outputs a head (about 1/513, a level or
        # two of 1/256): these 12 values and their products may rightly take a single level.
        for name in (f"{prefix}.probs.new", f"{prefix}.context.new"):
            next(st for st in self.stats if st["name"] == name)["fewLevels"] = True
        self.add(f"{prefix}.context", [f"{prefix}.context.past", f"{prefix}.context.new"], "NONE")
        self.reshape(f"{prefix}.context.merged", [1, width])
        return self._output_projection(prefix, width)

    def mul(self, name, inputs):
        names, (a, b) = self._read(inputs)
        y = a.x * b.x
        self._add({"name": name, "op": "MUL", "activation": "NONE"}, names, y, *self._output_quant(y, "NONE"))

    def pre_norm_layer(self, p, x, attention_name, approximate, attention, width, hidden):
        """A pre-norm encoder or decoder layer (ViT, GPT-2): x + attention(ln_1(x)), then that plus
        mlp(ln_2(it)); `attention(prefix, input)` adds the attention layers. Returns the output."""
        self.layer_norm(f"{p}.ln_1", inputs=[x])
        attn = attention(f"{p}.{attention_name}", f"{p}.ln_1")
        self.add(f"{p}.{attention_name}.residual", [attn, x], "NONE")
        x = self.last
        self.layer_norm(f"{p}.ln_2", inputs=[x])
        ffn = self.mlp(f"{p}.mlp", f"{p}.ln_2", width, hidden, approximate)
        self.add(f"{p}.mlp.residual", [ffn, x], "NONE")
        return self.last

    def mlp(self, prefix, x, width, hidden, approximate):
        self.fully_connected(f"{prefix}.fc1", hidden, inputs=[x])
        self.gelu(f"{prefix}.gelu", approximate)
        self.fully_connected(f"{prefix}.fc2", width)
        return f"{prefix}.fc2"

    def doc(self, description):
        d = super().doc(description)
        d["format"] = 3  # a signed input, and extraInputs
        if self.extra_inputs:
            d = {**{k: v for k, v in d.items() if k != "layers"}, "extraInputs": self.extra_inputs,
                 "layers": d["layers"]}
        return d


def bert_base():
    """BERT-base's encoder (post-norm) over 128 tokens, from the embeddings' sum on."""
    tokens, width, heads, hidden = 128, 768, 12, 3072
    b = TransformerBuilder("bert_base_seq128_quant", [tokens, width], seed=20261501)
    b.layer_norm("embeddings.LayerNorm", inputs=["input"])
    x = "embeddings.LayerNorm"
    for i in range(12):
        p = f"encoder.layer.{i}"
        attn = b.attention(f"{p}.attention", x, tokens, width, heads)
        b.add(f"{p}.attention.residual", [attn, x], "NONE")
        b.layer_norm(f"{p}.attention.LayerNorm")
        x = f"{p}.attention.LayerNorm"
        ffn = b.mlp(f"{p}.ffn", x, width, hidden, "none")
        b.add(f"{p}.ffn.residual", [ffn, x], "NONE")
        b.layer_norm(f"{p}.output.LayerNorm")
        x = f"{p}.output.LayerNorm"
    b.slice("pooler.first_token", [0, 0], [1, width], inputs=[x])
    b.fully_connected("pooler.dense", width, pre_std=0.8)  # tanh saturating on under 1 %
    b.tanh("pooler.activation")
    return b, ("BERT-base encoder (12 layers, 768 wide, 12 heads, feed-forward 3072, post-norm) over a "
               "sequence of 128 tokens, int8 quantized (TENSOR_QUANT8_ASYMM_SIGNED) with deterministic weights, from the embeddings' sum "
               "(the input) through the pooler: per layer Q, K, V as FULLY_CONNECTED over [128, 768], heads split "
               "by RESHAPE and TRANSPOSE, Q.K^T as BATCH_MATMUL (adjY), SOFTMAX (beta 1/8), attention.V, heads "
               "merged, the output projection, residual ADD, LAYER_NORM, the feed-forward with the exact GELU, "
               "ADD, LAYER_NORM.")


def vit_b16():
    """torchvision's vit_b_16 at 224x224 (pre-norm), its class token and position embeddings inputs."""
    width, heads, hidden, patch = 768, 12, 3072, 16
    tokens = (224 // patch) ** 2 + 1
    b = TransformerBuilder("vit_b16_224_quant", [1, 224, 224, 3], seed=20261601, in_scale=1.0 / 128)
    b.conv_patches("conv_proj", width, patch, inputs=["input"])
    b.reshape("patches", [1, tokens - 1, width])
    cls = b.extra_input("class_token", [1, 1, width], 1.0 / 64, 0)
    pos = b.extra_input("pos_embedding", [1, tokens, width], 1.0 / 64, 0)
    b.concat("tokens", [cls, "patches"], axis=1)
    b.add("embedded", ["tokens", pos], "NONE")
    b.reshape("encoder.input", [tokens, width])
    x = "encoder.input"
    for i in range(12):
        x = b.pre_norm_layer(f"encoder.layers.encoder_layer_{i}", x, "self_attention", "none",
                             lambda p, y: b.attention(p, y, tokens, width, heads), width, hidden)
    b.layer_norm("encoder.ln", inputs=[x])
    b.slice("class_token_out", [0, 0], [1, width])
    b.fully_connected("heads.head", 1000, pre_std=CLASSIFIER_STD)
    return b, ("ViT-B/16 (torchvision's vit_b_16: 12 pre-norm layers, 768 wide, 12 heads, MLP 3072) at 224x224, "
               "int8 quantized (TENSOR_QUANT8_ASYMM_SIGNED) with deterministic weights: the 16x16 patch embedding as a stride-16 CONV_2D, the "
               "class token and position embeddings as inputs (CONCATENATION, ADD), 197 tokens through the encoder "
               "(LAYER_NORM, attention as in BERT, exact GELU), the final LAYER_NORM, the class token's SLICE and "
               "the 1000-class head.")


def gpt2_decode():
    """One decode step of GPT-2 small (pre-norm): one new token against a KV cache of 512."""
    width, heads, hidden, past, vocab = 768, 12, 3072, 512, 50257
    b = TransformerBuilder("gpt2_small_decode_past512_quant", [1, width], seed=20261701)
    # The additive causal mask over the 513 positions: the new token sees every one, so all hold
    # the zero point (0.0); a position hidden (a padded cache) would hold -128, -127.5 before the softmax.
    mask = b.extra_input("attention_mask", [1, 1, 1, past + 1], 0.5, 127, fill=127)
    x = "input"
    for i in range(12):
        x = b.pre_norm_layer(f"h.{i}", x, "attn", "tanh",
                             lambda p, y, i=i: b.attention(p, y, 1, width, heads, mask=mask,
                                                           past=(f"h.{i}.past_key", f"h.{i}.past_value", past)),
                             width, hidden)
    b.layer_norm("ln_f", inputs=[x])
    b.fully_connected("lm_head", vocab, pre_std=CLASSIFIER_STD)
    return b, ("One decode step of GPT-2 small (12 pre-norm layers, 768 wide, 12 heads, MLP 3072 with the tanh "
               "GELU, vocabulary 50257), int8 quantized (TENSOR_QUANT8_ASYMM_SIGNED) with deterministic weights: the new token's embedding (the "
               "input) against a KV cache of 512 past tokens per layer (inputs h.N.past_key and h.N.past_value, "
               "[1, 12, 512, 64]) and a causal mask over the 513 positions (input attention_mask, additive). Per "
               "layer the fused Q/K/V projection (c_attn) sliced in three (the new K and V rows are outputs, for the "
               "app to append to its cache), Q.K^T against the cache and the token (BATCH_MATMUL, adjY) joined by "
               "CONCATENATION, the mask ADD, SOFTMAX (beta 1/8) split again by SLICE, attention.V over the cache "
               "(BATCH_MATMUL) plus the token's own (MUL), the output projection, the MLP; then ln_f and the logits "
               "(lm_head).")


def to_text(doc):
    """The description as JSON with one layer a line, so that a network reads as a list."""
    fields = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in doc.items() if k != "layers"]
    layers = ",\n".join(f"  {json.dumps(layer)}" for layer in doc["layers"])
    return "{\n" + ",\n".join(fields) + ',\n "layers": [\n' + layers + "\n ]\n}\n"


# SqueezeNet's conv10 is its classifier, and its class scores are what the softmax sees after the
# global average. A trained classifier's scores differ by several units; at a pre-activation
# spread of 1 these differ by about one, and the 1000-way softmax's largest output is 4/256
# (5 levels). At 4 it peaks like a trained one's (87/256, 12 levels).
CLASSIFIER_STD = 4.0

NETWORKS = {"mobilenet_v1": mobilenet_v1, "resnet18": resnet18, "squeezenet": squeezenet,
            "small_graph": small_graph, "bert_base": bert_base, "vit_b16": vit_b16, "gpt2_decode": gpt2_decode}

if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in NETWORKS:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(NETWORKS)}}} [output.json]")
    builder, description = NETWORKS[sys.argv[1]]()
    print_statistics(builder.stats, sys.stderr)
    problems = calibration_problems(builder.stats)
    if problems:
        sys.exit("calibration failed, nothing written:\n  " + "\n  ".join(problems))
    text = to_text(builder.doc(description))
    if len(sys.argv) == 3:
        with open(sys.argv[2], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
