"""weft.run, weft.sweep, weft.from_torch: each run is the `weft` tool in a process of its own.

The backend and the hardware configuration are read when libneuralnetworks.so loads, so a run
with its own hw= and backend= needs a fresh process (as each point of a sweep has). The model, the
inputs and the calibration samples are written to a working directory, the tool runs there with
--json and --save-outputs, and the result is read back from its report and its .npy files. What
the tool refuses (exit code 2) is a WeftError carrying its message; the model is imported in this
process first (weft._native, the tool's own importer), so a bad ONNX model fails before any
process starts.
"""

import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import numpy as np

from . import _native
from ._native import WeftError
from ._result import Result, SweepResult


class ReferenceCheckError(WeftError):
    """The accelerator's outputs differ from the reference's beyond the tolerance.

    `result` holds the whole run (outputs, layers, the report's failures)."""

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result


class Model:
    """An ONNX model in memory, as weft.from_torch returns it: the serialized ModelProto, a name
    for its reports, and the example inputs it was exported with (run's default inputs)."""

    def __init__(self, onnx_bytes, name="model", inputs=None):
        if not isinstance(onnx_bytes, (bytes, bytearray)):
            raise TypeError("Model(onnx_bytes): the bytes of a serialized ONNX ModelProto")
        self.onnx_bytes = bytes(onnx_bytes)
        self.name = name
        self.inputs = inputs

    def save(self, path):
        """Writes the model as an .onnx file (for `weft run PATH` or Netron)."""
        pathlib.Path(path).write_bytes(self.onnx_bytes)
        return path

    def inspect(self, shapes=None, relaxed=False):
        return inspect(self, shapes=shapes, relaxed=relaxed)

    def __repr__(self):
        return f"weft.Model({self.name!r}, {len(self.onnx_bytes)} bytes)"


def _is_onnx_path(path):
    p = pathlib.Path(path)
    return p.suffix == ".onnx" or (p.is_dir() and (p / "model.onnx").is_file())


def _shape_args(shapes):
    """{"input": (1, 3, 224, 224), "batch": 1} -> {"input": "1x3x224x224", "batch": "1"}."""
    out = {}
    for name, shape in (shapes or {}).items():
        if isinstance(shape, str):
            out[name] = shape
        elif isinstance(shape, int):
            out[name] = str(shape)
        else:
            out[name] = "x".join(str(int(d)) for d in shape)
    return out


def _model_bytes(model):
    """The serialized ONNX of an in-memory model, or None for a path."""
    if isinstance(model, Model):
        return model.onnx_bytes
    if isinstance(model, (bytes, bytearray)):
        return bytes(model)
    if hasattr(model, "SerializeToString"):  # onnx.ModelProto
        return model.SerializeToString()
    if type(model).__module__.startswith("torch") or hasattr(model, "state_dict"):
        raise TypeError("a torch.nn.Module is run through weft.from_torch(module, example_inputs)")
    if isinstance(model, (str, os.PathLike)):
        return None
    raise TypeError(f"weft cannot run a {type(model).__name__}: give a path (ONNX model, ONNX test directory or "
                    "network JSON), an onnx.ModelProto, a weft.Model or the bytes of a serialized ONNX model")


def _model_name(model):
    if isinstance(model, Model):
        return model.name
    graph = getattr(model, "graph", None)
    return getattr(graph, "name", "") or "model"


def inspect(model, shapes=None, relaxed=False):
    """What weft's importer makes of an ONNX model (a path, onnx.ModelProto, weft.Model or bytes):
    a dict with its inputs and outputs (name, shape, dtype), the NNAPI operations it became, and
    which ONNX node became which (`nodes`). WeftError, naming the node, if weft cannot take it."""
    data = _model_bytes(model)
    if data is not None:
        return _native.inspect_onnx(data, _shape_args(shapes), relaxed, _model_name(model))
    path = os.fspath(model)
    if pathlib.Path(path).is_dir():
        path = os.path.join(path, "model.onnx")
    if not os.path.exists(path):
        raise WeftError(f"{path}: no such file")
    return _native.inspect_onnx(path, _shape_args(shapes), relaxed, path)


def _as_array(value):
    if hasattr(value, "detach"):  # a torch.Tensor
        value = value.detach().cpu().numpy()
    return np.asarray(value)


def _cast_like(array, dtype, name):
    """An input as the model's element type: floats to its float type, integers to its integer
    type; anything else is the tool's to refuse (with the input's name)."""
    try:
        want = np.dtype(dtype)
    except TypeError:
        return array
    if array.dtype == want:
        return array
    if np.issubdtype(want, np.floating) and np.issubdtype(array.dtype, np.number):
        return array.astype(want)
    if np.issubdtype(want, np.integer) and np.issubdtype(array.dtype, np.integer):
        return array.astype(want)
    if want == np.bool_ and array.dtype == np.bool_:
        return array
    raise WeftError(f"input '{name}': {array.dtype} values for a {dtype} input")


def _named(values, described, what):
    """inputs= as {name: array}: a dict by name, a list or tuple in the model's input order, or
    one array for a model of one input."""
    names = [i["name"] for i in described]
    if isinstance(values, dict):
        unknown = [n for n in values if n not in names]
        if unknown:
            raise WeftError(f"{what}: the model has no input {unknown[0]!r} (its inputs: {', '.join(names)})")
        return dict(values)
    if isinstance(values, (list, tuple)):
        if len(values) != len(names):
            raise WeftError(f"{what}: {len(values)} values for the model's {len(names)} inputs ({', '.join(names)})")
        return dict(zip(names, values))
    if len(names) != 1:
        raise WeftError(f"{what}: one value for the model's {len(names)} inputs ({', '.join(names)}): give a dict")
    return {names[0]: values}


def _write_inputs(inputs, described, workdir):
    """--input NAME=FILE for each input given, written as .npy in the model's element types."""
    args = []
    for name, value in _named(inputs, described, "inputs").items():
        dtype = next(i["dtype"] for i in described if i["name"] == name)
        file = workdir / "inputs" / f"{_native.npy_file_name(name)}.npy"
        file.parent.mkdir(exist_ok=True)
        np.save(file, np.ascontiguousarray(_cast_like(_as_array(value), dtype, name)))
        args += ["--input", f"{name}={file}"]
    return args


def _write_calibration(samples, described, workdir):
    """--calibration DIR from samples in memory: one .npy a sample for a model of one input, a
    subdirectory of <input>.npy files a sample for several (OnnxQuantize.h's layout)."""
    if isinstance(samples, (str, os.PathLike)):
        return os.fspath(samples)
    directory = workdir / "calibration"
    directory.mkdir()
    for k, sample in enumerate(samples):
        named = _named(sample, described, f"calibration sample {k}")
        if len(described) == 1:
            name, value = next(iter(named.items()))
            dtype = described[0]["dtype"]
            np.save(directory / f"sample_{k:05d}.npy", _cast_like(_as_array(value), dtype, name))
            continue
        sub = directory / f"sample_{k:05d}"
        sub.mkdir()
        for name, value in named.items():
            dtype = next(i["dtype"] for i in described if i["name"] == name)
            np.save(sub / f"{_native.npy_file_name(name)}.npy", _cast_like(_as_array(value), dtype, name))
    return str(directory)


def _hw_arg(hw, workdir):
    """--hw: a configuration's name or file, or a dict written as a configuration file."""
    if isinstance(hw, dict):
        config = dict(hw)
        if "params" not in config:
            config = {"name": "custom", "params": config}
        file = workdir / "hw.json"
        file.write_text(json.dumps(config))
        return str(file)
    return os.fspath(hw)


def _tool_message(process):
    text = (process.stderr or "").strip() or (process.stdout or "").strip()
    lines = [line.removeprefix("weft: ").removeprefix("error: ") for line in text.splitlines() if line.strip()]
    return "\n".join(lines) or f"weft exited with code {process.returncode}"


def _run_tool(args, workdir, timeout):
    try:
        return subprocess.run([_native.tool_path(), *args], cwd=workdir, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        raise WeftError(f"weft did not finish within {timeout} s") from e


class _WorkDir:
    """The run's files: a temporary directory removed afterwards, or the caller's, kept."""

    def __init__(self, keep):
        self.keep = keep

    def __enter__(self):
        if self.keep is not None:
            self.path = pathlib.Path(self.keep).resolve()
            self.path.mkdir(parents=True, exist_ok=True)
        else:
            self.path = pathlib.Path(tempfile.mkdtemp(prefix="weft-"))
        return self.path

    def __exit__(self, *exc):
        if self.keep is None:
            shutil.rmtree(self.path, ignore_errors=True)


def run(model, hw="weft16", backend="approx", quantize=None, inputs=None, *, calibration=None, shapes=None,
        relaxed=False, seed=1, tolerance=None, preference=None, check=True, workdir=None, timeout=None):
    """Runs a model on the simulated accelerator, checked against the CPU reference, as `weft run`.

    model       a path (ONNX model, ONNX test directory, network JSON), an onnx.ModelProto, a
                weft.Model (weft.from_torch) or the bytes of a serialized ONNX model
    hw          a named configuration ("weft16", "weft8", "weft16fp", ...; weft.configs()), a
                configuration file, or a dict of parameters ({"Rows": 32, "Cols": 32}, or a
                whole configuration with "params")
    backend     "rtl" (the Verilated RTL), "approx" (the fast model, identical in cycles and
                outputs) or "timing" (cycles only, no outputs)
    quantize    None, or "int8" for post-training quantization of a float ONNX model
    inputs      {name: array}, a list in the model's input order, or one array (default: the
                model's example inputs, else drawn from `seed`); numpy arrays or torch tensors
    calibration with quantize: a directory of .npy samples, or a list of samples (arrays or dicts)
    shapes      {input or symbolic dimension: shape}, e.g. {"batch": 1}
    relaxed     float32 computed in float16 (what hw="weft16fp" runs on its accelerator)
    check       raise ReferenceCheckError when the outputs differ from the reference's
    workdir     keep the run's files (report.json, report.csv, outputs/) there

    Returns a weft.Result: outputs, layers, cycles, nnapi_durations, energy, area_um2, report.
    Raises WeftError with weft's message for a model, an input or an option weft cannot take.
    """
    if backend not in ("rtl", "approx", "timing"):
        raise WeftError(f"backend={backend!r}: accepted values are 'rtl', 'approx' and 'timing'")
    if quantize not in (None, "int8"):
        raise WeftError(f"quantize={quantize!r}: weft quantizes to 'int8'")
    if calibration is not None and quantize is None:
        raise WeftError("calibration= is for quantize='int8'")
    data = _model_bytes(model)
    if inputs is None and isinstance(model, Model):
        inputs = model.inputs
    with _WorkDir(workdir) as work:
        if data is not None:
            path = work / f"{_native.npy_file_name(_model_name(model))}.onnx"
            path.write_bytes(data)
        else:
            path = pathlib.Path(os.fspath(model)).resolve()
            if not path.exists():
                raise WeftError(f"{model}: no such file")
        onnx = data is not None or _is_onnx_path(path)
        args = ["--backend", backend, "--hw", _hw_arg(hw, work), "run", str(path), "--json", str(work / "report.json"),
                "--csv", str(work / "report.csv"), "--save-outputs", str(work / "outputs"), "--quiet"]
        if onnx:
            described = inspect(data if data is not None else path, shapes=shapes, relaxed=relaxed)["inputs"]
            for name, shape in _shape_args(shapes).items():
                args += ["--shape", f"{name}={shape}"]
            if inputs is not None:
                args += _write_inputs(inputs, described, work)
            if quantize:
                args += ["--quantize", quantize]
                if calibration is not None:
                    args += ["--calibration", _write_calibration(calibration, described, work)]
            if relaxed:
                args.append("--relaxed")
            args += ["--seed", str(int(seed))]
        elif inputs is not None or quantize or shapes or relaxed:
            raise WeftError(f"{path}: inputs=, quantize=, shapes= and relaxed= are for ONNX models; a network "
                            "description draws its inputs from its seeds")
        if tolerance is not None:
            args += ["--tolerance", str(int(tolerance))]
        if preference is not None:
            args += ["--preference", preference]
        process = _run_tool(args, work, timeout)
        if process.returncode not in (0, 1) or not (work / "report.json").exists():
            raise WeftError(_tool_message(process))
        result = Result.from_files(work / "report.json", process.stdout)
    if process.returncode == 1 and check:
        failures = result.report.get("referenceCheck", {}).get("failures") or _tool_message(process)
        raise ReferenceCheckError(f"reference check failed: {failures}".strip(), result)
    return result


def sweep(spec, out=None, backend=None, jobs=None, timeout=None):
    """Runs a sweep (`weft sweep`): `spec` a dict or a JSON file (base, grid or points, workloads;
    the README's "Sweeps"). Returns a weft.SweepResult whose `rows` are results.jsonl's (one per
    point, workload and layer, and each workload's total); `out` keeps the sweep's directory (and
    resumes it), else a temporary one is removed after reading."""
    with _WorkDir(out) as work:
        if isinstance(spec, dict):
            spec_file = work / "sweep.json"
            spec_file.write_text(json.dumps(spec))
        else:
            spec_file = pathlib.Path(os.fspath(spec)).resolve()
        args = ["sweep", str(spec_file), "--out", str(work / "sweep"), "--quiet"]
        if backend is not None:
            args += ["--backend", backend]
        if jobs is not None:
            args += ["--jobs", str(int(jobs))]
        process = _run_tool(args, work, timeout)
        results = work / "sweep" / "results.jsonl"
        if process.returncode != 0 and not results.exists():
            raise WeftError(_tool_message(process))
        return SweepResult.from_file(results, process.stdout, failed=process.returncode != 0)


def from_torch(module, example_inputs, *, input_names=None, output_names=None, opset=13, name=None,
               dynamic_axes=None):
    """Exports a torch.nn.Module to ONNX (torch.onnx.export, in memory) for weft.run.

    example_inputs: a tensor or a tuple of tensors; they become the model's default inputs.
    Returns a weft.Model; weft.run(weft.from_torch(m, x), hw=..., quantize="int8") runs it."""
    import io

    import torch

    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"from_torch takes a torch.nn.Module, not a {type(module).__name__}")
    args = example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)
    if input_names is None:
        input_names = ["input"] if len(args) == 1 else [f"input{i}" for i in range(len(args))]
    buffer = io.BytesIO()
    was_training = module.training
    module.eval()
    try:
        with torch.no_grad():
            torch.onnx.export(module, args, buffer, input_names=input_names, output_names=output_names,
                              opset_version=opset, dynamic_axes=dynamic_axes, do_constant_folding=True)
    except Exception as e:  # the exporter's own error, said as weft's
        raise WeftError(f"torch.onnx.export failed: {e}") from e
    finally:
        module.train(was_training)
    inputs = {n: a.detach().cpu().numpy() for n, a in zip(input_names, args)}
    return Model(buffer.getvalue(), name or type(module).__name__, inputs)


def configs():
    """The named hardware configurations (hw/configs)."""
    return list(_native.configs())


def config(name):
    """A hardware configuration (a name or a JSON file) with every parameter, as a dict."""
    return json.loads(_native.config_json(os.fspath(name)))


def dram_devices():
    """The DRAM device presets (`weft dram devices`), each described as weft.dram_device does."""
    return [dram_device(name) for name in _native.dram_presets()]


def dram_device(name_or_ini):
    """A DRAM device, a preset's name ("lpddr4-3200") or a DRAMsim3 .ini file, as a dict: its
    organization (channels, ranks, bank groups, banks, rows, columns, bus width, burst length,
    bytes a transaction, capacity), tCK, peak bandwidth, source and notes. WeftError naming the
    file, field and rule for a bad .ini."""
    return dict(_native.dram_device(os.fspath(name_or_ini)))


def _write_trace(transactions, path):
    """DRAMsim3's trace format from (address, kind, cycle) triples; kind "READ"/"WRITE" (any
    case) or a bool, True for a write."""
    with open(path, "w") as out:
        for i, item in enumerate(transactions):
            try:
                address, kind, cycle = item
            except (TypeError, ValueError):
                raise ValueError(f"transaction {i}: {item!r} is not an (address, kind, cycle) triple") from None
            if isinstance(kind, (bool, np.bool_)):
                kind = "WRITE" if kind else "READ"
            elif isinstance(kind, str) and kind.upper() in ("READ", "WRITE"):
                kind = kind.upper()
            else:
                raise ValueError(f"transaction {i}: kind {kind!r} is neither READ, WRITE nor a bool (True: a write)")
            address, cycle = int(address), int(cycle)
            if address < 0 or cycle < 0:
                raise ValueError(f"transaction {i}: a negative address or cycle ({address}, {cycle})")
            out.write(f"0x{address:x} {kind} {cycle}\n")


def dram_replay(trace, dram, *, command_trace=None, timeout=None):
    """Replays a DRAM trace on a device as `weft dram replay` (DRAMsim3's trace driver) and
    returns its figures as a dict: transactions, reads, writes, dram_cycles, average read and
    write latency, row hits, misses and conflicts, activates, refreshes, energy (pJ, with its
    breakdown), bandwidth and the rest of the tool's JSON.

    trace  a trace file in DRAMsim3's format (`0x<address> READ|WRITE <cycle>`, cycles in the
           DRAM's clock), or (address, kind, cycle) triples: kind "READ"/"WRITE" or a bool
    dram   a preset's name (weft.dram_devices()) or a DRAMsim3 .ini file
    command_trace  also write every DRAM command to this file, in DRAMsim3's command-trace format
    Errors (a line that does not parse, an address beyond the device, a bad .ini) are
    weft.WeftError with the tool's message."""
    with _WorkDir(None) as work:
        if isinstance(trace, (str, os.PathLike)):
            trace_path = pathlib.Path(os.fspath(trace)).resolve()
        else:
            trace_path = work / "trace.txt"
            _write_trace(trace, trace_path)
        dram = os.fspath(dram)
        if os.path.exists(dram) or os.path.sep in dram or dram.endswith(".ini"):  # a file, from here
            dram = str(pathlib.Path(dram).resolve())
        extra = [] if command_trace is None else ["--command-trace", str(pathlib.Path(os.fspath(command_trace)).resolve())]
        process = _run_tool(["dram", "replay", str(trace_path), "--dram", dram, "--json", str(work / "replay.json"),
                             "--quiet", *extra], work, timeout)
        if process.returncode != 0 or not (work / "replay.json").exists():
            message = _tool_message(process)
            if not isinstance(trace, (str, os.PathLike)):  # name the caller's triples, not the file made of them
                message = message.replace(f"{trace_path}:", "the transactions given, line ")
            raise WeftError(message)
        return json.loads((work / "replay.json").read_text())
