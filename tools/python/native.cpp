// weft._native: the part of weft's Python API that runs inside the Python process.
//
// It reads ONNX models with the same importer as the tool (so a model weft cannot take is refused
// before anything runs, with the tool's own message naming the node), describes the hardware
// configurations, and finds the `weft` tool. Running a model is the tool's job, in a process of its
// own: the backend and the hardware configuration are read when libneuralnetworks.so loads
// (DESIGN.md, "configuration"), so each run with its own hw= and backend= is a new process, as a
// sweep's points are. weft/__init__.py builds the public API on top of this module.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <map>
#include <string>
#include <unistd.h>

#include <onnx/onnx_pb.h>

#include "ImportError.h"
#include "Importer.h"
#include "Npy.h"
#include "TestModel.h"
#include "weft/common/locations.h"
#include "weft/hw/config.h"
#include "weft/sim/dram/device.h"

namespace py = pybind11;

namespace {

using weft::onnx::ImportedModel;

// numpy's name of an ONNX element type ("float32"), what np.dtype() takes; ONNX's own for the
// types numpy has no name for (bfloat16, string).
std::string numpyName(weft::onnx::DType type) {
  using weft::onnx::DType;
  switch (type) {
    case DType::kFloat: return "float32";
    case DType::kFloat16: return "float16";
    case DType::kDouble: return "float64";
    case DType::kBool: return "bool";
    case DType::kComplex64: return "complex64";
    case DType::kComplex128: return "complex128";
    default: return weft::onnx::dtypeName(type);  // uint8, int8, ..., int64 are numpy's names too
  }
}

py::list valueInfos(const std::vector<std::string>& names, const std::vector<weft::onnx::ValueInfo>& infos) {
  py::list list;
  for (size_t i = 0; i < names.size() && i < infos.size(); ++i) {
    py::dict d;
    d["name"] = names[i];
    d["shape"] = py::tuple(py::cast(infos[i].shape));
    d["dtype"] = numpyName(infos[i].type);
    list.append(d);
  }
  return list;
}

// What the importer made of a model: its inputs and outputs, and which ONNX node became which
// NNAPI operations (folded nodes became none).
py::dict describe(const ImportedModel& m) {
  py::dict d;
  d["name"] = m.name;
  d["opset"] = m.opset;
  d["inputs"] = valueInfos(m.inputNames, m.inputs);
  d["outputs"] = valueInfos(m.outputNames, m.outputs);
  py::list operations;
  for (const auto& op : m.model.main.operations) operations.append(weft::nn::toString(op.type));
  d["operations"] = operations;
  py::list nodes;
  for (const weft::onnx::NodeRecord& n : m.nodes) {
    py::dict node;
    node["name"] = n.name;
    node["op"] = n.op;
    node["folded"] = n.folded;
    node["operations"] = py::cast(n.operations);
    nodes.append(node);
  }
  d["nodes"] = nodes;
  d["notes"] = py::cast(m.notes);
  return d;
}

weft::onnx::ImportOptions importOptions(const std::map<std::string, std::string>& shapes, bool relaxed) {
  weft::onnx::ImportOptions options;
  for (const auto& [name, shape] : shapes) options.shapes[name] = weft::onnx::parseShape(shape);
  options.relaxed = relaxed;
  return options;
}

// `model`: a path, or the bytes of a serialized ModelProto (`origin` names them in errors).
py::dict inspectOnnx(const py::object& model, const std::map<std::string, std::string>& shapes, bool relaxed,
                     const std::string& origin) {
  const weft::onnx::ImportOptions options = importOptions(shapes, relaxed);
  if (py::isinstance<py::bytes>(model)) {
    const std::string bytes = model.cast<std::string>();
    ImportedModel imported;
    {
      py::gil_scoped_release unlocked;
      ::onnx::ModelProto proto;
      if (!proto.ParseFromString(bytes)) {
        throw weft::onnx::ImportError(origin + ": not an ONNX model (the bytes do not parse as a ModelProto)");
      }
      imported = weft::onnx::importOnnx(std::move(proto), options, origin);
    }
    return describe(imported);
  }
  const std::string path = model.cast<std::string>();
  ImportedModel imported;
  {
    py::gil_scoped_release unlocked;
    imported = weft::onnx::importOnnxFile(path, options);
  }
  return describe(imported);
}

std::string parentOf(const std::string& path) { return path.substr(0, path.find_last_of('/')); }

// The `weft` program beside this module: $WEFT_TOOL, else the build tree's (the build's marker
// is at its top, beside `weft`), else the installed one (<prefix>/bin/weft for a module in
// <prefix>/lib/python3/dist-packages/weft).
std::string toolPath() {
  if (const char* env = std::getenv("WEFT_TOOL"); env != nullptr && *env != '\0') return env;
  const std::string here = weft::common::directoryOfCode(reinterpret_cast<const void*>(&toolPath));
  std::string tried;
  if (const auto tree = weft::common::findBuildTree(here, /*searchParents=*/true)) {
    const std::string tool = parentOf(tree->markerPath) + "/weft";
    if (::access(tool.c_str(), X_OK) == 0) return tool;
    tried = tool + ", ";
  }
  const std::string installed = weft::common::normalPath(here + "/../../../../bin/weft");
  if (::access(installed.c_str(), X_OK) == 0) return installed;
  throw std::runtime_error("the weft tool is not where this module expects it (" + tried + installed +
                           "); set WEFT_TOOL to its path");
}

// A DRAM device (a preset's name or a DRAMsim3 .ini file) as `weft dram devices` describes it.
py::dict describeDram(const std::string& nameOrIni) {
  const weft::sim::dram::DeviceSpec d = weft::sim::dram::loadDevice(nameOrIni);
  const auto& o = d.org;
  py::dict out;
  out["name"] = d.name;
  out["protocol"] = weft::sim::dram::protocolName(o.protocol);
  out["source"] = d.source;
  out["channels"] = o.channels;
  out["ranks"] = o.ranks;
  out["bank_groups"] = o.bankGroups;
  out["banks_per_group"] = o.banksPerGroup;
  out["rows"] = o.rows;
  out["columns"] = o.columns;
  out["bus_width_bits"] = o.busWidth;
  out["burst_length"] = o.burstLength;
  out["transaction_bytes"] = o.requestBytes();
  out["capacity_bytes"] = o.capacityBytes();
  out["tck_ns"] = d.timing.tCK();
  out["peak_gbps"] = d.peakGBps();
  out["notes"] = d.notes;
  return out;
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "weft's in-process part: ONNX inspection, hardware configurations, the tool's location";
  // Every error weft reports reaches Python as weft.WeftError carrying weft's message.
  static py::exception<std::runtime_error> weftError(m, "WeftError");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::builtin_exception&) {
      throw;  // pybind11's own (a wrong argument type): Python's TypeError and the like
    } catch (const py::error_already_set&) {
      throw;
    } catch (const std::exception& e) {
      weftError(e.what());
    }
  });
  m.def("inspect_onnx", &inspectOnnx, py::arg("model"), py::arg("shapes") = std::map<std::string, std::string>{},
        py::arg("relaxed") = false, py::arg("origin") = "model",
        "Imports an ONNX model (a path, or a serialized ModelProto's bytes) as `weft run` would and "
        "describes it; WeftError naming the node when weft cannot take it.");
  m.def("configs", &weft::hw::HwConfig::namedConfigs, "The named hardware configurations (hw/configs).");
  m.def("dram_presets", &weft::sim::dram::presetNames, "The DRAM device presets' names (weft dram devices).");
  m.def("dram_device", &describeDram, py::arg("name_or_ini"),
        "A DRAM device, a preset's name or a DRAMsim3 .ini file, described as a dict; WeftError for a bad one.");
  m.def("config_json", [](const std::string& nameOrPath) { return weft::hw::HwConfig::load(nameOrPath).toJson(); },
        py::arg("name"), "A configuration (a name or a JSON file) with every parameter, as JSON.");
  m.def("npy_file_name", &weft::onnx::npyFileName, py::arg("value_name"),
        "The stem of a value's .npy file (what --save-outputs writes, --calibration reads).");
  m.def("tool_path", &toolPath, "Where the weft program is.");
}
