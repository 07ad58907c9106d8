#!/usr/bin/env python3
"""Quantized ONNX models through `weft run`, checked against their float semantics.

Builds small CNN-like models (random shapes and weights from --seed) in the two forms users bring:
  qdq        QuantizeLinear/DequantizeLinear around float operators (ONNX Runtime's quantizer's
             form): per-channel int8 weights, int32 biases, uint8 or int8 activations
  qoperator  QLinearConv / QLinearMatMul carrying their quantization
runs each with `weft run` (the accelerator against the CPU reference), and checks that
  - the run passes its reference check (exit 0);
  - every NNAPI operation is quantized: no DEQUANTIZE/QUANTIZE except at the float input and
    output, and every layer but those two ran on the accelerator (the report's rows);
  - the saved output is within a few quantization steps of the model's float semantics computed
    here with numpy (dequantize, float operator, quantize: what ONNX defines).

  scripts/onnx_quantized_check.py --weft build/default/weft [--models 6] [--seed 1]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


# The operations that compute and that the accelerator runs quantized; a RESHAPE of an NCHW
# image (Flatten) may stay on the CPU, where the accelerator's layouts cannot take it.
COMPUTE = {"CONV_2D", "DEPTHWISE_CONV_2D", "ADD", "MAX_POOL_2D", "FULLY_CONNECTED"}
FLOAT_ONLY = {"RELU", "LOGISTIC", "SOFTMAX", "MUL", "SUB"}


def quantize(x, scale, zp, dtype):
    info = np.iinfo(dtype)
    q = np.rint(x.astype(np.float32) / np.float32(scale)) + zp
    return np.clip(q, info.min, info.max).astype(dtype)


def dequantize(q, scale, zp):
    return ((q.astype(np.int64) - zp) * np.float32(scale)).astype(np.float32)


def conv2d(x, w, b, stride, pad, group):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, o, oh, ow), np.float64)
    per = o // group
    for oc in range(o):
        g = oc // per
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg, i * stride:i * stride + kh, j * stride:j * stride + kw]
                y[:, oc, i, j] = np.tensordot(patch, w[oc], axes=([1, 2, 3], [0, 1, 2]))
    return (y + b.reshape(1, -1, 1, 1)).astype(np.float32)


def maxpool2(x):
    n, c, h, w = x.shape
    return x[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


class Builder:
    """A QDQ model with its float semantics computed alongside."""

    def __init__(self, rng, act_type):
        self.rng, self.nodes, self.inits, self.count = rng, [], [], 0
        self.act = np.uint8 if act_type == "uint8" else np.int8
        self.act_proto = TensorProto.UINT8 if act_type == "uint8" else TensorProto.INT8

    def name(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def init(self, base, array):
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(array, n))
        return n

    def act_params(self, value):
        lo, hi = min(float(value.min()), 0.0), max(float(value.max()), 0.0)
        info = np.iinfo(self.act)
        scale = max((hi - lo) / 255.0, 1e-6)
        zp = int(np.clip(np.rint(info.min - lo / scale), info.min, info.max))
        return np.float32(scale), zp

    def qdq(self, name, value, params=None):
        """Q then DQ of a float activation, with new parameters fitted to `value` or the `params`
        of another QDQ pair: the DQ output's name, its float value and the parameters."""
        if params is None:
            scale, zp = self.act_params(value)
            params = (scale, zp, self.init("scale", np.array(scale, np.float32)),
                      self.init("zp", np.array(zp, self.act)))
        scale, zp, s, z = params
        q, d = self.name("q"), self.name("dq")
        self.nodes.append(helper.make_node("QuantizeLinear", [name, s, z], [q], name=self.name("Quantize")))
        self.nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [d], name=self.name("Dequantize")))
        return d, dequantize(quantize(value, scale, zp, self.act), scale, zp), params

    def weights(self, w, axis):
        """Per-channel symmetric int8 weights: the DQ output's name and the dequantized weights."""
        amax = np.maximum(np.abs(w).max(axis=tuple(i for i in range(w.ndim) if i != axis)), 1e-6)
        scale = (amax / 127.0).astype(np.float32)
        shape = [1] * w.ndim
        shape[axis] = -1
        q = np.clip(np.rint(w / scale.reshape(shape)), -127, 127).astype(np.int8)
        qn = self.init("w", q)
        s = self.init("w_scale", scale)
        z = self.init("w_zp", np.zeros(scale.shape, np.int8))
        d = self.name("w_dq")
        self.nodes.append(helper.make_node("DequantizeLinear", [qn, s, z], [d], axis=axis, name=self.name("DequantizeW")))
        return d, (q.astype(np.float32) * scale.reshape(shape)).astype(np.float32), scale

    def bias(self, b, in_scale, w_scale):
        scale = (np.float32(in_scale) * w_scale).astype(np.float32)
        q = np.rint(b / scale).astype(np.int32)
        qn, s = self.init("b", q), self.init("b_scale", scale)
        z = self.init("b_zp", np.zeros(scale.shape, np.int32))
        d = self.name("b_dq")
        self.nodes.append(helper.make_node("DequantizeLinear", [qn, s, z], [d], axis=0, name=self.name("DequantizeB")))
        return d, (q.astype(np.float32) * scale).astype(np.float32)

    def conv(self, x, xv, x_params, out_c, k, stride, group, relu):
        x_scale = x_params[0]
        in_c = xv.shape[1]
        w = self.rng.normal(0, 1.0 / np.sqrt(in_c // group * k * k), (out_c, in_c // group, k, k)).astype(np.float32)
        b = self.rng.normal(0, 0.1, out_c).astype(np.float32)
        wn, wv, ws = self.weights(w, 0)
        bn, bv = self.bias(b, x_scale, ws)
        y = self.name("conv")
        self.nodes.append(helper.make_node("Conv", [x, wn, bn], [y], kernel_shape=[k, k], strides=[stride, stride],
                                           pads=[k // 2] * 4, group=group, name=self.name("Conv")))
        yv = conv2d(xv, wv, bv, stride, k // 2, group)
        if relu:
            r = self.name("relu")
            self.nodes.append(helper.make_node("Relu", [y], [r], name=self.name("Relu")))
            y, yv = r, np.maximum(yv, 0)
        return self.qdq(y, yv)


def build(seed, form, act_type):
    rng = np.random.default_rng(seed)
    b = Builder(rng, act_type)
    c, h = int(rng.integers(2, 9)), int(rng.integers(6, 15))
    x = rng.uniform(-1, 1, (1, c, h, h)).astype(np.float32)
    t, tv, tp = b.qdq("x", x)
    t, tv, tp = b.conv(t, tv, tp, int(rng.integers(4, 17)), 3, 1, 1, True)
    skip, skipv = t, tv
    t, tv, tp = b.conv(t, tv, tp, tv.shape[1], 3, 1, tv.shape[1], True)  # depthwise
    a = b.name("add")
    b.nodes.append(helper.make_node("Add", [t, skip], [a], name=b.name("Add")))
    t, tv, tp = b.qdq(a, tv + skipv)
    # MaxPool and Flatten keep their input's quantization (as ONNX Runtime's quantizer writes them).
    m = b.name("pool")
    b.nodes.append(helper.make_node("MaxPool", [t], [m], kernel_shape=[2, 2], strides=[2, 2], name=b.name("MaxPool")))
    t, tv, tp = b.qdq(m, maxpool2(tv), tp)
    f = b.name("flat")
    b.nodes.append(helper.make_node("Flatten", [t], [f], axis=1, name=b.name("Flatten")))
    t, tv, tp = b.qdq(f, tv.reshape(1, -1), tp)
    classes = int(rng.integers(3, 11))
    w = rng.normal(0, 1.0 / np.sqrt(tv.shape[1]), (classes, tv.shape[1])).astype(np.float32)
    wn, wv, ws = b.weights(w, 0)
    bn, bv = b.bias(rng.normal(0, 0.1, classes).astype(np.float32), tp[0], ws)
    g = b.name("gemm")
    b.nodes.append(helper.make_node("Gemm", [t, wn, bn], [g], transB=1, name=b.name("Gemm")))
    out, outv, outp = b.qdq(g, tv @ wv.T + bv)
    b.nodes.append(helper.make_node("Identity", [out], ["y"], name="output"))
    graph = helper.make_graph(b.nodes, f"quantized_{seed}",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(outv.shape))], b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    if form == "qoperator":
        model = to_qoperator(model)
    onnx.checker.check_model(model)
    return model, x, outv, float(outp[0])


def to_qoperator(model):
    """QDQ Conv/Gemm groups rewritten as QLinearConv / QLinearMatMul + Add where ONNX has them."""
    g = model.graph
    producers = {o: n for n in g.node for o in n.output}
    readers = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    drop, new_nodes = set(), []
    for n in g.node:
        if n.op_type != "Conv":
            continue
        dq = [producers.get(i) for i in n.input]
        if any(d is None or d.op_type != "DequantizeLinear" for d in dq[:2]):
            continue
        out = readers[n.output[0]]
        relu = out[0] if len(out) == 1 and out[0].op_type == "Relu" else None
        after = readers[(relu or n).output[0]]
        if len(after) != 1 or after[0].op_type != "QuantizeLinear":
            continue
        q = after[0]
        if relu is not None:
            # A Relu before a quantization whose range starts at 0 (zero point at the type's
            # lowest value) changes nothing: the quantizer drops it, as ONNX Runtime's does.
            zp = numpy_helper.to_array(next(i for i in g.initializer if i.name == q.input[2]))
            if int(zp) != np.iinfo(zp.dtype).min:
                continue
            drop.add(id(relu))
        x_dq, w_dq, b_dq = dq[0], dq[1], dq[2]
        ins = [x_dq.input[0], x_dq.input[1], x_dq.input[2], w_dq.input[0], w_dq.input[1], w_dq.input[2],
               q.input[1], q.input[2]]
        if b_dq is not None:
            ins.append(b_dq.input[0])
        qc = helper.make_node("QLinearConv", ins, [q.output[0]], name=n.name + "_qlinear")
        qc.attribute.extend(n.attribute)
        new_nodes.append((n, qc))
        drop.update({id(n), id(q)})
    if not new_nodes:
        return model
    nodes = []
    replaced = {id(old): new for old, new in new_nodes}
    for n in g.node:
        if id(n) in replaced:
            nodes.append(replaced[id(n)])
        elif id(n) not in drop:
            nodes.append(n)
    del g.node[:]
    g.node.extend(nodes)
    return model


def check_one(weft, seed, form, act_type, work):
    model, x, expected, out_scale = build(seed, form, act_type)
    d = os.path.join(work, f"{form}_{act_type}_{seed}")
    os.makedirs(d, exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    np.save(os.path.join(d, "x.npy"), x)
    report = os.path.join(d, "report.json")
    cmd = [weft, "run", os.path.join(d, "model.onnx"), "--input", f"x={os.path.join(d, 'x.npy')}", "--quiet",
           "--json", report, "--csv", os.path.join(d, "report.csv"), "--save-outputs", os.path.join(d, "out")]
    env = dict(os.environ, WEFT_BACKEND=os.environ.get("WEFT_BACKEND", "approx"), WEFT_YOSYS="none")
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    problems = []
    if p.returncode != 0:
        return [f"weft run exited {p.returncode}: " + " | ".join(p.stdout.strip().splitlines()[-3:])]
    with open(report) as f:
        rows = json.load(f).get("layers", [])
    ops = [r["operation"] for r in rows]
    converts = [op for op in ops if op in ("QUANTIZE", "DEQUANTIZE")]
    if len(converts) != 2:
        problems.append(f"{len(converts)} QUANTIZE/DEQUANTIZE operations (expected 2: the float input and output)")
    floats = [op for op in ops if op in FLOAT_ONLY]
    if floats:
        problems.append(f"float operations between the quantized ones: {floats}")
    cpu = [r["operation"] for r in rows if r["device"] != "weft-accel" and r["operation"] in COMPUTE]
    if cpu:
        problems.append(f"computing operations not on the accelerator: {cpu}")
    y = np.load(os.path.join(d, "out", "y.npy"))
    err = float(np.abs(y - expected).max())
    if err > 4 * out_scale + 1e-6:
        problems.append(f"output {err:.4g} from the float semantics (quantization step {out_scale:.4g})")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weft", required=True)
    ap.add_argument("--models", type=int, default=4, help="models per form and activation type")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="keep the models and reports in this directory")
    args = ap.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="weft_onnx_quantized_")
    failures = 0
    for form in ("qdq", "qoperator"):
        for act in ("uint8", "int8"):
            for k in range(args.models):
                seed = args.seed * 1000 + k
                problems = check_one(args.weft, seed, form, act, work)
                status = "ok" if not problems else "FAIL: " + "; ".join(problems)
                print(f"{form:9} {act:5} seed {seed}: {status}")
                failures += bool(problems)
    print(f"onnx quantized: {failures} failing of {2 * 2 * args.models}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
