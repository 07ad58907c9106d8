#!/usr/bin/env python3
"""Exported transformers through `weft run`: a BERT-style encoder (torch.nn.TransformerEncoder, GELU)
and torchvision's VisionTransformer, random weights, exported by torch.onnx.export at opset 14
(layer norm and GELU spelled out as exporters write them, which the importer fuses onto
org.weft.accel's WEFT_LAYER_NORM and WEFT_GELU).

A third model is the encoder under a causal attention mask (-inf above the diagonal, as
torch.nn.Transformer.generate_square_subsequent_mask makes it), which int8 holds by saturation.

For each model:
  float    `weft run`: the output within --float-rtol of PyTorch's (largest difference over the
           largest magnitude of PyTorch's output);
  int8     `--quantize int8 --calibration DIR` (--samples random inputs): cosine similarity of the
           output to PyTorch's float output at least --min-cosine;
  relaxed  `--hw weft16fp --relaxed`: within --relaxed-rtol of PyTorch's.
Each line also says how many operations ran on the accelerator and which kinds stayed on the CPU;
in the int8 and relaxed runs every operation must run on the accelerator (--allow-cpu reports them
instead). Needs Debian's python3-torch and python3-torchvision (tests/README.md).

  scripts/onnx_transformer_check.py --weft build/default/weft [--models encoder,vit] [--keep DIR]
"""
import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_torchvision_check import run_weft  # noqa: E402

DEFAULT_MODELS = "encoder,vit,causal"


def build(name):
    import torch
    import torchvision

    torch.manual_seed(0)
    if name == "encoder":  # BERT's block: post-norm, GELU; token embeddings given
        layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0,
                                                 activation="gelu", batch_first=True)
        model = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        shape = (1, 32, 64)
    elif name == "causal":  # the encoder under a causal mask (-inf above the diagonal), as a decoder's
        layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0,
                                                 activation="gelu", batch_first=True)
        encoder = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)

        class Causal(torch.nn.Module):
            def __init__(self, inner, tokens):
                super().__init__()
                self.inner = inner
                self.register_buffer("mask", torch.nn.Transformer.generate_square_subsequent_mask(tokens))

            def forward(self, x):
                return self.inner(x, mask=self.mask)

        model = Causal(encoder, 32)
        shape = (1, 32, 64)
    elif name == "vit":
        model = torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4,
                                                     hidden_dim=64, mlp_dim=128, num_classes=10)
        torch.nn.init.normal_(model.heads.head.weight, std=0.2)  # torchvision starts it at zero
        shape = (1, 3, 32, 32)
    else:
        raise SystemExit(f"onnx transformers: no model '{name}' (encoder, vit, causal)")
    return model.eval(), shape


def export(name, directory):
    import torch

    model, shape = build(name)
    x = torch.randn(*shape)
    path = os.path.join(directory, name + ".onnx")
    torch.onnx.export(model, x, path, opset_version=14, input_names=["x"], output_names=["y"])
    with torch.no_grad():
        y = model(x).numpy()
    np.save(os.path.join(directory, name + "_in.npy"), x.numpy())
    return path, y, shape


def relative(got, expected):
    return float(np.max(np.abs(got - expected)) / np.max(np.abs(expected)))


def placement(report):
    """The placement's description, and the kinds that stayed on the CPU."""
    cpu = sorted({layer["operation"] for layer in report["layers"] if layer.get("device") == "weft-cpu"})
    on = sum(1 for layer in report["layers"] if layer.get("device") != "weft-cpu")
    text = f"{on}/{len(report['layers'])} on the accelerator" + (f" (CPU: {', '.join(cpu)})" if cpu else "")
    return text, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weft", required=True)
    parser.add_argument("--models", default=DEFAULT_MODELS)
    parser.add_argument("--samples", type=int, default=4, help="calibration samples")
    parser.add_argument("--backend", default="approx")
    parser.add_argument("--float-rtol", type=float, default=1e-4)
    parser.add_argument("--min-cosine", type=float, default=0.95)
    parser.add_argument("--relaxed-rtol", type=float, default=2e-2)
    parser.add_argument("--keep", help="keep the models and reports here")
    parser.add_argument("--allow-cpu", action="store_true",
                        help="report operations left on the CPU in the int8 and relaxed runs, not fail")
    args = parser.parse_args()
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError as e:
        print(f"onnx transformers: needs python3-torch and python3-torchvision ({e})", file=sys.stderr)
        return 2
    directory = args.keep or tempfile.mkdtemp(prefix="weft-transformers-")
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(5)
    failures = 0
    for name in args.models.split(","):
        path, expected, shape = export(name, directory)
        calibration = os.path.join(directory, name + "_calibration")
        os.makedirs(calibration, exist_ok=True)
        np.save(os.path.join(calibration, "samples.npy"),
                rng.standard_normal((args.samples,) + shape).astype(np.float32))
        given = ["--input", "x=" + os.path.join(directory, name + "_in.npy")]
        problems, lines = [], []
        runs = [("float", [path] + given),
                ("int8", [path, "--quantize", "int8", "--calibration", calibration] + given),
                ("relaxed", [path, "--relaxed"] + given)]
        for tag, extra in runs:
            if tag == "relaxed":  # run_weft puts `run` first; the tool reads the configuration here too
                os.environ["WEFT_HW"] = "weft16fp"
            got, report, seconds, log = run_weft(args, extra, directory, f"{name}_{tag}")
            os.environ.pop("WEFT_HW", None)
            if got is None:
                problems.append(f"{tag} run failed: " + log.strip().splitlines()[-1])
                continue
            where, cpu = placement(report)
            if tag != "float" and cpu and not args.allow_cpu:
                problems.append(f"{tag}: {', '.join(cpu)} on the CPU")
            if tag == "int8":
                a, b = got.ravel().astype(np.float64), expected.ravel().astype(np.float64)
                cosine = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
                lines.append(f"int8 cosine {cosine:.4f}, {where} ({seconds:.1f} s)")
                if not cosine >= args.min_cosine:
                    problems.append(f"int8 cosine {cosine:.4f} (limit {args.min_cosine})")
            else:
                limit = args.float_rtol if tag == "float" else args.relaxed_rtol
                rel = relative(got, expected)
                lines.append(f"{tag} rel {rel:.2e}" + (f", {where}" if tag != "float" else "") +
                             f" ({seconds:.1f} s)")
                if not rel <= limit:
                    problems.append(f"{tag} output {rel:.2e} off PyTorch's (limit {limit:g})")
        status = "ok" if not problems else "FAILED: " + "; ".join(problems)
        print(f"{name:<8} " + "   ".join(lines) + f"   {status}")
        failures += bool(problems)
    print(f"onnx transformers: {failures} failing of {len(args.models.split(','))} ({args.backend} backend)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
