#!/usr/bin/python3
"""Writes a quantized network description for traces/networks/ (format: traces/README.md).

The network is defined by its layer structure, per-layer quantization parameters and integer
seeds: every weight, bias and input value is an integer drawn from splitmix64 (the same
generator weft implements in C++, driver/tool/network_weights.cpp), so the description stays
small and the model is bit-for-bit the same wherever it is rebuilt. Quantization parameters are
calibrated here, as post-training quantization does: the float network (dequantized weights) is
run on the deterministic input, each convolution's weight scale is set so its pre-activation
standard deviation is about 1 (batch norm folded into the weights), its bias centres it, and
each output scale covers the observed activation range.

    /usr/bin/python3 scripts/make_network.py mobilenet_v1 > traces/networks/mobilenet_v1_224_quant.json
"""
import json
import sys

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


def same_pads(size, k, s):
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return out, total // 2, total - total // 2


def conv_float(x, w, stride, depthwise):
    """x: HxWxC float, w: OxKhxKwxI (or 1xKhxKwxC for depthwise); SAME padding."""
    h, wd, c = x.shape
    kh, kw = w.shape[1], w.shape[2]
    oh, pt, pb = same_pads(h, kh, stride)
    ow, pl, pr = same_pads(wd, kw, stride)
    xp = np.pad(x, ((pt, pb), (pl, pr), (0, 0)))
    cols = np.empty((oh, ow, kh, kw, c))
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j, :] = xp[i:i + stride * oh:stride, j:j + stride * ow:stride, :]
    if depthwise:
        return np.einsum("hwijc,ijc->hwc", cols, w[0])
    return (cols.reshape(oh * ow, kh * kw * c) @ w.reshape(w.shape[0], -1).T).reshape(oh, ow, -1)


class Builder:
    def __init__(self, name, input_shape, seed):
        self.name = name
        self.seed = seed
        self.layers = []
        n = int(np.prod(input_shape))
        self.in_scale, self.in_zp = 1.0 / 128, 128  # an image in [-1, 1)
        q = input_q(seed, n).reshape(input_shape[1:])
        self.x = (q - self.in_zp) * self.in_scale
        self.input = {"shape": input_shape, "type": "TENSOR_QUANT8_ASYMM",
                      "scale": self.in_scale, "zeroPoint": self.in_zp, "seed": seed}
        self.next_seed = seed + 1

    def _seed(self):
        self.next_seed += 1
        return self.next_seed

    def conv(self, name, out_ch, k, stride, depthwise=False, activation="RELU6"):
        c = self.x.shape[2]
        shape = [1, k, k, c] if depthwise else [out_ch, k, k, c]
        wseed, bseed = self._seed(), self._seed()
        w_zp = 128
        wq = weights_q(wseed, int(np.prod(shape)), w_zp).reshape(shape)
        pre = conv_float(self.x, (wq - w_zp).astype(np.float64), stride, depthwise)
        w_scale = float(np.float32(1.0 / max(pre.std(), 1e-9)))
        pre *= w_scale
        bias_scale = self.in_scale * w_scale
        bound = max(1, int(0.5 / bias_scale))
        bq = bias_q(bseed, shape[3] if depthwise else out_ch, bound)
        y = pre + bq * bias_scale
        y = np.clip(y, 0.0, 6.0) if activation == "RELU6" else y
        out_scale, out_zp = self._output_quant(y, activation)
        self.layers.append({
            "name": name, "op": "DEPTHWISE_CONV_2D" if depthwise else "CONV_2D",
            "stride": stride, "padding": "SAME", "activation": activation,
            "weights": {"shape": shape, "seed": wseed, "scale": w_scale, "zeroPoint": w_zp},
            "bias": {"seed": bseed, "bound": bound},
            "output": {"scale": out_scale, "zeroPoint": out_zp}})
        self._advance(y, out_scale, out_zp)

    def avg_pool(self, name):
        h, w, _ = self.x.shape
        y = self.x.mean(axis=(0, 1), keepdims=True)
        self.layers.append({"name": name, "op": "AVERAGE_POOL_2D", "filter": [h, w], "stride": 1,
                            "padding": "VALID", "activation": "NONE",
                            "output": {"scale": self.in_scale, "zeroPoint": self.in_zp}})
        self._advance(y, self.in_scale, self.in_zp)

    def fully_connected(self, name, units):
        k = int(np.prod(self.x.shape))
        shape = [units, k]
        wseed, bseed = self._seed(), self._seed()
        w_zp = 128
        wq = weights_q(wseed, units * k, w_zp).reshape(shape)
        pre = self.x.reshape(1, k) @ (wq - w_zp).T.astype(np.float64)
        w_scale = float(np.float32(2.0 / max(pre.std(), 1e-9)))
        pre *= w_scale
        bias_scale = self.in_scale * w_scale
        bound = max(1, int(0.5 / bias_scale))
        y = pre + bias_q(bseed, units, bound) * bias_scale
        out_scale, out_zp = self._output_quant(y, "NONE")
        self.layers.append({"name": name, "op": "FULLY_CONNECTED", "activation": "NONE",
                            "weights": {"shape": shape, "seed": wseed, "scale": w_scale, "zeroPoint": w_zp},
                            "bias": {"seed": bseed, "bound": bound},
                            "output": {"scale": out_scale, "zeroPoint": out_zp}})
        self._advance(y.reshape(1, 1, units), out_scale, out_zp)

    def softmax(self, name):
        self.layers.append({"name": name, "op": "SOFTMAX", "beta": 1.0,
                            "output": {"scale": 1.0 / 256, "zeroPoint": 0}})

    def _output_quant(self, y, activation):
        lo, hi = min(float(y.min()), 0.0), max(float(y.max()), 1e-3)
        if activation == "RELU6":
            lo, hi = 0.0, min(hi, 6.0)
        scale = float(np.float32((hi - lo) / 255.0))
        zp = int(round(-lo / scale))
        return scale, min(max(zp, 0), 255)

    def _advance(self, y, scale, zp):
        q = np.clip(np.round(y / scale) + zp, 0, 255)
        self.x = (q - zp) * scale
        self.in_scale, self.in_zp = scale, zp

    def doc(self, description):
        return {"name": self.name, "description": description, "format": 1,
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
    return b.doc("MobileNet v1 (width 1.0, 224x224), uint8 quantized like TFLite's "
                 "mobilenet_v1_1.0_224_quant, with deterministic weights; logits as FULLY_CONNECTED.")


NETWORKS = {"mobilenet_v1": mobilenet_v1}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in NETWORKS:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(NETWORKS)}}}")
    json.dump(NETWORKS[sys.argv[1]](), sys.stdout, indent=1)
    sys.stdout.write("\n")
