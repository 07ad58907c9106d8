"""weft from Python: run a model on the simulated systolic-array accelerator.

    import weft
    r = weft.run("resnet18.onnx", hw="weft16", backend="approx", quantize="int8")
    r.outputs["output"], r.cycles, r.nnapi_durations, r.layers, r.to_pandas()

    m = weft.from_torch(torchvision.models.resnet18(), torch.randn(1, 3, 96, 96))
    weft.run(m, hw="weft8", quantize="int8")

    weft.sweep({"base": "weft16", "grid": {"Rows": [8, 16]}, "workloads": ["model.onnx"]})

    weft.dram_replay([(0x0, "READ", 0), (0x40, "WRITE", 1)], dram="lpddr4-3200")["dram_cycles"]

Every run is the `weft` tool in a process of its own (the hardware and backend are chosen when
NNAPI's library loads); errors are weft.WeftError carrying weft's message.
"""

from ._native import WeftError
from ._api import (Model, ReferenceCheckError, config, configs, dram_device, dram_devices, dram_replay, from_torch,
                   inspect, run, sweep)
from ._result import Result, SweepResult

__all__ = ["Model", "ReferenceCheckError", "Result", "SweepResult", "WeftError", "config", "configs",
           "dram_device", "dram_devices", "dram_replay", "from_torch", "inspect", "run", "sweep"]
