#!/usr/bin/env python3
"""Real exported networks through `weft run`: torchvision CNNs (random weights: no pretrained
weights can be fetched) exported by torch.onnx.export, run in float and quantized to int8.
Classifiers by their torchvision.models names; segmentation models (torchvision.models.segmentation:
lraspp_mobilenet_v3_large, deeplabv3_resnet50, fcn_resnet50, ...) too, their "out" map the output.

For each model:
  float  `weft run MODEL.onnx`: every operation on the CPU device (the accelerator takes int8 and
         fp16); the output within --float-rtol of PyTorch's (largest difference over the largest
         magnitude of PyTorch's output).
  int8   `weft run MODEL.onnx --quantize int8 --calibration DIR`: calibrated on --samples random
         inputs; the report has no weft-cpu row (every layer on the accelerator), and the output's
         cosine similarity to PyTorch's float output is at least --min-cosine.
Needs Debian's python3-torch and python3-torchvision (scripts/setup.sh installs them).

  scripts/onnx_torchvision_check.py --weft build/default/weft [--models resnet18,mobilenet_v2]
      [--size 96] [--backend approx] [--keep DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

DEFAULT_MODELS = "resnet18,mobilenet_v2,mnasnet0_5,googlenet,densenet121,squeezenet1_0,shufflenet_v2_x0_5,convnext_tiny,regnet_y_400mf,mobilenet_v3_small,swin_t,efficientnet_b0,lraspp_mobilenet_v3_large"


def export(name, size, directory):
    import torch
    import torchvision

    torch.manual_seed(0)
    if hasattr(torchvision.models, name):
        model = getattr(torchvision.models, name)(weights=None).eval()
    else:
        net = getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None).eval()

        class Segmentation(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.net = net

            def forward(self, x):
                return self.net(x)["out"]

        model = Segmentation().eval()
    x = torch.randn(1, 3, size, size)
    path = os.path.join(directory, name + ".onnx")
    torch.onnx.export(model, x, path, opset_version=13, input_names=["x"], output_names=["y"])
    with torch.no_grad():
        y = model(x).numpy()
    np.save(os.path.join(directory, name + "_in.npy"), x.numpy())
    return path, y


def run_weft(args, extra, directory, tag):
    json_path = os.path.join(directory, tag + ".json")
    out_dir = os.path.join(directory, tag + "_out")
    cmd = [args.weft, "--backend", args.backend, "run"] + extra + [
        "--save-outputs", out_dir, "--json", json_path, "--csv", os.path.join(directory, tag + ".csv"), "--quiet"]
    start = time.time()
    done = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.time() - start
    if done.returncode != 0:
        return None, None, seconds, done.stdout + done.stderr
    with open(json_path) as f:
        report = json.load(f)
    return np.load(os.path.join(out_dir, "y.npy")), report, seconds, done.stdout


def cpu_rows(report):
    return [layer["name"] for layer in report["layers"] if layer.get("device") == "weft-cpu"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weft", required=True)
    parser.add_argument("--models", default=DEFAULT_MODELS)
    parser.add_argument("--size", type=int, default=96, help="input height and width")
    parser.add_argument("--samples", type=int, default=4, help="calibration samples")
    parser.add_argument("--backend", default="approx")
    parser.add_argument("--float-rtol", type=float, default=1e-4)
    parser.add_argument("--min-cosine", type=float, default=0.95)
    parser.add_argument("--keep", help="keep the models and reports here")
    args = parser.parse_args()
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError as e:
        print(f"onnx torchvision: needs python3-torch and python3-torchvision ({e})", file=sys.stderr)
        return 2

    directory = args.keep or tempfile.mkdtemp(prefix="weft-torchvision-")
    os.makedirs(directory, exist_ok=True)
    calibration = os.path.join(directory, "calibration")
    os.makedirs(calibration, exist_ok=True)
    rng = np.random.default_rng(5)
    np.save(os.path.join(calibration, "samples.npy"),
            rng.standard_normal((args.samples, 1, 3, args.size, args.size)).astype(np.float32))
    failures = 0
    for name in args.models.split(","):
        path, expected = export(name, args.size, directory)
        given = ["--input", "x=" + os.path.join(directory, name + "_in.npy")]
        problems = []
        got, report, float_s, log = run_weft(args, [path] + given, directory, name + "_float")
        if got is None:
            problems.append("float run failed: " + log.strip().splitlines()[-1])
            rel = float("nan")
        else:
            # torchvision starts some classifiers at zero (ViT's head): an output of zeros is
            # compared absolutely, not divided by its zero magnitude.
            scale = float(np.max(np.abs(expected))) or 1.0
            rel = float(np.max(np.abs(got - expected)) / scale)
            if not rel <= args.float_rtol:
                problems.append(f"float output {rel:.2e} off PyTorch's (limit {args.float_rtol:g})")
        got, report, int8_s, log = run_weft(args, [path, "--quantize", "int8", "--calibration", calibration] + given,
                                            directory, name + "_int8")
        cosine, on_cpu = float("nan"), []
        if got is None:
            problems.append("int8 run failed: " + log.strip().splitlines()[-1])
        else:
            a, b = got.ravel().astype(np.float64), expected.ravel().astype(np.float64)
            norms = float(np.linalg.norm(a) * np.linalg.norm(b))
            cosine = float(a @ b / norms) if norms > 0 else float(np.array_equal(a, b))
            on_cpu = cpu_rows(report)
            if not cosine >= args.min_cosine:
                problems.append(f"int8 cosine {cosine:.4f} to PyTorch's float output (limit {args.min_cosine})")
            if on_cpu:
                problems.append(f"{len(on_cpu)} int8 layers on the CPU: {', '.join(on_cpu[:5])}")
        layers = len(report["layers"]) if report else 0
        status = "ok" if not problems else "FAILED: " + "; ".join(problems)
        print(f"{name:<20} float rel {rel:.2e} ({float_s:.1f} s)   int8 cosine {cosine:.4f}, {layers} layers, "
              f"{len(on_cpu)} on the CPU ({int8_s:.1f} s)   {status}")
        failures += bool(problems)
    print(f"onnx torchvision: {failures} failing of {len(args.models.split(','))} ({args.size}x{args.size}, "
          f"{args.backend} backend)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
