"""weft's Python API (tools/python): runs, results, sweeps and errors, on small ONNX models built
here with onnx.helper and checked against numpy; PyTorch's export where torch is installed.

Run by ctest (python.api) with PYTHONPATH=<build>/python; alone:
    PYTHONPATH=build/default/python python3 -m unittest -v tests/python/test_api.py
"""

import os
import pathlib
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import weft

RNG = np.random.default_rng(7)


def conv_model(channels=8, size=12, classes=5, name="small_cnn"):
    """Conv 3x3 + Relu, global average pool, Flatten, Gemm: what a CNN classifier ends with."""
    w = RNG.normal(0, 0.3, (channels, 3, 3, 3)).astype(np.float32)
    b = RNG.normal(0, 0.1, channels).astype(np.float32)
    fw = RNG.normal(0, 0.3, (classes, channels)).astype(np.float32)
    fb = RNG.normal(0, 0.1, classes).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["image", "w", "b"], ["c"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu1"),
        helper.make_node("GlobalAveragePool", ["r"], ["p"], name="pool"),
        helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fw", "fb"], ["logits"], name="fc", transB=1),
    ]
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, classes])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b"), numpy_helper.from_array(fw, "fw"),
         numpy_helper.from_array(fb, "fb")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return model, (w, b, fw, fb)


def conv_reference(x, params):
    w, b, fw, fb = params
    n, c, h, wd = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, w.shape[0], h, wd), np.float64)
    for i in range(3):
        for j in range(3):
            out += np.einsum("nchw,oc->nohw", padded[:, :, i:i + h, j:j + wd], w[:, :, i, j])
    out = np.maximum(out + b[None, :, None, None], 0)
    pooled = out.mean(axis=(2, 3))
    return pooled @ fw.T + fb


def matmul_model():
    """Two inputs: y = relu(a @ b + c), c a constant."""
    c = RNG.normal(0, 1, (4, 6)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["m"], name="mm"),
         helper.make_node("Add", ["m", "c"], ["s"], name="add"),
         helper.make_node("Relu", ["s"], ["y"], name="relu")],
        "mm", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [4, 5]),
               helper.make_tensor_value_info("b", TensorProto.FLOAT, [5, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 6])], [numpy_helper.from_array(c, "c")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), c


class Configurations(unittest.TestCase):
    def test_named_configurations_and_parameters(self):
        self.assertIn("weft16", weft.configs())
        self.assertEqual(weft.config("weft8")["params"]["Rows"], 8)

    def test_unknown_configuration_is_a_weft_error(self):
        with self.assertRaisesRegex(weft.WeftError, "no-such-config"):
            weft.config("no-such-config")


class Inspect(unittest.TestCase):
    def test_nodes_and_operations(self):
        model, _ = conv_model()
        info = weft.inspect(model)
        self.assertEqual([i["name"] for i in info["inputs"]], ["image"])
        self.assertEqual(info["inputs"][0]["shape"], (1, 3, 12, 12))
        self.assertEqual(info["outputs"][0]["dtype"], "float32")
        self.assertIn("CONV_2D", info["operations"])
        conv = next(n for n in info["nodes"] if n["name"] == "conv1")
        self.assertEqual([info["operations"][k] for k in conv["operations"]], ["CONV_2D"])

    def test_not_onnx(self):
        with self.assertRaisesRegex(weft.WeftError, "not an ONNX model"):
            weft.inspect(b"\x01\x02 this is no protobuf")

    def test_unsupported_operator_names_the_node(self):
        graph = helper.make_graph([helper.make_node("Det", ["x"], ["y"], name="determinant")], "g",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        with self.assertRaisesRegex(weft.WeftError, "determinant"):
            weft.inspect(model)
        with self.assertRaisesRegex(weft.WeftError, "determinant"):
            weft.run(model)

    def test_missing_file(self):
        with self.assertRaisesRegex(weft.WeftError, "no such file"):
            weft.run("/nonexistent/model.onnx")


class RunFloat(unittest.TestCase):
    def test_outputs_match_numpy_and_the_report_is_read(self):
        model, params = conv_model()
        x = RNG.normal(0, 1, (1, 3, 12, 12)).astype(np.float32)
        r = weft.run(model, hw="weft8", backend="approx", inputs=x)
        self.assertTrue(r.passed)
        np.testing.assert_allclose(r.outputs["logits"], conv_reference(x, params), rtol=1e-4, atol=1e-5)
        names = [layer["name"] for layer in r.layers]
        self.assertEqual((names[0], names[-1]), ("conv1", "fc"))
        self.assertGreater(r.area_um2, 0)
        self.assertEqual(r.hw["config"], "weft8")
        self.assertIn("totalPj", r.energy)

    def test_inputs_by_name_position_and_float64(self):
        model, c = matmul_model()
        a = RNG.normal(0, 1, (4, 5))  # float64: cast to the model's float32
        b = RNG.normal(0, 1, (5, 6)).astype(np.float32)
        expected = np.maximum(a.astype(np.float32) @ b + c, 0)
        by_name = weft.run(model, hw="weft8", inputs={"b": b, "a": a})
        by_position = weft.run(model, hw="weft8", inputs=[a, b])
        np.testing.assert_allclose(by_name.outputs["y"], expected, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(by_name.outputs["y"], by_position.outputs["y"])

    def test_bad_inputs(self):
        model, _ = matmul_model()
        with self.assertRaisesRegex(weft.WeftError, "no input 'x'"):
            weft.run(model, inputs={"x": np.zeros((4, 5), np.float32)})
        with self.assertRaisesRegex(weft.WeftError, "2 inputs"):
            weft.run(model, inputs=np.zeros((4, 5), np.float32))
        with self.assertRaisesRegex(weft.WeftError, "input 'a' is float 3x5, the model takes float 4x5"):
            weft.run(model, inputs={"a": np.zeros((3, 5), np.float32), "b": np.zeros((5, 6), np.float32)})

    def test_bad_options(self):
        model, _ = matmul_model()
        with self.assertRaisesRegex(weft.WeftError, "backend"):
            weft.run(model, backend="fpga")
        with self.assertRaisesRegex(weft.WeftError, "int8"):
            weft.run(model, quantize="int4")
        with self.assertRaisesRegex(weft.WeftError, "weft16x"):
            weft.run(model, hw="weft16x")
        with self.assertRaises(TypeError):
            weft.run(3.5)

    def test_workdir_keeps_the_files(self):
        model, _ = matmul_model()
        with tempfile.TemporaryDirectory() as d:
            r = weft.run(model, hw="weft8", workdir=d)
            self.assertTrue((pathlib.Path(d) / "report.json").exists())
            self.assertTrue(pathlib.Path(r.report["outputs"][0]["file"]).exists())


class RunQuantized(unittest.TestCase):
    def test_int8_on_the_accelerator(self):
        model, params = conv_model(channels=16, size=16)
        x = RNG.normal(0, 1, (1, 3, 16, 16)).astype(np.float32)
        samples = [RNG.normal(0, 1, (1, 3, 16, 16)).astype(np.float32) for _ in range(3)]
        r = weft.run(model, hw="weft8", backend="approx", quantize="int8", inputs=x, calibration=samples)
        self.assertTrue(r.passed)
        computing = [layer for layer in r.layers if layer["operation"] in ("CONV_2D", "FULLY_CONNECTED")]
        self.assertEqual(len(computing), 2)
        self.assertTrue(all(layer["device"] != "weft-cpu" for layer in computing), r.layers)
        self.assertGreater(r.cycles, 0)
        self.assertEqual(len(r.int8_accuracy), 1)
        self.assertGreater(r.int8_accuracy[0]["cosine"], 0.95)
        expected = conv_reference(x, params).ravel()
        got = r.outputs["logits"].ravel()
        cosine = got @ expected / (np.linalg.norm(got) * np.linalg.norm(expected))
        self.assertGreater(cosine, 0.95)

    def test_calibration_without_quantize(self):
        model, _ = matmul_model()
        with self.assertRaisesRegex(weft.WeftError, "calibration"):
            weft.run(model, calibration=[])


class Networks(unittest.TestCase):
    def test_onnx_test_directory_and_network_options(self):
        # A network description draws its own inputs: ONNX-only options are refused.
        networks = pathlib.Path(__file__).resolve().parents[2] / "traces" / "networks"
        with self.assertRaisesRegex(weft.WeftError, "ONNX models"):
            weft.run(networks / "mobilenet_v1_224_quant.json", inputs=np.zeros(3))


class LegacyBroadcast(unittest.TestCase):
    """Add, Sub, Mul, Div of opset 6 with `broadcast` and `axis` (old PyTorch and Caffe2 exports of
    a bias): B lines up with A from `axis` on, as numpy does after B is given trailing axes of 1."""

    def legacy_model(self, op, a_shape, b_shape, axis, constant, b):
        inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, a_shape)]
        initializers = [numpy_helper.from_array(b, "b")] if constant else []
        if not constant:
            inputs.append(helper.make_tensor_value_info("b", TensorProto.FLOAT, b_shape))
        graph = helper.make_graph([helper.make_node(op, ["x", "b"], ["y"], name="bias", broadcast=1, axis=axis)],
                                  "legacy", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, a_shape)],
                                  initializers)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)])

    def test_operand_lines_up_from_its_axis(self):
        cases = [("Add", [1, 3, 4, 4], [3], 1, True), ("Mul", [2, 3, 4, 5], [3], 1, False),
                 ("Sub", [2, 3, 4, 5], [2], 0, True), ("Div", [2, 3, 4, 5], [3, 4], 1, True),
                 ("Add", [2, 3, 4, 5], [4], 2, False), ("Mul", [2, 3, 4, 5], [5], 3, True)]
        numpy_op = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}
        for op, a_shape, b_shape, axis, constant in cases:
            with self.subTest(op=op, a=a_shape, b=b_shape, axis=axis, constant=constant):
                x = RNG.normal(0, 1, a_shape).astype(np.float32)
                b = RNG.uniform(1, 2, b_shape).astype(np.float32)
                model = self.legacy_model(op, a_shape, b_shape, axis, constant, b)
                inputs = {"x": x} if constant else {"x": x, "b": b}
                r = weft.run(model, inputs=inputs, backend="approx")
                expected = numpy_op[op](x, b.reshape(b_shape + [1] * (len(a_shape) - axis - len(b_shape))))
                np.testing.assert_allclose(r.outputs["y"], expected, rtol=1e-6)


class HighRank(unittest.TestCase):
    """Values of rank 5 and 6 a Reshape made, which NNAPI's operations do not read: transposes
    (Swin's and MaxViT's window partitions, attention's [B, N, 3, H, D] -> [3, B, H, N, D]) as
    rank-4 TRANSPOSEs one after another, a Gather of one slice (Swin's q, k, v), a broadcast ADD
    (Swin's shifted-window mask); exact in float, and in int8 every operation on the accelerator."""

    def test_gather_and_broadcast_add(self):
        b, nw, heads, n = 2, 3, 2, 4
        mask = RNG.normal(0, 1, [1, nw, 1, n, n]).astype(np.float32)
        nodes = [helper.make_node("Reshape", ["x", "view"], ["v"]),
                 helper.make_node("Gather", ["v", "one"], ["g"], axis=2),
                 helper.make_node("Reshape", ["g", "view5"], ["g5"]),
                 helper.make_node("Add", ["g5", "mask"], ["s"]),
                 helper.make_node("Reshape", ["s", "flat"], ["y"])]
        graph = helper.make_graph(
            nodes, "high_rank_ops", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [b * nw, 3, heads, n * n])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [b * nw * heads * n * n])],
            [numpy_helper.from_array(np.array([b, nw, 3, heads, n * n], np.int64), "view"),
             numpy_helper.from_array(np.array(1, np.int64), "one"),
             numpy_helper.from_array(np.array([b, nw, heads, n, n], np.int64), "view5"),
             numpy_helper.from_array(mask, "mask"), numpy_helper.from_array(np.array([-1], np.int64), "flat")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        x = RNG.normal(0, 1, [b * nw, 3, heads, n * n]).astype(np.float32)
        expected = (x.reshape(b, nw, 3, heads, n * n)[:, :, 1].reshape(b, nw, heads, n, n) + mask).reshape(-1)
        r = weft.run(model, inputs={"x": x}, backend="approx")
        np.testing.assert_allclose(r.outputs["y"], expected, rtol=1e-6)
        q = weft.run(model, inputs={"x": x}, backend="approx", quantize="int8")
        self.assertEqual({layer["device"] for layer in q.layers}, {"weft-accel"})

    def test_against_numpy(self):
        cases = [([2, 3, 4, 5, 6], [2, 0, 3, 1, 4]), ([1, 2, 3, 2, 3, 4], [0, 2, 4, 3, 5, 1]),
                 ([2, 3, 4, 5, 2, 3], [5, 4, 3, 2, 1, 0]), ([1, 2, 4, 2, 4, 3], [0, 1, 3, 2, 4, 5])]
        for dims, perm in cases:
            with self.subTest(dims=dims, perm=perm):
                flat = [dims[0] * dims[1], dims[2], dims[3], int(np.prod(dims[4:]))]
                nodes = [helper.make_node("Reshape", ["x", "view"], ["v"]),
                         helper.make_node("Transpose", ["v"], ["t"], perm=perm),
                         helper.make_node("Reshape", ["t", "flat"], ["y"])]
                graph = helper.make_graph(
                    nodes, "high_rank", [helper.make_tensor_value_info("x", TensorProto.FLOAT, flat)],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [int(np.prod(dims))])],
                    [numpy_helper.from_array(np.array(dims, np.int64), "view"),
                     numpy_helper.from_array(np.array([-1], np.int64), "flat")])
                model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
                x = RNG.normal(0, 1, flat).astype(np.float32)
                expected = np.transpose(x.reshape(dims), perm).reshape(-1)
                r = weft.run(model, inputs={"x": x}, backend="approx")
                np.testing.assert_array_equal(r.outputs["y"], expected)
                q = weft.run(model, inputs={"x": x}, backend="approx", quantize="int8")
                self.assertEqual({layer["device"] for layer in q.layers}, {"weft-accel"})
                self.assertLessEqual(float(np.max(np.abs(q.outputs["y"] - expected))), 0.02)


class StridedSlice(unittest.TestCase):
    """ONNX Slice with steps (NNAPI's STRIDED_SLICE; Swin's patch merging takes x[:, 0::2, 1::2, :]):
    exact in float against numpy; in int8 on the accelerator, also after an NCHW convolution whose
    output it reads as the NHWC image it is kept as (weft.run checks the accelerator against the
    CPU reference)."""

    def model(self, shape, starts, ends, axes, steps, conv):
        nodes, inits = [], [numpy_helper.from_array(np.array(v, np.int64), n)
                            for n, v in (("starts", starts), ("ends", ends), ("axes", axes), ("steps", steps))]
        source = "x"
        if conv:
            w = RNG.normal(0, 0.3, (shape[1], shape[1], 1, 1)).astype(np.float32)
            inits.append(numpy_helper.from_array(w, "w"))
            nodes.append(helper.make_node("Conv", ["x", "w"], ["c"]))
            source = "c"
        nodes.append(helper.make_node("Slice", [source, "starts", "ends", "axes", "steps"], ["y"]))
        index = [slice(None)] * len(shape)
        for s, e, a, k in zip(starts, ends, axes, steps):
            index[a] = slice(s, e, k)
        out = list(np.zeros(shape)[tuple(index)].shape)
        graph = helper.make_graph(nodes, "strided", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, out)], inits)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])

    def test_steps_bounds_and_images(self):
        cases = [([1, 4, 7, 9], [0, 1], [100, 100], [2, 3], [2, 2]),   # Swin's even and odd pixels
                 ([2, 3, 8, 5], [-3, 0], [8, 4], [2, 3], [1, 3]),       # a negative start, an end inside
                 ([1, 6, 5, 4], [1, 0, 1], [6, 5, 4], [1, 2, 3], [2, 4, 2])]
        for shape, starts, ends, axes, steps in cases:
            with self.subTest(shape=shape, axes=axes, steps=steps):
                x = RNG.normal(0, 1, shape).astype(np.float32)
                index = [slice(None)] * len(shape)
                for s, e, a, k in zip(starts, ends, axes, steps):
                    index[a] = slice(s, e, k)
                r = weft.run(self.model(shape, starts, ends, axes, steps, False), inputs={"x": x}, backend="approx")
                np.testing.assert_array_equal(r.outputs["y"], x[tuple(index)])
                for conv in (False, True):
                    q = weft.run(self.model(shape, starts, ends, axes, steps, conv), inputs={"x": x},
                                 backend="approx", quantize="int8")
                    self.assertEqual({layer["device"] for layer in q.layers}, {"weft-accel"})


class Einsum(unittest.TestCase):
    """ONNX Einsum as the matrix products its equation spells (attention written with torch.einsum,
    MaxViT's rank-5 attention): float against numpy.einsum; in int8 every layer on the accelerator."""

    CASES = [  # equation, operand shapes, which operands are constants
        ("ij,jk->ik", [(3, 4), (4, 5)], ()),
        ("ij,jk->ik", [(3, 4), (4, 5)], (1,)),          # weights: FULLY_CONNECTED
        ("ij,jk->ik", [(3, 4), (4, 5)], (0,)),          # a constant first operand
        ("bhid,bhjd->bhij", [(2, 3, 4, 8), (2, 3, 5, 8)], ()),  # q @ k^T: adj_y
        ("bhij,bhjd->bhid", [(2, 3, 4, 5), (2, 3, 5, 8)], ()),
        ("bhqk,bhkd->bqhd", [(2, 3, 4, 5), (2, 3, 5, 6)], ()),  # the output transposed
        ("ji,jk->ik", [(4, 3), (4, 5)], ()),                   # adj_x
        ("bid,nd->bin", [(2, 5, 8), (6, 8)], (1,)),
        ("...ij,...jk->...ik", [(2, 3, 4, 5), (2, 3, 5, 6)], ()),
        ("bij,bjk->bik", [(1, 3, 4), (2, 4, 5)], ()),          # a batch of 1 broadcast
        ("i,i->", [(7,), (7,)], ()),
        ("i,j->ij", [(3,), (4,)], ()),
        ("ij,ij->ij", [(3, 4), (3, 4)], ()),
        ("ij->ji", [(3, 4)], ()),
        ("ijk->ik", [(2, 3, 4)], ()),                           # a sum
        ("ij", [(3, 4)], ()),                                   # implicit output
        ("ji", [(3, 4)], ()),
        ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)], (1,)),   # three operands
        ("ik,kj,ji->", [(2, 3), (3, 4), (4, 2)], ()),
        ("abcd,acd->ab", [(2, 3, 4, 5), (2, 4, 5)], ()),
    ]

    def model(self, equation, shapes, constants, values, view=None):
        inputs, inits, names, nodes = [], [], [], []
        for i, (shape, value) in enumerate(zip(shapes, values)):
            name = f"x{i}"
            if i in constants:
                inits.append(numpy_helper.from_array(value, name))
            elif view is not None:  # given at rank 4, seen at rank 5 (MaxViT's attention)
                inputs.append(helper.make_tensor_value_info(name + "_4d", TensorProto.FLOAT, view[0]))
                inits.append(numpy_helper.from_array(np.array(shape, np.int64), name + "_shape"))
                nodes.append(helper.make_node("Reshape", [name + "_4d", name + "_shape"], [name]))
            else:
                inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape)))
            names.append(name)
        expected = np.einsum(equation.replace(" ", ""), *values)
        nodes.append(helper.make_node("Einsum", names, ["y"], equation=equation))
        graph = helper.make_graph(nodes, "einsum", inputs,
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(expected.shape))], inits)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), expected

    def test_equations_against_numpy(self):
        for equation, shapes, constants in self.CASES:
            with self.subTest(equation=equation, shapes=shapes, constants=constants):
                values = [RNG.normal(0, 1, s).astype(np.float32) for s in shapes]
                model, expected = self.model(equation, shapes, constants, values)
                feeds = {f"x{i}": v for i, v in enumerate(values) if i not in constants}
                r = weft.run(model, inputs=feeds, backend="approx")
                np.testing.assert_allclose(r.outputs["y"].reshape(expected.shape), expected, rtol=1e-5, atol=1e-5)
                q = weft.run(model, inputs=feeds, backend="approx", quantize="int8")
                self.assertEqual({layer["device"] for layer in q.layers}, {"weft-accel"}, q.layers)

    def test_maxvit_rank_five_attention(self):
        for equation, shapes in (("B G H I D, B G H J D -> B G H I J", [(1, 4, 2, 6, 8), (1, 4, 2, 6, 8)]),
                                 ("B G H I J, B G H J D -> B G H I D", [(1, 4, 2, 6, 6), (1, 4, 2, 6, 8)])):
            with self.subTest(equation=equation):
                values = [RNG.normal(0, 1, s).astype(np.float32) for s in shapes]
                views = [[4, 2, 6, s[-1]] for s in shapes]
                inputs, inits, nodes = [], [], []
                for i, (shape, view) in enumerate(zip(shapes, views)):
                    inputs.append(helper.make_tensor_value_info(f"x{i}_4d", TensorProto.FLOAT, view))
                    inits.append(numpy_helper.from_array(np.array(shape, np.int64), f"s{i}"))
                    nodes.append(helper.make_node("Reshape", [f"x{i}_4d", f"s{i}"], [f"x{i}"]))
                expected = np.einsum(equation.replace(" ", ""), *values)
                nodes.append(helper.make_node("Einsum", ["x0", "x1"], ["e"], equation=equation))
                # The Softmax MaxViT applies to the rank-5 scores, then back to rank 4 as an output.
                nodes.append(helper.make_node("Softmax", ["e"], ["p"], axis=-1))
                out = [8] + list(expected.shape[3:])
                inits.append(numpy_helper.from_array(np.array(out, np.int64), "out"))
                nodes.append(helper.make_node("Reshape", ["p", "out"], ["y"]))
                graph = helper.make_graph(nodes, "maxvit_attention", inputs,
                                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, out)], inits)
                model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
                feeds = {f"x{i}_4d": v.reshape(view) for i, (v, view) in enumerate(zip(values, views))}
                e = np.exp(expected - expected.max(-1, keepdims=True))
                r = weft.run(model, inputs=feeds, backend="approx")
                np.testing.assert_allclose(r.outputs["y"].ravel(), (e / e.sum(-1, keepdims=True)).ravel(),
                                           rtol=1e-5, atol=1e-6)
                q = weft.run(model, inputs=feeds, backend="approx", quantize="int8")
                self.assertEqual({layer["device"] for layer in q.layers}, {"weft-accel"}, q.layers)

    def test_diagonals_are_refused(self):
        values = [RNG.normal(0, 1, (3, 3)).astype(np.float32)]
        model, _ = self.model("ii->i", [(3, 3)], (), values)
        with self.assertRaisesRegex(weft.WeftError, "'i' twice in operand 0"):
            weft.run(model, inputs={"x0": values[0]}, backend="approx")


class Recurrent(unittest.TestCase):
    """ONNX's LSTM, GRU and RNN, unrolled into the operations of each step, against a numpy reading of
    ONNX's definitions (onnx/defs/rnn/defs.cc) on what PyTorch does not export: peepholes, GRU without
    linear_before_reset, the reverse direction, sequence lengths (constant or given at run time),
    other activations, batch-major layout, initial states as inputs or constants."""

    ACTIVATIONS = {"Sigmoid": lambda x: 1 / (1 + np.exp(-x)), "Tanh": np.tanh, "Relu": lambda x: np.maximum(x, 0)}

    def reference(self, kind, x, w, r, b, lens, h0, c0, p, acts, reverse, lbr, layout):
        if layout == 1:
            x = x.transpose(1, 0, 2)
            h0, c0 = (None if s is None else s.transpose(1, 0, 2) for s in (h0, c0))
        seq, batch, _ = x.shape
        dirs, hidden = len(reverse), r.shape[2]
        gates = w.shape[1] // hidden
        y = np.zeros((seq, dirs, batch, hidden), np.float32)
        y_h, y_c = np.zeros((dirs, batch, hidden), np.float32), np.zeros((dirs, batch, hidden), np.float32)
        per = len(acts) // dirs
        for d, backwards in enumerate(reverse):
            f, g, hh = ([self.ACTIVATIONS[a] for a in acts[d * per:(d + 1) * per]] + [None, None])[:3]
            bias = b[d] if b is not None else np.zeros(2 * gates * hidden, np.float32)
            wb, rb = bias[:gates * hidden], bias[gates * hidden:]
            h = h0[d].copy() if h0 is not None else np.zeros((batch, hidden), np.float32)
            c = c0[d].copy() if c0 is not None else np.zeros((batch, hidden), np.float32)
            peep = p[d] if p is not None else np.zeros(3 * hidden, np.float32)
            for step in range(seq):
                t = seq - 1 - step if backwards else step
                live = (t < lens)[:, None] if lens is not None else np.ones((batch, 1), bool)
                if kind == "LSTM":
                    i_, o_, f_, c_ = np.split(x[t] @ w[d].T + h @ r[d].T + wb + rb, 4, axis=1)
                    cell = f(f_ + peep[2 * hidden:] * c) * c + f(i_ + peep[:hidden] * c) * g(c_)
                    new = f(o_ + peep[hidden:2 * hidden] * cell) * hh(cell)
                    c = np.where(live, cell, c)
                elif kind == "GRU":
                    xw = x[t] @ w[d].T + wb
                    rz = [h @ r[d][k * hidden:(k + 1) * hidden].T + rb[k * hidden:(k + 1) * hidden] for k in range(3)]
                    z, reset = f(xw[:, :hidden] + rz[0]), f(xw[:, hidden:2 * hidden] + rz[1])
                    if lbr:
                        cand = g(xw[:, 2 * hidden:] + reset * rz[2])
                    else:
                        cand = g(xw[:, 2 * hidden:] + (reset * h) @ r[d][2 * hidden:].T + rb[2 * hidden:])
                    new = (1 - z) * cand + z * h
                else:
                    new = f(x[t] @ w[d].T + h @ r[d].T + wb + rb)
                y[t, d] = np.where(live, new, 0)
                h = np.where(live, new, h)
            y_h[d], y_c[d] = h, c
        if layout == 1:
            return {"y": y.transpose(2, 0, 1, 3), "y_h": y_h.transpose(1, 0, 2), "y_c": y_c.transpose(1, 0, 2)}
        return {"y": y, "y_h": y_h, "y_c": y_c}

    def case(self, rng, kind):
        gates, per = {"LSTM": (4, 3), "GRU": (3, 2), "RNN": (1, 1)}[kind]
        direction = rng.choice(["forward", "reverse", "bidirectional"])
        reverse = {"forward": [False], "reverse": [True], "bidirectional": [False, True]}[direction]
        dirs = len(reverse)
        seq, batch, size, hidden = (int(v) for v in rng.integers(1, [6, 4, 7, 7]))
        layout, lbr = int(rng.integers(0, 2)), int(rng.integers(0, 2)) if kind == "GRU" else 0
        defaults = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"], "RNN": ["Tanh"]}[kind]
        acts = [str(rng.choice(list(self.ACTIVATIONS))) if rng.random() < 0.3 else a for _ in range(dirs) for a in defaults]
        state = (dirs, batch, hidden) if layout == 0 else (batch, dirs, hidden)
        maybe = lambda p, make: make() if rng.random() < p else None  # noqa: E731
        values = {
            "x": rng.normal(0, 1, (seq, batch, size) if layout == 0 else (batch, seq, size)).astype(np.float32),
            "w": rng.normal(0, 0.5, (dirs, gates * hidden, size)).astype(np.float32),
            "r": rng.normal(0, 0.5, (dirs, gates * hidden, hidden)).astype(np.float32),
            "b": maybe(0.7, lambda: rng.normal(0, 0.5, (dirs, 2 * gates * hidden)).astype(np.float32)),
            "lens": maybe(0.4, lambda: rng.integers(0, seq + 1, batch).astype(np.int32)),
            "h0": maybe(0.5, lambda: rng.normal(0, 1, state).astype(np.float32)),
            "c0": maybe(0.5, lambda: rng.normal(0, 1, state).astype(np.float32)) if kind == "LSTM" else None,
            "p": maybe(0.5, lambda: rng.normal(0, 0.5, (dirs, 3 * hidden)).astype(np.float32)) if kind == "LSTM" else None,
        }
        order = ["x", "w", "r", "b", "lens", "h0"] + (["c0", "p"] if kind == "LSTM" else [])
        names, inputs, inits, feeds = [], [], [], {}
        for name in order:
            value = values[name]
            names.append("" if value is None else name)
            if value is None:
                continue
            if name != "x" and rng.random() < 0.6:  # a constant the model holds
                inits.append(numpy_helper.from_array(value, name))
            else:
                kind_of = TensorProto.INT32 if name == "lens" else TensorProto.FLOAT
                inputs.append(helper.make_tensor_value_info(name, kind_of, list(value.shape)))
                feeds[name] = value
        while names[-1] == "":
            names.pop()
        expected = self.reference(kind, *(values[n] for n in ["x", "w", "r", "b", "lens", "h0", "c0", "p"]), acts,
                                  reverse, lbr, layout)
        outputs = ["y", "y_h"] + (["y_c"] if kind == "LSTM" else [])
        attributes = dict(hidden_size=hidden, direction=direction, layout=layout, activations=acts)
        if kind == "GRU":
            attributes["linear_before_reset"] = lbr
        graph = helper.make_graph(
            [helper.make_node(kind, names, outputs, **attributes)], kind.lower(), inputs,
            [helper.make_tensor_value_info(o, TensorProto.FLOAT, list(expected[o].shape)) for o in outputs], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
        return model, feeds, {o: expected[o] for o in outputs}, dict(attributes, seq=seq, batch=batch, inputs=names)

    def test_random_layers_against_numpy(self):
        rng = np.random.default_rng(32)
        for n in range(18):
            kind = ["LSTM", "GRU", "RNN"][n % 3]
            model, feeds, expected, described = self.case(rng, kind)
            with self.subTest(kind=kind, **described):
                r = weft.run(model, inputs=feeds, backend="approx")
                for name, value in expected.items():
                    np.testing.assert_allclose(r.outputs[name].reshape(value.shape), value, rtol=1e-4, atol=1e-5)


class Sweep(unittest.TestCase):
    def test_two_points_of_an_onnx_workload(self):
        model, _ = conv_model(channels=8, size=8)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "cnn.onnx")
            onnx.save(model, path)
            spec = {"base": "weft8", "grid": {"Cols": [8, 16]}, "backend": "timing",
                    "workloads": [{"path": path, "quantize": "int8"}]}
            result = weft.sweep(spec)
        self.assertFalse(result.failed)
        totals = result.totals()
        self.assertEqual(len(totals), 2, result.rows)
        self.assertTrue(all(t["cycles"] > 0 for t in totals))

    def test_bad_spec(self):
        with self.assertRaises(weft.WeftError):
            weft.sweep({"base": "weft8", "grid": {"NoSuchParam": [1]}, "workloads": []})


try:
    import torch
except ImportError:
    torch = None


@unittest.skipIf(torch is None, "python3-torch is not installed")
class FromTorch(unittest.TestCase):
    def float_and_int8(self, module, example, input_names=None):
        """Runs `module` exported with `example` in float (within 1e-5 of PyTorch, relative to the output's
        largest value) and quantized to int8 (reference check passed, cosine >= 0.99 to PyTorch); returns
        the int8 run."""
        with torch.no_grad():
            expected = module(example).numpy()
        model = weft.from_torch(module, example, input_names=input_names)
        r = weft.run(model, hw="weft8")
        got = next(iter(r.outputs.values()))
        self.assertLess(np.abs(got - expected).max() / np.abs(expected).max(), 1e-5)
        q = weft.run(model, hw="weft8", quantize="int8")
        self.assertTrue(q.report["referenceCheck"]["passed"])
        got = next(iter(q.outputs.values())).ravel()
        self.assertGreater(got @ expected.ravel() / (np.linalg.norm(got) * np.linalg.norm(expected)), 0.99)
        return q

    def whole_on_the_accelerator(self, module, example, operation, count):
        """float_and_int8, then: `count` layers of `operation` among every int8 layer on the accelerator,
        and the RTL's cycles the approximate model's, layer by layer."""
        q = self.float_and_int8(module, example)
        self.assertEqual(len([layer for layer in q.layers if layer["operation"] == operation]), count)
        self.assertEqual({layer["device"] for layer in q.layers}, {"weft-accel"}, q.layers)
        rtl = weft.run(weft.from_torch(module, example), hw="weft8", quantize="int8", backend="rtl")
        self.assertEqual([layer["cycles"] for layer in rtl.layers], [layer["cycles"] for layer in q.layers])

    def assert_only_the_lookup_on_the_cpu(self, q, embedding):
        """Every int8 layer on the accelerator but the embedding's lookup (node names from `embedding`): its
        token ids are known only at execution, which the accelerator's compile-time copies cannot gather."""
        on_cpu = [layer["name"] for layer in q.layers if layer["device"] == "weft-cpu"]
        self.assertTrue(on_cpu and all(name.startswith(embedding) for name in on_cpu), on_cpu)

    def test_module_float_and_int8(self):
        torch.manual_seed(0)
        module = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU6(),
                                     torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 4))
        module.eval()
        x = torch.randn(1, 3, 16, 16)
        expected = module(x).detach().numpy()
        model = weft.from_torch(module, x)
        self.assertIsInstance(model, weft.Model)
        r = weft.run(model, hw="weft8")
        np.testing.assert_allclose(r.outputs[r.report["outputs"][0]["name"]], expected, rtol=1e-4, atol=1e-5)
        q = weft.run(model, hw="weft8", quantize="int8")
        got = next(iter(q.outputs.values())).ravel()
        cosine = got @ expected.ravel() / (np.linalg.norm(got) * np.linalg.norm(expected))
        self.assertGreater(cosine, 0.95)
        self.assertTrue(all(layer["device"] != "weft-cpu" for layer in q.layers), q.layers)

    def test_a_small_maxvit(self):
        """torchvision's MaxViT (MBConv with squeeze-excitation, window and grid attention written with
        torch.einsum on rank-5 values, relative position bias) at 32x32 with torchvision's own
        initialization: float within 1e-5 of PyTorch, int8 every layer on the accelerator (the
        squeeze-excitation's Sigmoid inputs, of steps below 2^-27, rescaled for NNAPI's kernel)."""
        from torchvision.models.maxvit import MaxVit
        torch.manual_seed(0)
        module = MaxVit(input_size=(32, 32), stem_channels=8, partition_size=2, block_channels=[16, 32],
                        block_layers=[1, 1], head_dim=8, stochastic_depth_prob=0.0, num_classes=10).eval()
        x = torch.randn(1, 3, 32, 32)
        q = self.float_and_int8(module, x)
        self.assertEqual([layer["name"] for layer in q.layers if layer["device"] == "weft-cpu"], [])

    def test_nearest_upsampling_in_a_unet_skip(self):
        """nn.Upsample(scale_factor=2) and F.interpolate(size=...) in nearest mode (U-Net's decoder, a
        feature pyramid's top-down path) become RESIZE_NEAREST_NEIGHBOR: int8 on the accelerator's
        vector unit as strided copies, between NCHW convolutions and a concatenation."""

        class UNetStep(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.down = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
                self.up = torch.nn.Upsample(scale_factor=2, mode="nearest")
                self.skip = torch.nn.Conv2d(3, 8, 1)
                self.out = torch.nn.Conv2d(16, 4, 3, padding=1)

            def forward(self, x):
                d = torch.relu(self.down(x))
                sized = torch.nn.functional.interpolate(d, size=(x.shape[2], x.shape[3]), mode="nearest")
                return self.out(torch.cat([self.up(d), self.skip(x)], 1)) + sized[:, :4]

        torch.manual_seed(0)
        module = UNetStep().eval()
        q = self.float_and_int8(module, torch.randn(1, 3, 16, 12))
        resizes = [layer for layer in q.layers if layer["operation"] == "RESIZE_NEAREST_NEIGHBOR"]
        self.assertEqual(len(resizes), 2)
        self.assertEqual({layer["device"] for layer in q.layers}, {"weft-accel"}, q.layers)

    def test_bilinear_upsampling_of_a_segmentation_head(self):
        """F.interpolate(mode="bilinear", align_corners=False) by 2 (an LR-ASPP's low-resolution branch to
        its skip) and by 4 (the head back to the input's size, as torchvision's segmentation models end):
        RESIZE_BILINEAR, int8 on the accelerator's vector unit as depthwise windows (its weights are whole
        sixteenths), every layer on the accelerator; the RTL gives the approximate model's cycles."""

        class SegmentationHead(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.stem = torch.nn.Conv2d(3, 8, 3, stride=4, padding=1)
                self.low = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1)
                self.classes = torch.nn.Conv2d(8, 5, 1)

            def forward(self, x):
                s = torch.relu(self.stem(x))
                low = torch.nn.functional.interpolate(torch.relu(self.low(s)), scale_factor=2, mode="bilinear",
                                                      align_corners=False)
                y = self.classes(s + low)
                return torch.nn.functional.interpolate(y, size=x.shape[2:], mode="bilinear", align_corners=False)

        torch.manual_seed(0)
        self.whole_on_the_accelerator(SegmentationHead().eval(), torch.randn(1, 3, 32, 24), "RESIZE_BILINEAR", 2)

    def test_transposed_convolutions_of_a_unet_and_a_generator(self):
        """nn.ConvTranspose2d as U-Net's decoder upsamples (kernel 2, stride 2, then a concatenation with the
        skip) and as a DCGAN generator does (kernel 4, stride 2, padding 1): TRANSPOSE_CONV_2D, int8 on the
        array as one convolution a phase of its output, every layer on the accelerator; the RTL gives the
        approximate model's cycles."""

        class UNetUp(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.down = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
                self.up = torch.nn.ConvTranspose2d(8, 4, 2, stride=2)
                self.skip = torch.nn.Conv2d(3, 4, 1)
                self.gen = torch.nn.ConvTranspose2d(8, 3, 4, stride=2, padding=1)

            def forward(self, x):
                d = torch.relu(self.down(x))
                u = torch.cat([torch.relu(self.up(d)), self.skip(x)], 1)
                return self.gen(u)

        torch.manual_seed(0)
        self.whole_on_the_accelerator(UNetUp().eval(), torch.randn(1, 3, 12, 10), "TRANSPOSE_CONV_2D", 2)

    def test_a_super_resolution_network_with_a_pixel_shuffle(self):
        """ESPCN: convolutions, Tanh, and nn.PixelShuffle, which PyTorch exports as DepthToSpace in CRD
        order (refused before): a CHANNEL_SHUFFLE into NNAPI's DCR order, then DEPTH_TO_SPACE, both
        strided copies on the accelerator; float within 1e-5 of PyTorch, every int8 layer on the
        accelerator, as on the RTL."""

        class Espcn(torch.nn.Module):
            def __init__(self, r=3):
                super().__init__()
                self.a = torch.nn.Conv2d(1, 16, 5, padding=2)
                self.b = torch.nn.Conv2d(16, 8, 3, padding=1)
                self.c = torch.nn.Conv2d(8, r * r, 3, padding=1)
                self.shuffle = torch.nn.PixelShuffle(r)

            def forward(self, x):
                return self.shuffle(self.c(torch.tanh(self.b(torch.tanh(self.a(x))))))

        torch.manual_seed(0)
        self.whole_on_the_accelerator(Espcn().eval(), torch.randn(1, 1, 12, 10), "DEPTH_TO_SPACE", 1)

    def test_a_style_transfer_network_with_instance_norms(self):
        """A fast style transfer network's blocks: convolutions with nn.InstanceNorm2d(affine=True) and a
        ConvTranspose2d back up (stride 2, output padding 1). NNAPI's INSTANCE_NORMALIZATION is float only
        (it stayed float on the CPU under int8): with org.weft.accel's extension each channel's H x W
        values are a row of WEFT_LAYER_NORM, which int8 quantizes; float within 1e-5 of PyTorch, every
        int8 layer on the accelerator, as on the RTL."""

        class StyleBlocks(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
                self.n1 = torch.nn.InstanceNorm2d(8, affine=True)
                self.c2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
                self.n2 = torch.nn.InstanceNorm2d(16, affine=True)
                self.up = torch.nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1, output_padding=1)
                self.out = torch.nn.Conv2d(8, 3, 3, padding=1)

            def forward(self, x):
                y = torch.relu(self.n1(self.c1(x)))
                y = torch.relu(self.n2(self.c2(y)))
                return torch.tanh(self.out(torch.relu(self.up(y))))

        torch.manual_seed(0)
        self.whole_on_the_accelerator(StyleBlocks().eval(), torch.randn(1, 3, 16, 12), "TRANSPOSE_CONV_2D", 1)

    def test_a_yolo_style_channel_split_into_a_padded_convolution(self):
        """YOLOv8's C2f block: a 1x1 convolution's output chunked in two along the channels, the second
        half read by a padded 3x3 convolution (its NCHW image kept with a halo), all three concatenated;
        SiLU activations. The chunks are SLICEs that write into the image where the convolution reads
        it (they were refused there and ran on the CPU), walking the channels as a run; every int8
        layer on the accelerator, as on the RTL."""

        def conv(i, o, k=1):
            return torch.nn.Sequential(torch.nn.Conv2d(i, o, k, 1, k // 2, bias=False), torch.nn.BatchNorm2d(o),
                                       torch.nn.SiLU())

        class C2f(torch.nn.Module):
            def __init__(self, c=8):
                super().__init__()
                self.cv1, self.m, self.cv2 = conv(c, 2 * c), conv(c, c, 3), conv(3 * c, c)

            def forward(self, x):
                a, b = self.cv1(x).chunk(2, 1)
                return self.cv2(torch.cat([a, b, self.m(b)], 1))

        torch.manual_seed(0)
        self.whole_on_the_accelerator(C2f().eval(), torch.randn(1, 8, 10, 12), "SLICE", 2)

    def test_a_llama_style_language_model(self):
        """Token ids into an embedding, RMSNorm (x * rsqrt(mean(x^2) + eps)), rotary position
        embedding (rotate_half's Neg and Concat), causal attention, a SwiGLU MLP: float within 1e-5 of
        PyTorch; int8 with the ids taken as they are, every layer on the accelerator but the
        embedding lookup (its indices are only known at execution: a GATHER the accelerator's
        compile-time copies cannot do)."""
        d, heads, t, vocab = 32, 2, 8, 50

        class RmsNorm(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = torch.nn.Parameter(1 + 0.1 * torch.randn(d))

            def forward(self, x):
                return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.w

        def rope(x, cos, sin):
            half = x.shape[-1] // 2
            return x * cos + torch.cat((-x[..., half:], x[..., :half]), dim=-1) * sin

        class TinyLlama(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = torch.nn.Embedding(vocab, d)
                self.norm1, self.norm2, self.norm3 = RmsNorm(), RmsNorm(), RmsNorm()
                self.qkv = torch.nn.Linear(d, 3 * d, bias=False)
                self.proj = torch.nn.Linear(d, d, bias=False)
                self.gate, self.up = torch.nn.Linear(d, 4 * d, bias=False), torch.nn.Linear(d, 4 * d, bias=False)
                self.down = torch.nn.Linear(4 * d, d, bias=False)
                self.head = torch.nn.Linear(d, vocab, bias=False)
                hd = d // heads
                angles = torch.outer(torch.arange(t).float(), 1.0 / 10000 ** (torch.arange(0, hd, 2).float() / hd))
                self.register_buffer("cos", torch.cat([angles, angles], -1).cos())
                self.register_buffer("sin", torch.cat([angles, angles], -1).sin())
                self.register_buffer("mask", torch.triu(torch.full((t, t), float("-inf")), 1))

            def forward(self, ids):
                x = self.embed(ids)
                q, k, v = self.qkv(self.norm1(x)).view(1, t, 3, heads, d // heads).permute(2, 0, 3, 1, 4)
                q, k = rope(q, self.cos, self.sin), rope(k, self.cos, self.sin)
                a = torch.softmax(q @ k.transpose(-1, -2) / (d // heads) ** 0.5 + self.mask, -1) @ v
                x = x + self.proj(a.transpose(1, 2).reshape(1, t, d))
                h = self.norm2(x)
                x = x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))
                return self.head(self.norm3(x))

        torch.manual_seed(0)
        module = TinyLlama().eval()
        ids = torch.randint(0, vocab, (1, t))
        q = self.float_and_int8(module, ids, ["ids"])
        self.assert_only_the_lookup_on_the_cpu(q, "/embed/")
        operations = {layer["operation"] for layer in q.layers if layer["device"] == "weft-accel"}
        self.assertTrue({"RSQRT", "MUL", "BATCH_MATMUL", "SOFTMAX", "FULLY_CONNECTED"} <= operations, operations)

    def test_a_gpt2_style_language_model(self):
        """GPT-2's blocks as written for it: a fused q, k, v projection split three ways, the causal mask
        as torch.where(causal, w, finfo.min) (an ADD of a mask at import: exact), gelu_new's tanh
        form, a head tied to the token embedding: float within 1e-5 of PyTorch, int8 every layer on
        the accelerator but the embedding lookup."""
        d, heads, t, vocab = 32, 2, 8, 50

        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
                self.c_attn, self.c_proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
                self.fc, self.proj = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)
                self.register_buffer("causal", torch.tril(torch.ones(t, t, dtype=torch.bool)).view(1, 1, t, t))

            def forward(self, x):
                q, k, v = self.c_attn(self.ln1(x)).split(d, dim=2)
                q, k, v = (z.view(1, t, heads, d // heads).permute(0, 2, 1, 3) for z in (q, k, v))
                w = torch.matmul(q, k.transpose(-1, -2)) / (d // heads) ** 0.5
                w = torch.where(self.causal, w, torch.tensor(torch.finfo(w.dtype).min))
                a = torch.matmul(torch.softmax(w, -1), v).permute(0, 2, 1, 3).reshape(1, t, d)
                x = x + self.c_proj(a)
                h = self.fc(self.ln2(x))
                h = 0.5 * h * (1.0 + torch.tanh((2.0 / np.pi) ** 0.5 * (h + 0.044715 * torch.pow(h, 3.0))))
                return x + self.proj(h)

        class TinyGpt2(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.wte, self.wpe = torch.nn.Embedding(vocab, d), torch.nn.Embedding(t, d)
                self.block, self.ln_f = Block(), torch.nn.LayerNorm(d)

            def forward(self, ids):
                x = self.wte(ids) + self.wpe(torch.arange(0, t, dtype=torch.long).unsqueeze(0))
                return torch.matmul(self.ln_f(self.block(x)), self.wte.weight.t())

        torch.manual_seed(0)
        module = TinyGpt2().eval()
        ids = torch.randint(0, vocab, (1, t))
        q = self.float_and_int8(module, ids, ["ids"])
        self.assert_only_the_lookup_on_the_cpu(q, "/wte/")

    def test_recurrent_layers_of_a_sequence_model(self):
        """An LSTM (two layers, both directions), a GRU and an RNN, as PyTorch exports them (a node a layer,
        GRU with linear_before_reset): unrolled, every int8 layer runs on the accelerator."""
        class Sequence(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = torch.nn.LSTM(6, 8, num_layers=2, bidirectional=True, batch_first=True)
                self.gru = torch.nn.GRU(16, 8, batch_first=True)
                self.rnn = torch.nn.RNN(8, 8, nonlinearity="relu", batch_first=True)
                self.head = torch.nn.Linear(8, 3)

            def forward(self, x):
                y, _ = self.lstm(x)
                y, _ = self.gru(y)
                y, _ = self.rnn(y)
                return self.head(y[:, -1])

        torch.manual_seed(0)
        # 4 steps: per layer and direction the input's projection and 3 recurrent products (the first
        # step starts from zeros), 4 x 4 for the LSTM, 4 each for the GRU and the RNN; and the head.
        self.whole_on_the_accelerator(Sequence().eval(), torch.randn(2, 4, 6), "FULLY_CONNECTED", 16 + 4 + 4 + 1)

    def test_masked_fill_before_a_softmax_and_an_unfold(self):
        """masked_fill(mask, -1e9) before a softmax (hand-written attention) runs in int8 with every layer on
        the accelerator, and a row masked whole (the mask kept as SELECT) still quantizes; nn.Unfold's
        rank-6 gathers import."""
        class Attention(torch.nn.Module):
            def __init__(self, mask):
                super().__init__()
                self.register_buffer("mask", mask)

            def forward(self, x):
                return (x @ x.transpose(-1, -2)).masked_fill(self.mask, -1e9).softmax(-1) @ x

        torch.manual_seed(0)
        causal = torch.triu(torch.ones(6, 6), 1).bool()
        self.whole_on_the_accelerator(Attention(causal).eval(), torch.randn(1, 2, 6, 8), "SOFTMAX", 1)
        whole_row = causal.clone()
        whole_row[0, :] = True
        self.float_and_int8(Attention(whole_row).eval(), torch.randn(1, 2, 6, 8))
        self.float_and_int8(torch.nn.Sequential(torch.nn.Unfold(2, stride=2), torch.nn.Flatten()).eval(),
                            torch.randn(1, 3, 6, 6))

    def test_group_norms_of_a_diffusion_style_block(self):
        """GroupNorm, as PyTorch exports it (InstanceNormalization over [N, groups, -1]), then SiLU: every int8
        layer on the accelerator."""
        torch.manual_seed(0)
        block = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.GroupNorm(4, 16), torch.nn.SiLU(),
                                    torch.nn.Conv2d(16, 8, 3, padding=1), torch.nn.GroupNorm(2, 8), torch.nn.SiLU())
        self.whole_on_the_accelerator(block.eval(), torch.randn(1, 3, 12, 12), "CONV_2D", 2)

    def test_a_one_dimensional_convolution_network(self):
        """Conv1d layers (audio, time series) as 2-D convolutions of [N, C, 1, W]: the reshape of the model's
        input into the first, padded one's image with a halo runs on the accelerator too (it stayed on the
        CPU), so every int8 layer does."""
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Conv1d(4, 16, 5, padding=2), torch.nn.BatchNorm1d(16), torch.nn.ReLU(),
                                  torch.nn.Conv1d(16, 16, 3, stride=2, padding=1), torch.nn.ReLU(),
                                  torch.nn.AdaptiveAvgPool1d(1), torch.nn.Flatten(), torch.nn.Linear(16, 3))
        self.whole_on_the_accelerator(net.eval(), torch.randn(1, 4, 40), "CONV_2D", 2)

    def test_mish_softplus_and_elementwise_math_in_int8(self):
        """Mish (YOLOv4's), Softplus, LogSigmoid and a square root: their EXP, LOG and SQRT (NNAPI float only)
        quantize as org.weft.accel's WEFT_UNARY, a lookup table the vector unit runs, so every int8 layer is
        on the accelerator (they stayed float on the CPU)."""
        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = torch.nn.Conv2d(3, 8, 3, padding=1)
                self.b = torch.nn.Conv2d(8, 8, 3, padding=1)

            def forward(self, x):
                y = torch.nn.functional.mish(self.a(x))
                y = torch.nn.functional.softplus(self.b(y)) + torch.nn.functional.logsigmoid(y)
                return torch.sqrt(y.abs() + 1)

        torch.manual_seed(0)
        self.whole_on_the_accelerator(Block().eval(), torch.randn(1, 3, 10, 10), "CONV_2D", 2)

    def test_leaky_relu_and_prelu_in_int8(self):
        """LeakyReLU (YOLOv3's, GAN discriminators') and nn.PReLU() of one slope are a lookup table on the vector
        unit; nn.PReLU(C) imports as relu(x) + alpha * (x - relu(x)): every int8 layer on the accelerator (PRELU
        stayed on the CPU)."""
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.LeakyReLU(0.1),
                                  torch.nn.Conv2d(8, 8, 3), torch.nn.PReLU(), torch.nn.Conv2d(8, 4, 1), torch.nn.PReLU(4))
        self.whole_on_the_accelerator(net.eval(), torch.randn(1, 3, 10, 10), "PRELU", 2)

    def test_replication_and_reflection_padding(self):
        """ReplicationPad2d (ONNX's edge mode, which NNAPI lacks: the first and last slices concatenated) and
        ReflectionPad2d (MIRROR_PAD, a copy a mirrored row or column): every int8 layer on the accelerator."""
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.ReplicationPad2d((1, 2, 2, 0)), torch.nn.Conv2d(3, 8, 3),
                                  torch.nn.ReflectionPad2d(1), torch.nn.Conv2d(8, 4, 3))
        self.whole_on_the_accelerator(net.eval(), torch.randn(1, 3, 9, 7), "CONV_2D", 2)

    def test_normalized_embeddings_in_int8(self):
        """F.normalize (an embedding model's last step): the division by the computed norm is a reciprocal looked
        up (org.weft.accel's WEFT_UNARY) and a MUL, so every int8 layer is on the accelerator (DIV stayed float)."""
        class Embed(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = torch.nn.Linear(12, 16)

            def forward(self, x):
                return torch.nn.functional.normalize(self.proj(x), dim=-1)

        torch.manual_seed(0)
        self.whole_on_the_accelerator(Embed().eval(), torch.randn(4, 12), "FULLY_CONNECTED", 1)

    def test_clamps_in_int8(self):
        """Hardtanh, clamp and CELU's max(x, 0) and min(0, ...): a MAXIMUM or MINIMUM by a one-value constant is a
        lookup table on the vector unit, so every int8 layer is on the accelerator (they stayed float on the CPU)."""
        class Clamps(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

            def forward(self, x):
                y = torch.nn.functional.hardtanh(self.conv(x), -0.5, 0.5)
                return torch.nn.functional.celu(y.clamp(-0.3, 0.7) * 4)

        torch.manual_seed(0)
        self.whole_on_the_accelerator(Clamps().eval(), torch.randn(1, 3, 8, 8), "CONV_2D", 1)

    def test_attention_pooling_sums_in_int8(self):
        """A bidirectional GRU pooled by attention, (softmax(w) * y).sum(1): the sum (NNAPI's REDUCE_SUM has no
        8-bit form) quantizes as a MEAN times the count, so every int8 layer is on the accelerator."""
        class Pool(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.gru = torch.nn.GRU(6, 8, batch_first=True, bidirectional=True)
                self.score = torch.nn.Linear(16, 1)

            def forward(self, x):
                y, _ = self.gru(x)
                return (torch.softmax(self.score(y), 1) * y).sum(1)

        torch.manual_seed(0)
        self.whole_on_the_accelerator(Pool().eval(), torch.randn(2, 5, 6), "MEAN", 1)

    def test_run_refuses_a_module(self):
        with self.assertRaisesRegex(TypeError, "from_torch"):
            weft.run(torch.nn.ReLU())



class Dram(unittest.TestCase):
    """weft.dram_replay, weft.dram_devices and weft.dram_device: `weft dram` from Python."""

    def test_presets_are_described(self):
        devices = weft.dram_devices()
        self.assertIn("lpddr4-3200", [d["name"] for d in devices])
        lpddr4 = weft.dram_device("lpddr4-3200")
        self.assertEqual((lpddr4["channels"], lpddr4["transaction_bytes"], lpddr4["tck_ns"]), (4, 32, 0.625))
        self.assertAlmostEqual(lpddr4["peak_gbps"], 25.6)

    def test_triples_replay_as_their_trace_file_does(self):
        triples = [(i * 64, i % 3 == 2, i) for i in range(500)]
        given = weft.dram_replay(triples, "ddr4-3200")
        with tempfile.TemporaryDirectory() as d:
            path = pathlib.Path(d) / "t.trace"
            path.write_text("".join(f"0x{a:x} {'WRITE' if w else 'READ'} {c}\n" for a, w, c in triples))
            from_file = weft.dram_replay(path, "ddr4-3200")
        self.assertEqual(given, from_file)
        with tempfile.TemporaryDirectory() as d:
            commands = pathlib.Path(d) / "commands.txt"
            self.assertEqual(weft.dram_replay(triples, "ddr4-3200", command_trace=commands), given)
            lines = commands.read_text().splitlines()
        self.assertEqual(len(lines), given["activates"] + given["precharges"] + given["read_commands"] +
                         given["write_commands"] + given["refreshes"])
        self.assertEqual(lines[0].split()[1], "activate")
        self.assertEqual((given["transactions"], given["reads"], given["writes"]), (500, 334, 166))
        self.assertGreater(given["dram_cycles"], 500)
        self.assertGreater(given["row_hits"], given["row_misses"])
        self.assertGreater(given["energy_pj"], 0)

    def test_bad_traces_and_devices(self):
        with self.assertRaisesRegex(ValueError, "kind 'RD'"):
            weft.dram_replay([(0, "RD", 0)], "lpddr4-3200")
        with self.assertRaisesRegex(ValueError, "not an \\(address, kind, cycle\\) triple"):
            weft.dram_replay([(0, 1)], "lpddr4-3200")
        with self.assertRaisesRegex(weft.WeftError, "the transactions given, line 2: .* beyond the device"):
            weft.dram_replay([(0, "READ", 0), (1 << 40, "READ", 1)], "lpddr4-3200")
        with self.assertRaisesRegex(weft.WeftError, "neither a preset"):
            weft.dram_replay([(0, "READ", 0)], "ddr9-1")
        with tempfile.TemporaryDirectory() as d:
            ini = pathlib.Path(d) / "bad.ini"
            ini.write_text("[dram_structure]\nprotocol = DDR4\n")
            with self.assertRaisesRegex(weft.WeftError, "bad.ini: \\[dram_structure\\] bankgroups is missing"):
                weft.dram_device(ini)
            with self.assertRaisesRegex(weft.WeftError, "cannot open the trace"):
                weft.dram_replay(pathlib.Path(d) / "none.trace", "hbm2")


if __name__ == "__main__":
    unittest.main()
