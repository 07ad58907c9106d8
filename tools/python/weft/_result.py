"""What a run or a sweep returns: the tool's JSON report and outputs as Python values."""

import json
import pathlib

import numpy as np


def _pandas():
    try:
        import pandas
    except ImportError as e:
        raise ImportError("to_pandas() needs pandas (apt install python3-pandas); the rows are in .layers / .rows "
                          "as a list of dicts") from e
    return pandas


def _flat(row, prefix=""):
    """{"busy": {"array": 0.5}} -> {"busy.array": 0.5}: nested report fields as columns."""
    out = {}
    for key, value in row.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        elif isinstance(value, list):
            out[f"{prefix}{key}"] = ", ".join(str(v) for v in value)
        else:
            out[f"{prefix}{key}"] = value
    return out


class Result:
    """One `weft run`.

    outputs          {output name: numpy array} of the accelerated run (float32; quantized
                     outputs dequantized), in the model's output order
    layers           the per-layer table: a dict per NNAPI operation (name, operation, device,
                     unit, cycles, onHardwareNs, utilization, busy fractions, boundBy, DRAM bytes,
                     cyclesOverBound, mapping, maxError, energy); to_pandas() as a DataFrame
    cycles           the accelerator's cycles over the whole run
    nnapi_durations  NNAPI's {"on_hardware_ns", "in_driver_ns"}, or None where NNAPI defines none
                     (a run partitioned over several devices; `nnapi_note` says why)
    energy           the accelerator's energy by part, in pJ ({"totalPj", "macPj", "dramPj", ...})
    area_um2         the configuration's area estimate (tools/codesign)
    passed           the reference check (None on the timing backend, which computes no outputs)
    int8_accuracy    with quantize="int8": per output, cosine similarity and max error against
                     the float model on the same inputs
    report           the whole JSON report; `log` the tool's printed table
    """

    def __init__(self, report, outputs, log=""):
        self.report = report
        self.outputs = outputs
        self.log = log
        self.layers = report.get("layers", [])
        totals = report.get("totals", {})
        self.cycles = sum(t.get("cycles", 0) for t in totals.values())
        durations = report.get("nnapiDurations", {})
        if "onHardwareNs" in durations:
            self.nnapi_durations = {"on_hardware_ns": durations["onHardwareNs"], "in_driver_ns": durations["inDriverNs"]}
            self.nnapi_note = ""
        else:
            self.nnapi_durations = None
            self.nnapi_note = durations.get("reason", "")
        self.energy = report.get("acceleratorEnergy", {})
        self.area_um2 = report.get("estimates", {}).get("areaUm2")
        check = report.get("referenceCheck", {})
        self.passed = check.get("passed") if check.get("run") else None
        self.int8_accuracy = report.get("int8Accuracy", [])
        self.hw = report.get("hw", {})
        self.backend = report.get("backend")

    @classmethod
    def from_files(cls, report_path, log=""):
        report = json.loads(pathlib.Path(report_path).read_text())
        outputs = {}
        for entry in report.get("outputs", []):
            if "file" in entry:
                outputs[entry["name"]] = np.load(entry["file"])
        return cls(report, outputs, log)

    @property
    def energy_uj(self):
        return self.energy.get("totalPj", 0.0) * 1e-6

    def to_pandas(self):
        """The per-layer table as a pandas DataFrame (nested fields as "busy.array" columns)."""
        return _pandas().DataFrame([_flat(layer) for layer in self.layers])

    def __repr__(self):
        check = {True: "passed", False: "FAILED", None: "not run"}[self.passed]
        return (f"weft.Result({self.report.get('network')!r} on {self.hw.get('config')} ({self.backend}): "
                f"{self.cycles} cycles, {len(self.layers)} layers, reference check {check})")


class SweepResult:
    """One `weft sweep`: `rows` are results.jsonl's rows (per point, workload and layer, and each
    workload's "total"), `failed` whether some point failed (its rows say which)."""

    def __init__(self, rows, log="", failed=False):
        self.rows = rows
        self.log = log
        self.failed = failed

    @classmethod
    def from_file(cls, path, log="", failed=False):
        rows = [json.loads(line) for line in pathlib.Path(path).read_text().splitlines() if line.strip()]
        return cls(rows, log, failed)

    def totals(self):
        """Each point's and workload's total row."""
        return [r for r in self.rows if r.get("layer") == "total"]

    def to_pandas(self):
        return _pandas().DataFrame([_flat(r) for r in self.rows])

    def __repr__(self):
        return f"weft.SweepResult({len(self.rows)} rows{', some points failed' if self.failed else ''})"
